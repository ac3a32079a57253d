package net.cheetah.jobs.thresholds;

import java.util.Optional;
import net.cheetah.config.CheetahConfig;
import net.cheetah.jobs.flink.KeyedBytes;
import net.cheetah.schemas.v1.Threshold;
import net.cheetah.schemas.v1.ThresholdMode;
import net.cheetah.threshold.DiscardFeedback;
import net.cheetah.threshold.FeedbackParams;
import net.cheetah.threshold.FormulaParams;
import net.cheetah.threshold.FormulaThreshold;
import net.cheetah.threshold.SnmpPoll;
import net.cheetah.threshold.ThresholdDecision;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.metrics.Counter;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.util.Collector;

/**
 * Per link: R from each link-statistics window by the formula (R = α_bg (C − r̄_bg)); in feedback
 * mode corrected by the router's discards (DiscardFeedback). A new version is published when R
 * moves by at least the configured fraction, or when feedback changes it, always with the reason.
 */
public final class ThresholdFunction
    extends KeyedProcessFunction<String, ThresholdInput, KeyedBytes> {
  private final CheetahConfig.Thresholds cfg;
  private transient ValueState<ThresholdState> state;
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
    published = getRuntimeContext().getMetricGroup().counter("thresholdVersions");
  }

  private FeedbackParams feedbackParams() {
    return new FeedbackParams(
        cfg.polls(), cfg.lossAcceptable(), cfg.calmLossRate(), cfg.stepBps(), cfg.floorBps());
  }

  @Override
  public void processElement(ThresholdInput in, Context ctx, Collector<KeyedBytes> out)
      throws Exception {
    ThresholdState s = Optional.ofNullable(state.value()).orElse(ThresholdState.initial());
    ThresholdState next = in.snmp() ? onPoll(in, s, out) : onStats(in, s, out);
    state.update(next);
  }

  private ThresholdState onStats(ThresholdInput in, ThresholdState s, Collector<KeyedBytes> out) {
    double capacity = in.capacityBps() > 0 ? in.capacityBps() : cfg.capacityBps();
    ThresholdDecision formula =
        FormulaThreshold.decide(
            in.meanBgBps(),
            in.burstiness(),
            new FormulaParams(capacity, cfg.burstinessWeight(), cfg.alphaMin()));
    DiscardFeedback fb = feedback(s, formula.rateBps());
    fb.rebase(formula.rateBps());
    double r = cfg.feedback() ? fb.currentBps() : formula.rateBps();
    boolean corrected = cfg.feedback() && r < formula.rateBps();
    ThresholdState updated =
        withStats(withFeedback(s, fb), in.meanBgBps(), in.burstiness(), capacity);
    if (s.publishedBps() >= 0
        && Math.abs(r - s.publishedBps()) < cfg.minChange() * Math.max(s.publishedBps(), 1)) {
      return updated;
    }
    String reason =
        corrected
            ? formula.reason()
                + "; feedback keeps R "
                + Math.round((formula.rateBps() - r) / 1e6)
                + " Mb/s lower"
            : formula.reason();
    return publish(
        updated,
        in.linkId(),
        in.atMs(),
        r,
        corrected ? ThresholdMode.THRESHOLD_MODE_FEEDBACK : ThresholdMode.THRESHOLD_MODE_FORMULA,
        formula.alphaBg(),
        0,
        reason,
        out);
  }

  private ThresholdState onPoll(ThresholdInput in, ThresholdState s, Collector<KeyedBytes> out) {
    ThresholdState updated =
        new ThresholdState(
            s.version(),
            s.publishedBps(),
            s.feedbackBaseBps(),
            s.feedbackOffsetBps(),
            s.feedbackWindow(),
            true,
            in.outPackets(),
            in.discards(),
            s.meanBgBps(),
            s.burstiness(),
            s.capacityBps());
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
        ThresholdMode.THRESHOLD_MODE_FEEDBACK,
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
    return new ThresholdState(
        s.version(),
        s.publishedBps(),
        f.baseBps(),
        f.offsetBps(),
        f.window(),
        s.hasPoll(),
        s.lastPackets(),
        s.lastDiscards(),
        s.meanBgBps(),
        s.burstiness(),
        s.capacityBps());
  }

  private static ThresholdState withStats(ThresholdState s, double bg, double b, double c) {
    return new ThresholdState(
        s.version(),
        s.publishedBps(),
        s.feedbackBaseBps(),
        s.feedbackOffsetBps(),
        s.feedbackWindow(),
        s.hasPoll(),
        s.lastPackets(),
        s.lastDiscards(),
        bg,
        b,
        c);
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
            .setMode(mode)
            .setRateBps(r)
            .setComputedMs(atMs)
            .setCapacityBps(s.capacityBps())
            .setMeanBgBps(s.meanBgBps())
            .setBurstiness(s.burstiness())
            .setAlphaBg(alpha)
            .setLossAcceptable(cfg.feedback() ? cfg.lossAcceptable() : 0)
            .setMeasuredLoss(measuredLoss)
            .setReason(reason)
            .build();
    // Encoded here: protobuf messages are not types Flink serialises without Kryo.
    out.collect(
        new KeyedBytes(link.getBytes(java.nio.charset.StandardCharsets.UTF_8), t.toByteArray()));
    published.inc();
    return new ThresholdState(
        version,
        r,
        s.feedbackBaseBps(),
        s.feedbackOffsetBps(),
        s.feedbackWindow(),
        s.hasPoll(),
        s.lastPackets(),
        s.lastDiscards(),
        s.meanBgBps(),
        s.burstiness(),
        s.capacityBps());
  }
}
