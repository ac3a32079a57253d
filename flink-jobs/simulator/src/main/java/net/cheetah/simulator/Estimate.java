package net.cheetah.simulator;

/** A mean over n runs with the half-width of its 95 % Student-t confidence interval. */
public record Estimate(double mean, double halfWidth95, int n) {

  /** Mean and 95 % CI of the values; one value gives a zero-width interval. */
  public static Estimate of(double[] values) {
    int n = values.length;
    if (n == 0) {
      throw new IllegalArgumentException("an estimate needs at least one run");
    }
    double sum = 0;
    for (double v : values) {
      sum += v;
    }
    double mean = sum / n;
    if (n == 1) {
      return new Estimate(mean, 0, 1);
    }
    double squares = 0;
    for (double v : values) {
      squares += (v - mean) * (v - mean);
    }
    double sd = Math.sqrt(squares / (n - 1));
    return new Estimate(mean, StudentT.quantile975(n - 1) * sd / Math.sqrt(n), n);
  }

  public double low() {
    return mean - halfWidth95;
  }

  public double high() {
    return mean + halfWidth95;
  }
}
