package net.cheetah.analytics.links;

/**
 * Statistics of one link over one window of T1 bins (docs/ARCHITECTURE.md, "Burstiness"; background
 * per bin as {@link net.cheetah.core.link.BinBackground} defines it).
 *
 * @param startMs window start (inclusive)
 * @param endMs window end (exclusive)
 * @param bins bins present in the window (the probe sends one per T1, zero-byte ones included)
 * @param meanBgBps mean background rate over the bins present, bit/s
 * @param burstiness b, as {@link net.cheetah.core.link.Burstiness} computes it
 * @param utilization mean link rate (all bytes) / capacity
 * @param capacityBps the capacity used
 * @param sliding true for the sliding updates, false for the aligned T2 windows
 */
public record LinkWindow(
    String linkId,
    long startMs,
    long endMs,
    long bins,
    double meanBgBps,
    double burstiness,
    double utilization,
    double capacityBps,
    boolean sliding) {

  /** Hour of day (UTC) of the window start: the key of the hour-of-day profile. */
  public int hourOfDay() {
    return (int) Math.floorMod(startMs / 3_600_000L, 24L);
  }
}
