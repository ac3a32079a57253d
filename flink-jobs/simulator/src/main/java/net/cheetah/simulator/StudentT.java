package net.cheetah.simulator;

/** Two-sided 95 % quantiles of Student's t distribution. */
public final class StudentT {
  // t(0.975, ν) for ν = 1..30, the standard table values.
  private static final double[] T975 = {
    12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160,
    2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056,
    2.052, 2.048, 2.045, 2.042
  };
  private static final double Z975 = 1.959963984540054;

  private StudentT() {}

  /** t such that P(|T| ≤ t) = 0.95 with ν degrees of freedom (ν ≥ 1). */
  public static double quantile975(int degreesOfFreedom) {
    if (degreesOfFreedom < 1) {
      throw new IllegalArgumentException(
          "Student t needs at least 1 degree of freedom (2 runs), got " + degreesOfFreedom);
    }
    if (degreesOfFreedom <= T975.length) {
      return T975[degreesOfFreedom - 1];
    }
    // Cornish-Fisher expansion around the normal quantile; below 1e-4 off for ν > 30.
    double z = Z975;
    double n = degreesOfFreedom;
    double z3 = z * z * z;
    double z5 = z3 * z * z;
    double z7 = z5 * z * z;
    return z
        + (z3 + z) / (4 * n)
        + (5 * z5 + 16 * z3 + 3 * z) / (96 * n * n)
        + (3 * z7 + 19 * z5 + 17 * z3 - 15 * z) / (384 * n * n * n);
  }
}
