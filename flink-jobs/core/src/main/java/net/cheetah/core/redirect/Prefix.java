package net.cheetah.core.redirect;

import net.cheetah.core.flow.Address;

/** An address prefix in IPv6 terms (an IPv4 /24 is an IPv4-mapped /120). */
public record Prefix(Address network, int length) implements java.io.Serializable {
  public Prefix {
    if (length < 0 || length > 128) {
      throw new IllegalArgumentException("prefix length must be 0..128, got " + length);
    }
    network = mask(network, length);
  }

  /** "198.18.0.0/15", "2001:db8::/32", or a bare address (a host prefix). */
  public static Prefix parse(String text) {
    String t = text.trim();
    int slash = t.indexOf('/');
    Address a = Address.parse(slash < 0 ? t : t.substring(0, slash));
    if (slash < 0) {
      return new Prefix(a, 128);
    }
    int len;
    try {
      len = Integer.parseInt(t.substring(slash + 1));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("not a prefix: '" + text + "'");
    }
    boolean v4 = a.isIpv4() && !t.contains(":");
    if (v4 && len > 32) {
      throw new IllegalArgumentException("IPv4 prefix length must be 0..32: '" + text + "'");
    }
    return new Prefix(a, v4 ? len + 96 : len);
  }

  public static Prefix host(Address a) {
    return new Prefix(a, 128);
  }

  public boolean contains(Address a) {
    return mask(a, length).equals(network);
  }

  /** True when the two prefixes share at least one address. */
  public boolean overlaps(Prefix other) {
    int shorter = Math.min(length, other.length);
    return mask(network, shorter).equals(mask(other.network, shorter));
  }

  private static Address mask(Address a, int len) {
    long hiMask = len >= 64 ? -1L : len == 0 ? 0 : -1L << (64 - len);
    long loMask = len <= 64 ? 0 : len >= 128 ? -1L : -1L << (128 - len);
    return new Address(a.hi() & hiMask, a.lo() & loMask);
  }

  @Override
  public String toString() {
    return network.isIpv4() && length >= 96
        ? network + "/" + (length - 96)
        : network + "/" + length;
  }
}
