package net.cheetah.analytics.throughput;

/** A sender and a receiver: the unit every throughput statistic is kept per. */
public record HostPair(String src, String dst) implements Comparable<HostPair> {
  @Override
  public int compareTo(HostPair o) {
    int c = src.compareTo(o.src);
    return c != 0 ? c : dst.compareTo(o.dst);
  }

  @Override
  public String toString() {
    return src + " -> " + dst;
  }
}
