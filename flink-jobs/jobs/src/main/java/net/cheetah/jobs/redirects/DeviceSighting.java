package net.cheetah.jobs.redirects;

import net.cheetah.core.redirect.CheetahSighting;

/** A cheetah sighting routed to the device that acts for its link. */
public record DeviceSighting(String device, CheetahSighting sighting) {}
