package net.cheetah.jobs.thresholds;

import net.cheetah.threshold.BackgroundTag;

/**
 * One input of the threshold operator, keyed by link: a link-statistics window (links.stats.v1) or
 * an SNMP poll (snmp.counters.v1). One flat record, so both topics can be unioned without Kryo.
 *
 * <p>A window also carries the (r̄_bg, b) tag table mode uses for it ({@code tag*}): the window's
 * own values, or, when {@code tagDays} > 0, the hour-of-day prediction from that many earlier days
 * (set by {@link TableTagFunction}).
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
    boolean countersReset,
    long windowStartMs,
    boolean sliding,
    double tagBgBps,
    double tagBurstiness,
    int tagDays) {

  /** A window [startMs, endMs); its tag is its own values until a prediction replaces it. */
  public static ThresholdInput stats(
      String link,
      long startMs,
      long endMs,
      double meanBgBps,
      double burstiness,
      double capacityBps,
      boolean sliding) {
    return new ThresholdInput(
        false,
        link,
        endMs,
        meanBgBps,
        burstiness,
        capacityBps,
        0,
        0,
        false,
        startMs,
        sliding,
        meanBgBps,
        burstiness,
        0);
  }

  /** A window ending at {@code endMs} whose start does not matter (not used for prediction). */
  public static ThresholdInput stats(
      String link, long endMs, double meanBgBps, double burstiness, double capacityBps) {
    return stats(link, endMs, endMs, meanBgBps, burstiness, capacityBps, true);
  }

  public static ThresholdInput poll(
      String link, long polledMs, long outPackets, long discards, boolean countersReset) {
    return new ThresholdInput(
        true, link, polledMs, 0, 0, 0, outPackets, discards, countersReset, 0, false, 0, 0, 0);
  }

  /** The window's observed (r̄_bg, b). */
  public BackgroundTag observed() {
    return new BackgroundTag(meanBgBps, burstiness);
  }

  /** The tag table mode looks up: predicted when {@code tagDays} > 0, else observed. */
  public BackgroundTag tag() {
    return new BackgroundTag(tagBgBps, tagBurstiness);
  }

  public ThresholdInput withPredictedTag(BackgroundTag predicted, int days) {
    return new ThresholdInput(
        snmp,
        linkId,
        atMs,
        meanBgBps,
        burstiness,
        capacityBps,
        outPackets,
        discards,
        countersReset,
        windowStartMs,
        sliding,
        predicted.meanBgBps(),
        predicted.burstiness(),
        days);
  }
}
