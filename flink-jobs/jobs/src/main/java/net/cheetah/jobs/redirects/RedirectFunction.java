package net.cheetah.jobs.redirects;

import net.cheetah.analytics.redirects.Decision;
import net.cheetah.analytics.redirects.FlowIsolation;
import net.cheetah.analytics.redirects.RedirectSettings;
import net.cheetah.analytics.redirects.Rule;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.metrics.Counter;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.util.Collector;

/**
 * Per device: the desired rule set in checkpointed state (restored after a restart), decisions by
 * {@link FlowIsolation} as cheetah events arrive, and removals when rules expire (processing-time
 * timers: rules live in wall-clock time, as the devices that apply them do).
 */
public final class RedirectFunction extends KeyedProcessFunction<String, DeviceSighting, Decision> {
  private final RedirectSettings settings;
  private transient FlowIsolation isolation;
  private transient StateRuleBook book;
  private transient Counter added;
  private transient Counter removed;
  private transient Counter refused;

  public RedirectFunction(RedirectSettings settings) {
    this.settings = settings;
  }

  @Override
  public void open(OpenContext context) {
    isolation = new FlowIsolation(settings);
    book =
        new StateRuleBook(
            getRuntimeContext()
                .getMapState(
                    new MapStateDescriptor<>(
                        "active-rules",
                        TypeInformation.of(String.class),
                        TypeInformation.of(Rule.class))),
            getRuntimeContext()
                .getMapState(
                    new MapStateDescriptor<>(
                        "ended-cheetahs",
                        TypeInformation.of(String.class),
                        TypeInformation.of(Long.class))),
            getRuntimeContext()
                .getState(
                    new ValueStateDescriptor<>("rule-tokens", TypeInformation.of(double[].class))));
    added = getRuntimeContext().getMetricGroup().counter("rulesAdded");
    removed = getRuntimeContext().getMetricGroup().counter("rulesRemoved");
    refused = getRuntimeContext().getMetricGroup().counter("rulesRefused");
  }

  @Override
  public void processElement(DeviceSighting in, Context ctx, Collector<Decision> out) {
    long now = ctx.timerService().currentProcessingTime();
    for (Decision d : isolation.on(in.sighting(), in.device(), book, now)) {
      if (d.kind() == Decision.Kind.ADD) {
        ctx.timerService().registerProcessingTimeTimer(d.rule().expiresMs());
      }
      emit(d, out);
    }
  }

  @Override
  public void onTimer(long timestamp, OnTimerContext ctx, Collector<Decision> out) {
    for (Decision d : isolation.expire(book, timestamp)) {
      emit(d, out);
    }
  }

  private void emit(Decision d, Collector<Decision> out) {
    switch (d.kind()) {
      case ADD -> added.inc();
      case REMOVE -> removed.inc();
      case REFUSED -> refused.inc();
    }
    out.collect(d);
  }
}
