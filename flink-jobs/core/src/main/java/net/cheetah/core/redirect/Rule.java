package net.cheetah.core.redirect;

import net.cheetah.core.flow.Address;

/**
 * One rule the job wants on a device, moved to the scavenger class or DSCP-marked until it is
 * removed or expires: a 5-tuple (per-flow isolation) or a prefix pair (a prefix filter, any port
 * and protocol).
 *
 * @param commandId the add command's id: stable for the same device and cause
 * @param cause the cheetah flow id, or for a prefix filter {@code "prefix SRC/LEN→DST/LEN"}
 * @param src the source address, masked to {@code prefixLen} for a prefix filter
 * @param prefixLen the IPv6 length of both prefixes (an IPv4 /24 is /120); 128 for a 5-tuple
 * @param srcPort 0 (any) for a prefix filter, as are {@code dstPort} and {@code proto}
 */
public record Rule(
    String commandId,
    String deviceId,
    String cause,
    String link,
    Address src,
    Address dst,
    int prefixLen,
    int srcPort,
    int dstPort,
    int proto,
    long issuedMs,
    long expiresMs,
    long thresholdVersion,
    String reason) {
  /** Every prefix filter's cause starts so; flow ids (hex hashes) never do. */
  public static final String PREFIX_FILTER_CAUSE = "prefix ";

  public Prefix srcPrefix() {
    return new Prefix(src, prefixLen);
  }

  public Prefix dstPrefix() {
    return new Prefix(dst, prefixLen);
  }

  public boolean isPrefixFilter() {
    return cause.startsWith(PREFIX_FILTER_CAUSE);
  }
}
