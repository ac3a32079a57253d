package net.cheetah.jobs.thresholds;

import net.cheetah.config.CheetahConfig;
import net.cheetah.threshold.BackgroundTag;
import net.cheetah.threshold.HourOfDayProfile;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.metrics.Counter;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.util.Collector;
import org.apache.flink.util.OutputTag;

/**
 * Table mode, before R is chosen, per link: the tag (r̄_bg, b) a statistics window stands for, and
 * a table request when no tag requested so far is within (ε_r, ε_b) of it on the same capacity. The
 * tag is the hour-of-day prediction (HourOfDayProfile: the mean of the same hour on the previous
 * {@code thresholds.predict-days} days, from the hourly windows seen) when one exists, else the
 * window's own values. Requests leave on {@link #REQUESTS}; built tables reach the threshold
 * operator directly, so nothing here waits for the simulator. In the other modes windows pass
 * through untouched.
 */
public final class TableTagFunction
    extends KeyedProcessFunction<String, ThresholdInput, ThresholdInput> {
  public static final OutputTag<TableRequest> REQUESTS =
      new OutputTag<>("loss-table-requests", TypeInformation.of(TableRequest.class));
  private static final long HOUR_MS = 3_600_000L;

  private final CheetahConfig.Thresholds cfg;
  // Epoch hour (epoch day * 24 + hour of day, UTC) -> the tag of the window that started then.
  private transient MapState<Long, BackgroundTag> hours;
  private transient ListState<TableRequest> requested;
  private transient Counter requests;

  public TableTagFunction(CheetahConfig.Thresholds cfg) {
    this.cfg = cfg;
  }

  @Override
  public void open(OpenContext context) {
    hours =
        getRuntimeContext()
            .getMapState(
                new MapStateDescriptor<>(
                    "hour-of-day",
                    TypeInformation.of(Long.class),
                    TypeInformation.of(BackgroundTag.class)));
    requested =
        getRuntimeContext()
            .getListState(
                new ListStateDescriptor<>(
                    "requested-tables", TypeInformation.of(TableRequest.class)));
    requests = getRuntimeContext().getMetricGroup().counter("lossTablesRequested");
  }

  @Override
  public void processElement(ThresholdInput in, Context ctx, Collector<ThresholdInput> out)
      throws Exception {
    if (!cfg.tableBase() || in.snmp()) {
      out.collect(in);
      return;
    }
    ThresholdInput tagged = cfg.table().predictDays() > 0 ? predicted(in) : in;
    requestIfNew(tagged, ctx);
    out.collect(tagged);
  }

  /** Records an hourly window, then predicts the hour R is for: the one the window ends in. */
  private ThresholdInput predicted(ThresholdInput in) throws Exception {
    int days = cfg.table().predictDays();
    long hour = Math.floorDiv(in.atMs(), HOUR_MS);
    long day = Math.floorDiv(hour, 24);
    int hourOfDay = (int) Math.floorMod(hour, 24);
    if (!in.sliding()) {
      hours.put(Math.floorDiv(in.windowStartMs(), HOUR_MS), in.observed());
      forgetBefore((day - days) * 24);
    }
    HourOfDayProfile profile = new HourOfDayProfile(days);
    int seen = 0;
    for (long d = day - days; d < day; d++) {
      BackgroundTag t = hours.get(d * 24 + hourOfDay);
      if (t != null) {
        profile.record(d, hourOfDay, t);
        seen++;
      }
    }
    int n = seen;
    return profile.predict(day, hourOfDay).map(t -> in.withPredictedTag(t, n)).orElse(in);
  }

  private void forgetBefore(long epochHour) throws Exception {
    java.util.List<Long> old = new java.util.ArrayList<>();
    for (Long h : hours.keys()) {
      if (h < epochHour) {
        old.add(h);
      }
    }
    for (Long h : old) {
      hours.remove(h);
    }
  }

  private void requestIfNew(ThresholdInput in, Context ctx) throws Exception {
    BackgroundTag tag = in.tag();
    // An idle background has no table (the simulator needs bursts): the formula covers it.
    if (!(tag.meanBgBps() > 0)) {
      return;
    }
    double capacity = BaseRate.capacity(in, cfg);
    CheetahConfig.Table t = cfg.table();
    for (TableRequest r : requested.get()) {
      if (r.capacityBps() == capacity
          && r.tag().isWithin(tag, t.epsilonRateBps(), t.epsilonBurstiness())) {
        return;
      }
    }
    TableRequest r =
        new TableRequest(in.linkId(), tag.meanBgBps(), tag.burstiness(), capacity, in.atMs());
    requested.add(r);
    requests.inc();
    ctx.output(REQUESTS, r);
  }
}
