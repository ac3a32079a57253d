package net.cheetah.jobs.cheetah;

import java.util.ArrayList;
import java.util.List;
import net.cheetah.analytics.CheetahDetector;
import net.cheetah.config.CheetahConfig.Detection;
import net.cheetah.core.flow.CheetahEvent;
import net.cheetah.core.flow.Flow;
import net.cheetah.core.flow.FlowKey;
import net.cheetah.core.flow.StitchedFlow;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.metrics.Counter;
import org.apache.flink.streaming.api.TimerService;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.util.Collector;

/**
 * Thin Flink shell around {@link CheetahDetector}. Records of a key are held until event time
 * reaches their end and then fed in start order, so the streaming result does not depend on arrival
 * order and equals the batch result (where timers fire per key at the end of input).
 *
 * <p>State (docs/BENCHMARKS.md, "Bottlenecks seen" 1): one entry per key ({@link CheetahKeyState},
 * written by {@link CheetahKeyStateSerializer}) and one event-time timer per key, at the earliest
 * time anything of the key is due: the first end among its pending records, or the flow's close
 * time. A key is processed at exactly the watermarks at which the former one-timer-per-record
 * operator processed it (a timer of that operator that fired with nothing due did nothing), so the
 * events are the same.
 */
public final class CheetahFunction extends KeyedProcessFunction<FlowKey, Flow, CheetahEvent> {
  private static final long NO_TIMER = Long.MAX_VALUE;

  private final Detection detection;
  private transient CheetahDetector detector;
  private transient ValueState<CheetahKeyState> state;
  private transient Counter recordsIn;
  private transient Counter lateRecords;
  private transient Counter cheetahsStarted;
  private transient Counter cheetahsEnded;

  public CheetahFunction(Detection detection) {
    this.detection = detection;
  }

  @Override
  public void open(OpenContext ctx) {
    detector = new CheetahDetector(detection);
    state =
        getRuntimeContext()
            .getState(new ValueStateDescriptor<>("cheetah", CheetahKeyStateSerializer.INSTANCE));
    var g = getRuntimeContext().getMetricGroup();
    recordsIn = g.counter("flowRecordsIn");
    lateRecords = g.counter("lateFlowRecords");
    cheetahsStarted = g.counter("cheetahsStarted");
    cheetahsEnded = g.counter("cheetahsEnded");
  }

  @Override
  public void processElement(Flow r, Context ctx, Collector<CheetahEvent> out) throws Exception {
    recordsIn.inc();
    if (r.endMs() <= ctx.timerService().currentWatermark()) {
      lateRecords.inc();
    }
    CheetahKeyState s = state.value();
    if (s == null) {
      s = new CheetahKeyState();
    }
    long due = due(s);
    s.addPending(r);
    if (r.endMs() < due) {
      if (due != NO_TIMER) {
        ctx.timerService().deleteEventTimeTimer(due);
      }
      ctx.timerService().registerEventTimeTimer(r.endMs());
    }
    state.update(s);
  }

  @Override
  public void onTimer(long t, OnTimerContext ctx, Collector<CheetahEvent> out) throws Exception {
    CheetahKeyState s = state.value();
    if (s == null) {
      return;
    }
    // Batch execution fires a key's timers with the watermark at +inf and does not fire timers
    // registered meanwhile, so "now" is the watermark when it is ahead of this timer.
    long now = Math.max(t, ctx.timerService().currentWatermark());
    long due = due(s);
    FlowKey key = ctx.getCurrentKey();
    StitchedFlow f = s.flow;
    if (f != null) {
      f.key = key;
    }
    List<Flow> ready = new ArrayList<>();
    for (int i = 0; i < s.pendingCount; i++) {
      if (s.pendingEnd(i) <= now) {
        ready.add(s.pendingFlow(key, i));
      }
    }
    if (!ready.isEmpty()) {
      ready.sort(CheetahDetector.FEED_ORDER);
      s.retainPending(i -> s.pendingEnd(i) > now);
      for (Flow r : ready) {
        f = detector.onRecord(f, r, e -> emit(e, out));
      }
    }
    if (f != null && now >= detector.closeTime(f)) {
      detector.onEnd(f, detector.closeTime(f), e -> emit(e, out));
      f = null;
    }
    if (f != null) {
      f.key = null; // the state key; not kept twice
    }
    s.flow = f;
    reschedule(ctx.timerService(), t, due, due(s));
    if (s.isEmpty()) {
      state.clear();
    } else {
      state.update(s);
    }
  }

  /** When the key needs a timer next: its first pending end, or its flow's close time. */
  private long due(CheetahKeyState s) {
    long d = s.earliestPendingEnd();
    return s.flow == null ? d : Math.min(d, detector.closeTime(s.flow));
  }

  /**
   * Keeps exactly one timer, at {@code next}, given the one at {@code was} and that {@code t}
   * fired.
   */
  private static void reschedule(TimerService timers, long t, long was, long next) {
    if (next == was) {
      if (was != t || next == NO_TIMER) {
        return; // still registered (or none needed)
      }
    } else if (was != NO_TIMER && was != t) {
      timers.deleteEventTimeTimer(was);
    }
    if (next != NO_TIMER) {
      timers.registerEventTimeTimer(next);
    }
  }

  private void emit(CheetahEvent e, Collector<CheetahEvent> out) {
    if (e.kind() == CheetahEvent.Kind.START) {
      cheetahsStarted.inc();
    } else if (e.kind() == CheetahEvent.Kind.END) {
      cheetahsEnded.inc();
    }
    out.collect(e);
  }
}
