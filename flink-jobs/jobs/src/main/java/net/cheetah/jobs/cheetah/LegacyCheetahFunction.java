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
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.metrics.Counter;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.util.Collector;

/**
 * The cheetah operator as it was before its state was packed (commit f457372): a StitchedFlow POJO,
 * a ListState of pending Flow records and one event-time timer per record. Not used by any job:
 * kept as the reference {@link CheetahOperator} must equal (CheetahOperatorEquivalenceTest) and
 * whose state the state benchmark (flink-jobs/bench, StateSizeBenchmark) measures beside it.
 *
 * <p>Thin Flink shell around {@link CheetahDetector}. Records of a key are held until event time
 * reaches their end and then fed in start order, so the streaming result does not depend on arrival
 * order and equals the batch result (where timers fire per key at the end of input).
 */
public final class LegacyCheetahFunction extends KeyedProcessFunction<FlowKey, Flow, CheetahEvent> {
  private final Detection detection;
  private transient CheetahDetector detector;
  private transient ValueState<StitchedFlow> flow;
  private transient ListState<Flow> pending;
  private transient Counter recordsIn;
  private transient Counter lateRecords;
  private transient Counter cheetahsStarted;
  private transient Counter cheetahsEnded;

  public LegacyCheetahFunction(Detection detection) {
    this.detection = detection;
  }

  @Override
  public void open(OpenContext ctx) {
    detector = new CheetahDetector(detection);
    flow = getRuntimeContext().getState(new ValueStateDescriptor<>("flow", StitchedFlow.class));
    pending = getRuntimeContext().getListState(new ListStateDescriptor<>("pending", Flow.class));
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
    pending.add(r);
    ctx.timerService().registerEventTimeTimer(r.endMs());
  }

  @Override
  public void onTimer(long t, OnTimerContext ctx, Collector<CheetahEvent> out) throws Exception {
    // Batch execution fires a key's timers with the watermark at +inf and does not fire timers
    // registered meanwhile, so "now" is the watermark when it is ahead of this timer.
    long now = Math.max(t, ctx.timerService().currentWatermark());
    List<Flow> ready = new ArrayList<>();
    List<Flow> later = new ArrayList<>();
    for (Flow r : pending.get()) {
      (r.endMs() <= now ? ready : later).add(r);
    }
    StitchedFlow f = flow.value();
    if (!ready.isEmpty()) {
      ready.sort(CheetahDetector.FEED_ORDER);
      pending.update(later);
      for (Flow r : ready) {
        f = detector.onRecord(f, r, e -> emit(e, out));
      }
    }
    if (f != null && now >= detector.closeTime(f)) {
      detector.onEnd(f, detector.closeTime(f), e -> emit(e, out));
      flow.clear();
      return;
    }
    if (f != null) {
      flow.update(f);
      ctx.timerService().registerEventTimeTimer(detector.closeTime(f));
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
