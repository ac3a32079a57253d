package net.cheetah.core.flow;

import java.nio.charset.StandardCharsets;

/** Stable identifiers: the same inputs give the same id in every run, job and mode. */
public final class Ids {
  private Ids() {}

  /** splitmix64-style mixing of a running hash with one more value. */
  public static long mix(long h, long v) {
    long z = h * 0x9E3779B97F4A7C15L + v;
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }

  /** A cheetah flow: exporter, 5-tuple and the start of its first record. */
  public static String flowId(FlowKey k, long startMs) {
    long h = mix(k.exporter().hi(), k.exporter().lo());
    h = mix(h, k.tupleHash());
    return hex(mix(h, startMs));
  }

  /** A flowset: its pair and first member (any flow id form, not only this class's hex). */
  public static String flowsetId(Address src, Address dst, String firstMemberFlowId) {
    long h = mix(src.hi(), src.lo());
    h = mix(h, dst.hi());
    h = mix(h, dst.lo());
    for (int i = 0; i < firstMemberFlowId.length(); i++) {
      h = mix(h, firstMemberFlowId.charAt(i));
    }
    return hex(h);
  }

  private static final byte[] HEX = "0123456789abcdef".getBytes(StandardCharsets.US_ASCII);

  /** 16 lower-case hex digits (called for every stitched flow: no intermediate strings). */
  private static String hex(long v) {
    byte[] b = new byte[16];
    for (int i = 15; i >= 0; i--) {
      b[i] = HEX[(int) (v & 0xF)];
      v >>>= 4;
    }
    return new String(b, StandardCharsets.US_ASCII);
  }
}
