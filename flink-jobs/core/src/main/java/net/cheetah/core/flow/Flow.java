package net.cheetah.core.flow;

/**
 * One exporter record of a flow, counts already scaled by the sampling rate (a flows.v1 record).
 * Times are epoch milliseconds of the first and last packet.
 */
public record Flow(
    FlowKey key, long startMs, long endMs, long bytes, long packets, int srcAs, int dstAs) {

  public Flow {
    if (endMs < startMs) {
      throw new IllegalArgumentException("flow ends before it starts: " + startMs + " > " + endMs);
    }
  }
}
