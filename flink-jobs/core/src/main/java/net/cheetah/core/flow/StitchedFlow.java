package net.cheetah.core.flow;

/**
 * A flow rebuilt from consecutive exporter records (state of {@link CheetahDetector}, one per
 * FlowKey). A plain mutable POJO so Flink keeps it in keyed state without Kryo.
 *
 * <p>Per-interval bytes are kept only for intervals that later records can still reach (from the
 * interval of the newest record's start on); earlier ones are folded into the peak.
 */
public final class StitchedFlow {
  public String flowId;
  public FlowKey key;
  public long startMs;
  public long endMs;
  public long bytes;
  public long packets;
  public int records;
  public int srcAs;
  public int dstAs;

  /** Interval index of window[0]. */
  public long windowFirst;

  public long[] window = new long[0];
  public long peakBytes;
  public long peakIndex;
  public boolean cheetah;

  /** Sequence number of the next event emitted for this flow. */
  public long seq;

  public StitchedFlow() {}
}
