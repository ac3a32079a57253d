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
}
