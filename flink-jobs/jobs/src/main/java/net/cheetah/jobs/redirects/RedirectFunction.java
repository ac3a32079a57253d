package net.cheetah.jobs.redirects;

import net.cheetah.analytics.redirects.RedirectDecider;
import net.cheetah.core.redirect.Decision;
import net.cheetah.core.redirect.RedirectSettings;
import net.cheetah.core.redirect.Rule;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.metrics.Counter;
import org.apache.flink.streaming.api.TimerService;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.util.Collector;

/**
 * Per device: the desired rule set in checkpointed state (restored after a restart), decisions by
 * {@link RedirectDecider} (per-flow isolation, prefix filters) as cheetah events arrive, and
 * removals, renewals and age-outs when rules come due (processing-time timers, checkpointed with
 * the state: rules live in wall-clock time, as the devices that apply them do).
 */
public final class RedirectFunction extends KeyedProcessFunction<String, DeviceSighting, Decision> {
  private final RedirectSettings settings;
  private transient RedirectDecider decider;
  private transient StateRuleBook book;
  private transient Counter added;
  private transient Counter removed;
  private transient Counter refused;

  public RedirectFunction(RedirectSettings settings) {
    this.settings = settings;
  }

  @Override
  public void open(OpenContext context) {
    decider = new RedirectDecider(settings);
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
                .getMapState(
                    new MapStateDescriptor<>(
                        "filter-last-alpha",
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
    for (Decision d : decider.on(in.sighting(), in.device(), book, now)) {
      emit(d, ctx.timerService(), out);
    }
  }

  @Override
  public void onTimer(long timestamp, OnTimerContext ctx, Collector<Decision> out) {
    for (Decision d : decider.expire(book, timestamp)) {
      emit(d, ctx.timerService(), out); // a renewal adds a rule with its own timers
    }
  }

  private void emit(Decision d, TimerService timers, Collector<Decision> out) {
    if (d.kind() == Decision.Kind.ADD) {
      decider.wakeUps(d.rule()).forEach(timers::registerProcessingTimeTimer);
    }
    switch (d.kind()) {
      case ADD -> added.inc();
      case REMOVE -> removed.inc();
      case REFUSED -> refused.inc();
    }
    out.collect(d);
  }
}
