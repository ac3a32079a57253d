package net.cheetah.threshold;

/**
 * Table mode: the acceptable background loss l_acpt, the tag tolerances (ε_r, ε_b) within which an
 * existing table is reused, the cheetah RTT whose tables are used (the study's high-RTT case), and
 * the floor R takes when no rate is acceptable.
 */
public record TableParams(
    double lossAcceptable,
    double epsilonRateBps,
    double epsilonBurstiness,
    double rttSeconds,
    double floorBps) {
  public TableParams {
    if (!(lossAcceptable >= 0 && lossAcceptable <= 1)) {
      throw new IllegalArgumentException("l_acpt must be in [0, 1], got " + lossAcceptable);
    }
    if (!(epsilonRateBps >= 0) || !(epsilonBurstiness >= 0)) {
      throw new IllegalArgumentException("tag tolerances must be >= 0");
    }
    if (!(rttSeconds > 0)) {
      throw new IllegalArgumentException("table RTT must be > 0 s, got " + rttSeconds);
    }
    if (!(floorBps >= 0)) {
      throw new IllegalArgumentException("floor must be >= 0 bits/s, got " + floorBps);
    }
  }
}
