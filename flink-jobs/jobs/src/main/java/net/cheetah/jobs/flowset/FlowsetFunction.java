package net.cheetah.jobs.flowset;

import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import net.cheetah.analytics.FlowsetGrouper;
import net.cheetah.config.CheetahConfig.Detection;
import net.cheetah.core.flow.CheetahEvent;
import net.cheetah.core.flow.Flowset;
import net.cheetah.core.flow.FlowsetMember;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.metrics.Counter;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.util.Collector;
import org.apache.flink.util.OutputTag;

/** Thin Flink shell around {@link FlowsetGrouper}; late members go to {@link #LATE}. */
public final class FlowsetFunction extends KeyedProcessFunction<PairKey, CheetahEvent, Flowset> {
  public static final OutputTag<CheetahEvent> LATE = new OutputTag<>("late-flowset-members") {};

  private final Detection detection;
  private transient FlowsetGrouper grouper;
  private transient MapState<String, FlowsetMember> open;
  private transient ValueState<Long> closedUpToStart;
  private transient Counter lateMembers;
  private transient Counter flowsetsClosed;

  public FlowsetFunction(Detection detection) {
    this.detection = detection;
  }

  @Override
  public void open(OpenContext ctx) {
    grouper = new FlowsetGrouper(detection.tauMs(), detection.flowsetLatenessMs());
    open =
        getRuntimeContext()
            .getMapState(new MapStateDescriptor<>("open", String.class, FlowsetMember.class));
    closedUpToStart =
        getRuntimeContext().getState(new ValueStateDescriptor<>("closedUpToStart", Long.class));
    lateMembers = getRuntimeContext().getMetricGroup().counter("lateFlowsetMembers");
    flowsetsClosed = getRuntimeContext().getMetricGroup().counter("flowsetsClosed");
  }

  @Override
  public void processElement(CheetahEvent e, Context ctx, Collector<Flowset> out) throws Exception {
    FlowsetMember m = FlowsetMember.of(e);
    FlowsetMember known = open.get(e.flowId());
    if (known == null) {
      Long closed = closedUpToStart.value();
      if (grouper.isLate(
          m.startMs(), closed == null ? OptionalLong.empty() : OptionalLong.of(closed))) {
        lateMembers.inc();
        ctx.output(LATE, e);
        return;
      }
    } else if (known.ended()) {
      return; // duplicate delivery of an END
    }
    open.put(e.flowId(), m);
    // One timer per group (Flink keeps one per timestamp); an END re-arms a group already due.
    for (long t : grouper.closeTimes(values())) {
      ctx.timerService().registerEventTimeTimer(t);
    }
  }

  @Override
  public void onTimer(long t, OnTimerContext ctx, Collector<Flowset> out) throws Exception {
    PairKey k = ctx.getCurrentKey();
    for (List<FlowsetMember> g : grouper.closable(values(), t)) {
      out.collect(FlowsetGrouper.toFlowset(k.src(), k.dst(), g, t));
      flowsetsClosed.inc();
      long lastStart = g.get(g.size() - 1).startMs();
      Long closed = closedUpToStart.value();
      closedUpToStart.update(closed == null ? lastStart : Math.max(closed, lastStart));
      for (FlowsetMember m : g) {
        open.remove(m.flowId());
      }
    }
  }

  private List<FlowsetMember> values() throws Exception {
    List<FlowsetMember> l = new ArrayList<>();
    open.values().forEach(l::add);
    return l;
  }
}
