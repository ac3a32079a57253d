package net.cheetah.core.flow;

import java.net.InetAddress;
import java.net.UnknownHostException;

/**
 * An IPv6 address (IPv4 as IPv4-mapped), held as two longs so it is a cheap value key. The wire
 * form in cheetah.v1 is the 16-byte big-endian address.
 */
public record Address(long hi, long lo) implements Comparable<Address>, java.io.Serializable {

  private static final long V4_MAPPED_HI = 0L;
  private static final long V4_MAPPED_LO_PREFIX = 0x0000_FFFF_0000_0000L;

  /** From 4 (IPv4) or 16 (IPv6) bytes; other lengths are rejected. */
  public static Address fromBytes(byte[] b) {
    return fromBytes(b, 0, b.length);
  }

  /** From the {@code len} bytes of {@code b} at {@code off}: 4 (IPv4) or 16 (IPv6). */
  public static Address fromBytes(byte[] b, int off, int len) {
    if (len == 4) {
      return new Address(V4_MAPPED_HI, V4_MAPPED_LO_PREFIX | (be(b, off, 4) & 0xFFFF_FFFFL));
    }
    if (len == 16) {
      return new Address(be(b, off, 8), be(b, off + 8, 8));
    }
    throw new IllegalArgumentException("an address must have 4 or 16 bytes, got " + len);
  }

  public static Address parse(String text) {
    try {
      return fromBytes(InetAddress.getByName(text.trim()).getAddress());
    } catch (UnknownHostException e) {
      throw new IllegalArgumentException("not an IP address: '" + text + "'");
    }
  }

  public static Address ofIpv4(int v4) {
    return new Address(V4_MAPPED_HI, V4_MAPPED_LO_PREFIX | (v4 & 0xFFFF_FFFFL));
  }

  // Written out for the reason FlowKey's are; hashCode is the record's own (AddressTest pins it).
  @Override
  public boolean equals(Object o) {
    return this == o || o instanceof Address a && hi == a.hi && lo == a.lo;
  }

  @Override
  public int hashCode() {
    return 31 * Long.hashCode(hi) + Long.hashCode(lo);
  }

  public boolean isIpv4() {
    return hi == V4_MAPPED_HI && (lo & 0xFFFF_FFFF_0000_0000L) == V4_MAPPED_LO_PREFIX;
  }

  public byte[] toBytes16() {
    byte[] b = new byte[16];
    for (int i = 0; i < 8; i++) {
      b[i] = (byte) (hi >>> (56 - 8 * i));
      b[8 + i] = (byte) (lo >>> (56 - 8 * i));
    }
    return b;
  }

  @Override
  public String toString() {
    if (isIpv4()) {
      return ((lo >>> 24) & 0xFF)
          + "."
          + ((lo >>> 16) & 0xFF)
          + "."
          + ((lo >>> 8) & 0xFF)
          + "."
          + (lo & 0xFF);
    }
    // RFC 5952: lower-case hex, no leading zeros, the longest run (>= 2) of zero groups as "::".
    int[] g = new int[8];
    for (int i = 0; i < 4; i++) {
      g[i] = (int) (hi >>> (48 - 16 * i)) & 0xFFFF;
      g[4 + i] = (int) (lo >>> (48 - 16 * i)) & 0xFFFF;
    }
    int bestStart = -1;
    int bestLen = 1;
    for (int i = 0; i < 8; ) {
      int j = i;
      while (j < 8 && g[j] == 0) {
        j++;
      }
      if (j - i > bestLen) {
        bestStart = i;
        bestLen = j - i;
      }
      i = j == i ? i + 1 : j;
    }
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < 8; i++) {
      if (i == bestStart) {
        b.append("::");
        i += bestLen - 1;
        continue;
      }
      if (b.length() > 0 && b.charAt(b.length() - 1) != ':') {
        b.append(':');
      }
      b.append(Integer.toHexString(g[i]));
    }
    return b.toString();
  }

  @Override
  public int compareTo(Address o) {
    int c = Long.compareUnsigned(hi, o.hi);
    return c != 0 ? c : Long.compareUnsigned(lo, o.lo);
  }

  private static long be(byte[] b, int off, int len) {
    long v = 0;
    for (int i = 0; i < len; i++) {
      v = (v << 8) | (b[off + i] & 0xFF);
    }
    return v;
  }
}
