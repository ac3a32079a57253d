package net.cheetah.simulator;

/** Burstiness (docs/ARCHITECTURE.md, "Burstiness"): the CoV of background bytes per T1 bin. */
public final class Burstiness {
  private Burstiness() {}

  /** Population standard deviation / mean of the bins; 0 for an empty or all-zero series. */
  public static double coefficientOfVariation(double[] bins) {
    if (bins.length == 0) {
      return 0;
    }
    double sum = 0;
    for (double b : bins) {
      sum += b;
    }
    double mean = sum / bins.length;
    if (mean == 0) {
      return 0;
    }
    double squares = 0;
    for (double b : bins) {
      squares += (b - mean) * (b - mean);
    }
    return Math.sqrt(squares / bins.length) / mean;
  }
}
