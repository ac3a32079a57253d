package net.cheetah.analytics;

import java.util.Comparator;
import java.util.function.Consumer;
import net.cheetah.config.CheetahConfig.Detection;
import net.cheetah.core.flow.CheetahEvent;
import net.cheetah.core.flow.Flow;
import net.cheetah.core.flow.Ids;
import net.cheetah.core.flow.StitchedFlow;

/**
 * NetFlow cheetah (α flow) detection (docs/ARCHITECTURE.md, "NetFlow cheetah"): records of one
 * FlowKey are stitched into a flow while the gap to the previous record is at most G; each record's
 * bytes are apportioned over the aligned intervals of length I it spans; a flow is a cheetah once
 * any interval holds at least H bytes. Emits START when a flow becomes a cheetah, UPDATE for every
 * later record, END when the flow ends (a record after a gap &gt; G, or event time passing end +
 * G).
 *
 * <p>Records must be fed in start order per key (the streaming job sorts them by event time first).
 * A record that starts before the current flow but overlaps it within G is merged.
 */
public final class CheetahDetector {
  /** The order records of one key are fed in, once they are all known: by start, then end. */
  public static final Comparator<Flow> FEED_ORDER =
      Comparator.comparingLong(Flow::startMs).thenComparingLong(Flow::endMs);

  private final long h;
  private final long intervalMs;
  private final long gapMs;
  private final long activeTimeoutMs;

  public CheetahDetector(Detection d) {
    this.h = d.hBytes();
    this.intervalMs = d.intervalMs();
    this.gapMs = d.gapMs();
    this.activeTimeoutMs = d.activeTimeoutMs();
  }

  /**
   * Whether records holding {@code totalBytes} bytes in all can make a cheetah at all: no interval
   * can hold more than all of them, so fewer than H bytes in total never do (and {@link #onRecord}
   * would emit nothing for them). Lets a batch skip most flows without stitching them.
   */
  public boolean canBeCheetah(long totalBytes) {
    return totalBytes >= h;
  }

  /**
   * Event time from which {@code flow} has certainly ended: a continuation would start within G of
   * its end, and its record is exported at most one active timeout after that start.
   */
  public long closeTime(StitchedFlow flow) {
    return flow.endMs + gapMs + activeTimeoutMs;
  }

  /**
   * Feeds one record. Returns the state to keep: {@code current} updated, or a new flow when the
   * record does not continue it (then {@code current} was ended first, emitting END if a cheetah).
   */
  public StitchedFlow onRecord(StitchedFlow current, Flow r, Consumer<CheetahEvent> out) {
    StitchedFlow f = current;
    if (f != null && !continues(f, r)) {
      onEnd(f, r.endMs(), out);
      f = null;
    }
    if (f == null) {
      f = new StitchedFlow();
      f.key = r.key();
      f.flowId = Ids.flowId(r.key(), r.startMs());
      f.startMs = r.startMs();
      f.endMs = r.endMs();
      f.windowFirst = IntervalApportioner.intervalIndex(r.startMs(), intervalMs);
      f.peakIndex = f.windowFirst;
    }
    add(f, r);
    if (!f.cheetah && f.peakBytes >= h) {
      f.cheetah = true;
      out.accept(event(f, CheetahEvent.Kind.START, r.endMs()));
    } else if (f.cheetah) {
      out.accept(event(f, CheetahEvent.Kind.UPDATE, r.endMs()));
    }
    return f;
  }

  /** The flow has ended, as known at event time {@code nowMs}: emits END if it was a cheetah. */
  public void onEnd(StitchedFlow f, long nowMs, Consumer<CheetahEvent> out) {
    if (f.cheetah) {
      out.accept(event(f, CheetahEvent.Kind.END, nowMs));
    }
  }

  private boolean continues(StitchedFlow f, Flow r) {
    return r.startMs() <= f.endMs + gapMs && r.endMs() >= f.startMs - gapMs;
  }

  private void add(StitchedFlow f, Flow r) {
    f.startMs = Math.min(f.startMs, r.startMs());
    f.endMs = Math.max(f.endMs, r.endMs());
    f.bytes += r.bytes();
    f.packets += r.packets();
    f.records++;
    if (r.srcAs() != 0) {
      f.srcAs = r.srcAs();
    }
    if (r.dstAs() != 0) {
      f.dstAs = r.dstAs();
    }
    // Intervals before this record's start can no longer grow (records come in start order).
    retire(f, IntervalApportioner.intervalIndex(r.startMs(), intervalMs));
    IntervalApportioner.apportion(
        r.startMs(), r.endMs(), r.bytes(), intervalMs, (k, b) -> addToInterval(f, k, b));
  }

  private void retire(StitchedFlow f, long firstOpen) {
    int drop = (int) Math.min(f.window.length, Math.max(0, firstOpen - f.windowFirst));
    if (drop > 0) {
      long[] w = new long[f.window.length - drop];
      System.arraycopy(f.window, drop, w, 0, w.length);
      f.window = w;
      f.windowFirst += drop;
    }
  }

  private void addToInterval(StitchedFlow f, long k, long b) {
    if (k < f.windowFirst) {
      // A merged earlier record reaching a retired interval: count it against the peak directly
      // (its interval total is no longer known, so this is a lower bound, never an overcount).
      if (b > f.peakBytes) {
        f.peakBytes = b;
        f.peakIndex = k;
      }
      return;
    }
    int i = (int) (k - f.windowFirst);
    if (i >= f.window.length) {
      long[] w = new long[i + 1];
      System.arraycopy(f.window, 0, w, 0, f.window.length);
      f.window = w;
    }
    f.window[i] += b;
    if (f.window[i] > f.peakBytes) {
      f.peakBytes = f.window[i];
      f.peakIndex = k;
    }
  }

  private CheetahEvent event(StitchedFlow f, CheetahEvent.Kind kind, long eventMs) {
    return new CheetahEvent(
        f.flowId,
        kind,
        eventMs,
        f.seq++,
        f.key,
        f.startMs,
        f.endMs,
        f.bytes,
        f.packets,
        f.peakBytes,
        f.peakIndex * intervalMs,
        f.records,
        f.srcAs,
        f.dstAs);
  }
}
