package net.cheetah.jobs.thresholds;

/**
 * Per-link state of the threshold operator: the version and R last published, the feedback
 * correction (DiscardFeedback's state), and the previous SNMP totals for the next difference.
 */
public record ThresholdState(
    long version,
    double publishedBps,
    double feedbackBaseBps,
    double feedbackOffsetBps,
    double[] feedbackWindow,
    boolean hasPoll,
    long lastPackets,
    long lastDiscards,
    double meanBgBps,
    double burstiness,
    double capacityBps) {

  static ThresholdState initial() {
    return new ThresholdState(0, -1, 0, 0, new double[0], false, 0, 0, 0, 0, 0);
  }

  /** The same state with this version of R published. */
  ThresholdState withPublished(long newVersion, double rateBps) {
    return new ThresholdState(
        newVersion,
        rateBps,
        feedbackBaseBps,
        feedbackOffsetBps,
        feedbackWindow,
        hasPoll,
        lastPackets,
        lastDiscards,
        meanBgBps,
        burstiness,
        capacityBps);
  }

  /** The same state with the feedback loop's new state. */
  ThresholdState withFeedback(double baseBps, double offsetBps, double[] window) {
    return new ThresholdState(
        version,
        publishedBps,
        baseBps,
        offsetBps,
        window,
        hasPoll,
        lastPackets,
        lastDiscards,
        meanBgBps,
        burstiness,
        capacityBps);
  }

  /** The same state with these SNMP totals as the baseline of the next difference. */
  ThresholdState withPoll(long packets, long discards) {
    return new ThresholdState(
        version,
        publishedBps,
        feedbackBaseBps,
        feedbackOffsetBps,
        feedbackWindow,
        true,
        packets,
        discards,
        meanBgBps,
        burstiness,
        capacityBps);
  }

  /** The same state with the newest link statistics. */
  ThresholdState withStats(double bgBps, double b, double cBps) {
    return new ThresholdState(
        version,
        publishedBps,
        feedbackBaseBps,
        feedbackOffsetBps,
        feedbackWindow,
        hasPoll,
        lastPackets,
        lastDiscards,
        bgBps,
        b,
        cBps);
  }
}
