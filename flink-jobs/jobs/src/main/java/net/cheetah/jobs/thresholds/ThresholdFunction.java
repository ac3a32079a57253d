package net.cheetah.jobs.thresholds;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import net.cheetah.config.CheetahConfig;
import net.cheetah.core.threshold.ThresholdMode;
import net.cheetah.jobs.codec.Codec;
import net.cheetah.jobs.flink.KeyedBytes;
import net.cheetah.schemas.v1.Threshold;
import net.cheetah.threshold.DiscardFeedback;
import net.cheetah.threshold.FeedbackParams;
import net.cheetah.threshold.SnmpPoll;
import net.cheetah.threshold.ThresholdDecision;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.metrics.Counter;
import org.apache.flink.streaming.api.functions.co.KeyedCoProcessFunction;
import org.apache.flink.util.Collector;

/**
 * Per link: R from each link-statistics window (input 1) by the formula (R = α_bg (C − r̄_bg)) or,
 * in table mode, from the loss table matching the window's tag (BaseRate), the formula while none
 * does; in feedback mode that base corrected by the router's discards (DiscardFeedback, SNMP polls
 * on input 1). Loss tables arrive on input 2 whenever the simulator has built them: they are kept
 * in keyed state (so they survive restarts) and the newest window is decided again with them. A new
 * version is published when R moves by at least the configured fraction, when feedback changes it,
 * or when R switches between table and formula, always with the reason.
 */
public final class ThresholdFunction
    extends KeyedCoProcessFunction<String, ThresholdInput, BuiltTable, KeyedBytes> {
  private final CheetahConfig.Thresholds cfg;
  private transient ValueState<ThresholdState> state;
  private transient ListState<BuiltTable> tables;
  // Table mode: the newest window (decided again when a table arrives), and whether the R last
  // published came from a table.
  private transient ValueState<ThresholdInput> lastWindow;
  private transient ValueState<Boolean> publishedFromTable;
  private transient Counter published;

  public ThresholdFunction(CheetahConfig.Thresholds cfg) {
    this.cfg = cfg;
  }

  @Override
  public void open(OpenContext context) {
    state =
        getRuntimeContext()
            .getState(
                new ValueStateDescriptor<>("threshold", TypeInformation.of(ThresholdState.class)));
    tables =
        getRuntimeContext()
            .getListState(
                new ListStateDescriptor<>("loss-tables", TypeInformation.of(BuiltTable.class)));
    lastWindow =
        getRuntimeContext()
            .getState(
                new ValueStateDescriptor<>(
                    "last-window", TypeInformation.of(ThresholdInput.class)));
    publishedFromTable =
        getRuntimeContext()
            .getState(
                new ValueStateDescriptor<>(
                    "published-from-table", TypeInformation.of(Boolean.class)));
    published = getRuntimeContext().getMetricGroup().counter("thresholdVersions");
  }

  private FeedbackParams feedbackParams() {
    return new FeedbackParams(
        cfg.polls(), cfg.lossAcceptable(), cfg.calmLossRate(), cfg.stepBps(), cfg.floorBps());
  }

  @Override
  public void processElement1(ThresholdInput in, Context ctx, Collector<KeyedBytes> out)
      throws Exception {
    ThresholdState s = Optional.ofNullable(state.value()).orElse(ThresholdState.initial());
    ThresholdState next;
    if (in.snmp()) {
      next = onPoll(in, s, out);
    } else {
      if (cfg.tableBase()) {
        lastWindow.update(in);
      }
      next = onStats(in, s, "", out);
    }
    state.update(next);
  }

  /** A loss table built off the hot path: kept, and the newest window is decided again. */
  @Override
  public void processElement2(BuiltTable table, Context ctx, Collector<KeyedBytes> out)
      throws Exception {
    tables.add(table);
    ThresholdInput last = lastWindow.value();
    ThresholdState s = state.value();
    if (last == null || s == null) {
      return;
    }
    String arrived =
        table.failed()
            ? ""
            : "a loss table arrived (r_bg "
                + BaseRate.mbps(table.tagBgBps())
                + ", built in "
                + String.format(java.util.Locale.ROOT, "%.1f", table.buildMs() / 1000.0)
                + " s); ";
    state.update(onStats(last, s, arrived, out));
  }

  private ThresholdState onStats(
      ThresholdInput in, ThresholdState s, String trigger, Collector<KeyedBytes> out)
      throws Exception {
    List<BuiltTable> known = new ArrayList<>();
    if (cfg.tableBase()) {
      tables.get().forEach(known::add);
    }
    BaseRate.Base base = BaseRate.of(in, known, cfg);
    ThresholdDecision d = base.decision();
    DiscardFeedback fb = feedback(s, d.rateBps());
    fb.rebase(d.rateBps());
    double r = cfg.feedback() ? fb.currentBps() : d.rateBps();
    boolean corrected = cfg.feedback() && r < d.rateBps();
    ThresholdState updated =
        withFeedback(s, fb).withStats(in.meanBgBps(), in.burstiness(), BaseRate.capacity(in, cfg));
    boolean basisChanged =
        cfg.tableBase() && base.fromTable() != Boolean.TRUE.equals(publishedFromTable.value());
    if (s.publishedBps() >= 0
        && !basisChanged
        && Math.abs(r - s.publishedBps()) < cfg.minChange() * Math.max(s.publishedBps(), 1)) {
      return updated;
    }
    String reason =
        corrected
            ? d.reason()
                + "; feedback keeps R "
                + Math.round((d.rateBps() - r) / 1e6)
                + " Mb/s lower"
            : d.reason();
    // The base decision says whether R came from a table or the formula.
    ThresholdMode mode = corrected ? ThresholdMode.FEEDBACK : d.mode();
    if (cfg.tableBase()) {
      publishedFromTable.update(base.fromTable());
    }
    return publish(
        updated,
        in.linkId(),
        in.atMs(),
        r,
        mode,
        d.alphaBg(),
        corrected ? 0 : d.measuredLoss(),
        (base.fromTable() ? trigger : "") + reason,
        out);
  }

  private ThresholdState onPoll(ThresholdInput in, ThresholdState s, Collector<KeyedBytes> out) {
    ThresholdState updated = s.withPoll(in.outPackets(), in.discards());
    // No difference across a new baseline (SNMP counters_reset), before the first poll, or
    // before R exists.
    if (!cfg.feedback() || !s.hasPoll() || in.countersReset() || s.publishedBps() < 0) {
      return updated;
    }
    long packets = Math.max(0, in.outPackets() - s.lastPackets());
    long discards = Math.max(0, in.discards() - s.lastDiscards());
    DiscardFeedback fb = feedback(s, s.feedbackBaseBps());
    Optional<ThresholdDecision> d = fb.onPoll(new SnmpPoll(packets, discards));
    updated = withFeedback(updated, fb);
    if (d.isEmpty()) {
      return updated;
    }
    return publish(
        updated,
        in.linkId(),
        in.atMs(),
        d.get().rateBps(),
        ThresholdMode.FEEDBACK,
        0,
        d.get().measuredLoss(),
        d.get().reason(),
        out);
  }

  private DiscardFeedback feedback(ThresholdState s, double base) {
    return DiscardFeedback.restore(
        feedbackParams(),
        new DiscardFeedback.State(
            s.publishedBps() < 0 ? base : s.feedbackBaseBps(),
            s.feedbackOffsetBps(),
            s.feedbackWindow()));
  }

  private static ThresholdState withFeedback(ThresholdState s, DiscardFeedback fb) {
    DiscardFeedback.State f = fb.state();
    return s.withFeedback(f.baseBps(), f.offsetBps(), f.window());
  }

  private ThresholdState publish(
      ThresholdState s,
      String link,
      long atMs,
      double r,
      ThresholdMode mode,
      double alpha,
      double measuredLoss,
      String reason,
      Collector<KeyedBytes> out) {
    long version = s.version() + 1;
    Threshold t =
        Threshold.newBuilder()
            .setLinkId(link)
            .setVersion(version)
            .setMode(Codec.toProto(mode))
            .setRateBps(r)
            .setComputedMs(atMs)
            .setCapacityBps(s.capacityBps())
            .setMeanBgBps(s.meanBgBps())
            .setBurstiness(s.burstiness())
            .setAlphaBg(alpha)
            .setLossAcceptable(cfg.feedback() || cfg.tableBase() ? cfg.lossAcceptable() : 0)
            .setMeasuredLoss(measuredLoss)
            .setReason(reason)
            .build();
    // Encoded here: protobuf messages are not types Flink serialises without Kryo.
    out.collect(
        new KeyedBytes(link.getBytes(java.nio.charset.StandardCharsets.UTF_8), t.toByteArray()));
    published.inc();
    return s.withPublished(version, r);
  }
}
