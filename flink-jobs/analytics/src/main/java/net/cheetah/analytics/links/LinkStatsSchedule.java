package net.cheetah.analytics.links;

import java.util.ArrayList;
import java.util.List;

/**
 * When a link's windows are complete, by the link's own clock (the newest bin seen): the aligned T2
 * windows and, every S, a sliding window of length T2 ending at a multiple of S. A window is due
 * once bins up to its end plus the lateness have been seen, so that late bins and cheetah events
 * (NetFlow reports a flow up to an active timeout after it ran) are in.
 */
public final class LinkStatsSchedule {
  private final long t1Ms;
  private final long t2Ms;
  private final long slidingEveryMs;
  private final long latenessMs;

  /** A window to compute. */
  public record Due(long fromMs, long toMs, boolean sliding) {}

  public LinkStatsSchedule(long t1Ms, long t2Ms, long slidingEveryMs, long latenessMs) {
    if (t1Ms <= 0 || t2Ms < t1Ms || t2Ms % t1Ms != 0) {
      throw new IllegalArgumentException(
          "T2 must be a positive multiple of T1 (T1 " + t1Ms + ", T2 " + t2Ms + ")");
    }
    if (slidingEveryMs < 0 || slidingEveryMs % t1Ms != 0 || latenessMs < 0) {
      throw new IllegalArgumentException(
          "sliding period must be a multiple of T1 (0 = off), lateness >= 0");
    }
    this.t1Ms = t1Ms;
    this.t2Ms = t2Ms;
    this.slidingEveryMs = slidingEveryMs;
    this.latenessMs = latenessMs;
  }

  /** Ring slots needed: one window plus the lateness, plus one bin. */
  public int ringSlots() {
    return (int) ((t2Ms + latenessMs) / t1Ms + 1);
  }

  /** The first aligned T2 window end after a link's first bin. */
  public long firstTumblingEnd(long firstBinStartMs) {
    return Math.floorDiv(firstBinStartMs, t2Ms) * t2Ms + t2Ms;
  }

  /** The first sliding window end after a link's first bin (Long.MAX_VALUE when sliding is off). */
  public long firstSlidingEnd(long firstBinStartMs) {
    return slidingEveryMs == 0
        ? Long.MAX_VALUE
        : Math.floorDiv(firstBinStartMs, slidingEveryMs) * slidingEveryMs + slidingEveryMs;
  }

  /**
   * Windows due now that bins up to {@code newestBinStartMs} have been seen; advances the two
   * next-end cursors in {@code next} ({@code [tumbling, sliding]}).
   */
  public List<Due> due(long newestBinStartMs, long[] next) {
    long seenUpTo = newestBinStartMs + t1Ms;
    List<Due> out = new ArrayList<>();
    while (next[0] + latenessMs <= seenUpTo) {
      out.add(new Due(next[0] - t2Ms, next[0], false));
      next[0] += t2Ms;
    }
    while (next[1] != Long.MAX_VALUE && next[1] + latenessMs <= seenUpTo) {
      out.add(new Due(next[1] - t2Ms, next[1], true));
      next[1] += slidingEveryMs;
    }
    return out;
  }
}
