package net.cheetah.analytics.links;

import java.util.Arrays;
import java.util.List;
import net.cheetah.core.link.BinBackground;
import net.cheetah.core.link.Burstiness;

/**
 * The last {@code slots} T1 bins of one link, by bin start time: constant memory, O(1) per bin.
 * Bins of one start time from several probe records add up. A bin older than the ring's span is
 * refused (the caller counts it late).
 */
public final class BinRing {
  private final long t1Ms;
  private final long[] starts; // bin start per slot; Long.MIN_VALUE = empty
  private final long[] bytes;
  private final long[] cheetahBytes;
  private long newestStartMs = Long.MIN_VALUE;

  public BinRing(long t1Ms, int slots) {
    if (t1Ms <= 0 || slots <= 0) {
      throw new IllegalArgumentException("t1Ms and slots must be > 0");
    }
    this.t1Ms = t1Ms;
    this.starts = new long[slots];
    this.bytes = new long[slots];
    this.cheetahBytes = new long[slots];
    Arrays.fill(starts, Long.MIN_VALUE);
  }

  /** Rebuilds a ring from its saved arrays (operator state). */
  public BinRing(long t1Ms, long[] starts, long[] bytes, long[] cheetahBytes, long newest) {
    this.t1Ms = t1Ms;
    this.starts = starts;
    this.bytes = bytes;
    this.cheetahBytes = cheetahBytes;
    this.newestStartMs = newest;
  }

  /**
   * Adds a bin; returns false (and stores nothing) when its start is not aligned to T1 or it is
   * older than the ring holds.
   */
  public boolean add(long startMs, long binBytes, long binCheetahBytes) {
    if (Math.floorMod(startMs, t1Ms) != 0) {
      return false;
    }
    if (newestStartMs != Long.MIN_VALUE && startMs <= newestStartMs - (long) starts.length * t1Ms) {
      return false;
    }
    int slot = slotOf(startMs);
    if (starts[slot] != startMs) {
      starts[slot] = startMs;
      bytes[slot] = 0;
      cheetahBytes[slot] = 0;
    }
    bytes[slot] += binBytes;
    cheetahBytes[slot] += Math.min(binCheetahBytes, binBytes);
    newestStartMs = Math.max(newestStartMs, startMs);
    return true;
  }

  public long newestStartMs() {
    return newestStartMs;
  }

  /**
   * Statistics of the bins with start in [fromMs, toMs): background ({@link BinBackground}, with
   * the given NetFlow cheetah spans) and its {@link Burstiness}.
   */
  public LinkWindow window(
      String linkId,
      long fromMs,
      long toMs,
      List<CheetahSpan> spans,
      double capacityBps,
      boolean sliding) {
    double sumAll = 0;
    Burstiness background = new Burstiness();
    for (long start = fromMs; start < toMs; start += t1Ms) {
      int slot = slotOf(start);
      if (starts[slot] != start) {
        continue;
      }
      double netflowCheetah = 0;
      for (CheetahSpan s : spans) {
        netflowCheetah += s.bytesIn(start, start + t1Ms);
      }
      sumAll += bytes[slot];
      background.add(BinBackground.bytes(bytes[slot], cheetahBytes[slot], netflowCheetah));
    }
    long n = background.bins();
    double seconds = n * t1Ms / 1000.0;
    return new LinkWindow(
        linkId,
        fromMs,
        toMs,
        n,
        n == 0 ? 0 : background.sum() * 8 / seconds,
        background.value(),
        n == 0 || capacityBps <= 0 ? 0 : sumAll * 8 / seconds / capacityBps,
        capacityBps,
        sliding);
  }

  long[] starts() {
    return starts;
  }

  long[] bytes() {
    return bytes;
  }

  long[] cheetahBytes() {
    return cheetahBytes;
  }

  private int slotOf(long startMs) {
    return (int) Math.floorMod(startMs / t1Ms, (long) starts.length);
  }
}
