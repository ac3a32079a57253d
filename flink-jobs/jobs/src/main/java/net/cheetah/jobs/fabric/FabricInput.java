package net.cheetah.jobs.fabric;

import net.cheetah.fabric.FabricRounds;

/**
 * One input of the fabric decider: a flow sample placed on the fabric ({@code sample} set), or a
 * counter sample of the port {@code linkId} leaves ({@code sample} null).
 */
public record FabricInput(
    FabricRounds.Sample sample,
    String linkId,
    long atMs,
    long octets,
    double speedBps,
    boolean reset) {
  public static FabricInput of(FabricRounds.Sample s) {
    return new FabricInput(s, "", s.atMs(), 0, 0, false);
  }

  public static FabricInput counter(
      String linkId, long atMs, long octets, double speedBps, boolean reset) {
    return new FabricInput(null, linkId, atMs, octets, speedBps, reset);
  }
}
