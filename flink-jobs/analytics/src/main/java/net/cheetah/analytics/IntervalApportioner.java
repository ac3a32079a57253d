package net.cheetah.analytics;

import java.math.BigInteger;

/**
 * Spreads a record's bytes uniformly over its span [start, end] and across the epoch-aligned
 * intervals [k·I, (k+1)·I) it overlaps ("≥ H bytes within one interval of I": docs/ARCHITECTURE.md,
 * "NetFlow cheetah"). Integer shares are cumulative floors, so the parts always sum to the record's
 * bytes exactly.
 */
public final class IntervalApportioner {
  private IntervalApportioner() {}

  /** Receives (interval index k, bytes of the record that fall in [k·I, (k+1)·I)). */
  @FunctionalInterface
  public interface Sink {
    void accept(long intervalIndex, long bytes);
  }

  public static long intervalIndex(long timeMs, long intervalMs) {
    return Math.floorDiv(timeMs, intervalMs);
  }

  public static void apportion(long startMs, long endMs, long bytes, long intervalMs, Sink sink) {
    long first = intervalIndex(startMs, intervalMs);
    long last = intervalIndex(endMs, intervalMs);
    long span = endMs - startMs;
    if (first == last || span == 0) {
      sink.accept(first, bytes);
      return;
    }
    long given = 0;
    for (long k = first; k <= last; k++) {
      long overlapEnd = Math.min(endMs, (k + 1) * intervalMs);
      long covered = overlapEnd - startMs;
      long cumulative = k == last ? bytes : mulDiv(bytes, covered, span);
      if (cumulative > given) {
        sink.accept(k, cumulative - given);
      }
      given = cumulative;
    }
  }

  /** floor(a·b / c) for non-negative a, b and positive c, exact even when a·b overflows. */
  static long mulDiv(long a, long b, long c) {
    long hi = Math.multiplyHigh(a, b);
    long lo = a * b;
    if (hi == 0 && lo >= 0) {
      return lo / c;
    }
    return BigInteger.valueOf(a)
        .multiply(BigInteger.valueOf(b))
        .divide(BigInteger.valueOf(c))
        .longValueExact();
  }
}
