package net.cheetah.analytics.throughput;

/**
 * One completed transfer a tool logged (a {@code transfers.v1} record): the active measurement. Its
 * rate is what the tool reports: bytes over its own elapsed seconds.
 */
public record Transfer(
    String src,
    String dst,
    String tool,
    int streams,
    long bytes,
    double seconds,
    long startMs,
    long endMs,
    long bufferBytes) {

  /** The tool's throughput in bit/s; NaN when it logged no elapsed time. */
  public double activeBps() {
    return seconds > 0 ? bytes * 8.0 / seconds : Double.NaN;
  }

  public HostPair pair() {
    return new HostPair(src, dst);
  }
}
