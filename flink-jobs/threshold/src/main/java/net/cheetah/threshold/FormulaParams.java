package net.cheetah.threshold;

/**
 * Formula mode: R = α_bg (C − r̄_bg) with α_bg = 1 / (1 + k·b) for burstiness b, never below
 * alphaMin. k (burstinessWeight) says how fast α falls as the background gets burstier.
 */
public record FormulaParams(double capacityBps, double burstinessWeight, double alphaMin) {
  public FormulaParams {
    if (!(capacityBps > 0)) {
      throw new IllegalArgumentException("capacity must be > 0 bits/s, got " + capacityBps);
    }
    if (!(burstinessWeight >= 0)) {
      throw new IllegalArgumentException(
          "burstiness weight k must be >= 0, got " + burstinessWeight);
    }
    if (!(alphaMin > 0 && alphaMin <= 1)) {
      throw new IllegalArgumentException("alphaMin must be in (0, 1], got " + alphaMin);
    }
  }
}
