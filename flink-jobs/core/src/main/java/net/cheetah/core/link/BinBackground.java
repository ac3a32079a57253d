package net.cheetah.core.link;

/**
 * Background bytes of one T1 bin (docs/ARCHITECTURE.md, "Burstiness"): the bin's bytes minus the
 * larger of the probe's cheetah bytes in the bin and the bytes of the NetFlow cheetahs on the link
 * spread over their span at their mean rate, never below 0. The larger, not the sum: the probe and
 * NetFlow may see the same flow.
 */
public final class BinBackground {
  private BinBackground() {}

  /**
   * @param binBytes every byte of the bin (probe.bins.v1 bytes)
   * @param probeCheetahBytes the probe's cheetah bytes in the bin (probe.bins.v1 cheetah_bytes)
   * @param netflowCheetahBytes NetFlow cheetahs' bytes in the bin at their mean rate (0 if none)
   */
  public static double bytes(
      double binBytes, double probeCheetahBytes, double netflowCheetahBytes) {
    return Math.max(0, binBytes - Math.max(probeCheetahBytes, netflowCheetahBytes));
  }
}
