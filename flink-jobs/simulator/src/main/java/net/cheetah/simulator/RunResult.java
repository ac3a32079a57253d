package net.cheetah.simulator;

/**
 * What one seeded run measured after its warm-up. Loss rates are fractions of packets offered;
 * delays are waiting times in the port's queue (arrival to start of transmission).
 */
public record RunResult(
    long events,
    long bgOfferedPackets,
    long bgDroppedPackets,
    double bgMeanRateBps,
    double bgBurstiness,
    long cheetahDeliveredBytes,
    double cheetahThroughputBps,
    long cheetahDroppedPackets,
    long cheetahCongestionEvents,
    double bgMeanDelaySeconds,
    double bgMaxDelaySeconds,
    double cheetahMeanDelaySeconds,
    double cheetahMaxDelaySeconds) {

  /** Background packets dropped / background packets offered (0 when none were offered). */
  public double bgLossRate() {
    return bgOfferedPackets == 0 ? 0 : (double) bgDroppedPackets / bgOfferedPackets;
  }
}
