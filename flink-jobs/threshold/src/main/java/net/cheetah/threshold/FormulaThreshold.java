package net.cheetah.threshold;

import net.cheetah.core.threshold.ThresholdMode;

/**
 * Formula mode of the rate threshold (docs/ARCHITECTURE.md, "Rate threshold R"): R = α_bg (C −
 * r̄_bg).
 */
public final class FormulaThreshold {
  private FormulaThreshold() {}

  /** α_bg in (0, 1], falling as burstiness grows. */
  public static double alpha(double burstiness, FormulaParams p) {
    if (!(burstiness >= 0)) {
      throw new IllegalArgumentException("burstiness must be >= 0, got " + burstiness);
    }
    return Math.max(p.alphaMin(), 1 / (1 + p.burstinessWeight() * burstiness));
  }

  public static ThresholdDecision decide(double meanBgBps, double burstiness, FormulaParams p) {
    if (!(meanBgBps >= 0)) {
      throw new IllegalArgumentException("mean background rate must be >= 0, got " + meanBgBps);
    }
    double alpha = alpha(burstiness, p);
    double headroom = Math.max(0, p.capacityBps() - meanBgBps);
    double r = alpha * headroom;
    String reason =
        headroom == 0
            ? "background "
                + Rates.mbps(meanBgBps)
                + " fills the "
                + Rates.mbps(p.capacityBps())
                + " link: no headroom, R = 0"
            : "R = α_bg "
                + Rates.fraction(alpha)
                + " (burstiness "
                + Rates.fraction(burstiness)
                + ") × headroom "
                + Rates.mbps(headroom)
                + " (C "
                + Rates.mbps(p.capacityBps())
                + " − background "
                + Rates.mbps(meanBgBps)
                + ") = "
                + Rates.mbps(r);
    return new ThresholdDecision(r, ThresholdMode.FORMULA, alpha, 0, 0, reason);
  }
}
