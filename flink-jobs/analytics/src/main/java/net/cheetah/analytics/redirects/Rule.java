package net.cheetah.analytics.redirects;

import net.cheetah.analytics.Address;

/**
 * One rule the job wants on a device: a 5-tuple (per-flow isolation) moved to the scavenger class
 * or DSCP-marked, until it is removed or expires.
 *
 * @param commandId the add command's id: stable for the same device and cause
 * @param cause the cheetah flow id
 */
public record Rule(
    String commandId,
    String deviceId,
    String cause,
    String link,
    Address src,
    Address dst,
    int srcPort,
    int dstPort,
    int proto,
    long issuedMs,
    long expiresMs,
    long thresholdVersion,
    String reason) {}
