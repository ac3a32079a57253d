package net.cheetah.jobs.thresholds;

/**
 * One input of the threshold operator, keyed by link: a link-statistics window (links.stats.v1) or
 * an SNMP poll (snmp.counters.v1). One flat record, so both topics can be unioned without Kryo.
 */
public record ThresholdInput(
    boolean snmp,
    String linkId,
    long atMs,
    double meanBgBps,
    double burstiness,
    double capacityBps,
    long outPackets,
    long discards,
    boolean countersReset) {

  public static ThresholdInput stats(
      String link, long endMs, double meanBgBps, double burstiness, double capacityBps) {
    return new ThresholdInput(false, link, endMs, meanBgBps, burstiness, capacityBps, 0, 0, false);
  }

  public static ThresholdInput poll(
      String link, long polledMs, long outPackets, long discards, boolean countersReset) {
    return new ThresholdInput(true, link, polledMs, 0, 0, 0, outPackets, discards, countersReset);
  }
}
