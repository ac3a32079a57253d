package net.cheetah.jobs.flowset;

import net.cheetah.core.flow.Address;

/** (source IP, destination IP): the key of parallel flowsets. */
public record PairKey(Address src, Address dst) {}
