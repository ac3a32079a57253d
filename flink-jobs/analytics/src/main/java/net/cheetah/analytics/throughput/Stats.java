package net.cheetah.analytics.throughput;

import java.util.Arrays;

/** The few statistics the throughput analyses share. NaN where a statistic is undefined. */
public final class Stats {
  private Stats() {}

  public static double mean(double[] x) {
    if (x.length == 0) {
      return Double.NaN;
    }
    double s = 0;
    for (double v : x) {
      s += v;
    }
    return s / x.length;
  }

  /** Sample standard deviation (n - 1); NaN below two values. */
  public static double sd(double[] x) {
    if (x.length < 2) {
      return Double.NaN;
    }
    double m = mean(x);
    double s = 0;
    for (double v : x) {
      s += (v - m) * (v - m);
    }
    return Math.sqrt(s / (x.length - 1));
  }

  public static double median(double[] x) {
    if (x.length == 0) {
      return Double.NaN;
    }
    double[] s = x.clone();
    Arrays.sort(s);
    int n = s.length;
    return n % 2 == 1 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
  }

  /** Pearson's correlation coefficient; NaN below two pairs or when either side is constant. */
  public static double pearson(double[] x, double[] y) {
    if (x.length != y.length) {
      throw new IllegalArgumentException("pearson: " + x.length + " x but " + y.length + " y");
    }
    if (x.length < 2) {
      return Double.NaN;
    }
    double mx = mean(x);
    double my = mean(y);
    double sxy = 0;
    double sxx = 0;
    double syy = 0;
    for (int i = 0; i < x.length; i++) {
      sxy += (x[i] - mx) * (y[i] - my);
      sxx += (x[i] - mx) * (x[i] - mx);
      syy += (y[i] - my) * (y[i] - my);
    }
    if (sxx == 0 || syy == 0) {
      return Double.NaN;
    }
    return sxy / Math.sqrt(sxx * syy);
  }
}
