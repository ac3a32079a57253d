package net.cheetah.analytics.throughput;

import java.time.DayOfWeek;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;

/**
 * The diurnal fit f(x) = |a|·sin(x + b) + c of throughput against the time of day x (radians, UTC;
 * docs/ARCHITECTURE.md, "Transfer throughput"), by least squares (Levenberg-Marquardt) from c =
 * mean, a = standard deviation, b = π/2. The fit runs on the smooth a·sin(x + b) + c (|a| would
 * leave a flat valley where the start's phase is more than π/2 from the data's: there a = 0 and b
 * has no gradient) and reports |a| and b + π when a < 0, the same curve. The parameters' errors are
 * the square roots of the diagonal of s²·(JᵀJ)⁻¹ at the fit (s² = residual sum of squares / (n -
 * 3)); a fit whose δb is below the limit marks the series diurnal.
 */
public final class DiurnalFit {
  private static final long DAY_MS = 86_400_000L;
  private static final int MAX_ITERATIONS = 500;

  private final double maxDb;

  public DiurnalFit(double maxDb) {
    this.maxDb = maxDb;
  }

  /**
   * A fit over {@code n} points: a ≥ 0, b in [0, 2π), their errors (NaN when the fit is
   * undetermined: fewer than 4 points, or no variation to fit), and whether δb is under the limit.
   */
  public record Fit(
      int n, double a, double b, double c, double da, double db, double dc, boolean diurnal) {}

  /** The time of day of {@code ms} in radians (0 at 00:00 UTC, 2π at the next midnight). */
  public static double timeOfDay(long ms) {
    return Math.floorMod(ms, DAY_MS) * 2 * Math.PI / DAY_MS;
  }

  /** Whether {@code ms} falls on a Saturday or Sunday (UTC). */
  public static boolean weekend(long ms) {
    DayOfWeek d = Instant.ofEpochMilli(ms).atZone(ZoneOffset.UTC).getDayOfWeek();
    return d == DayOfWeek.SATURDAY || d == DayOfWeek.SUNDAY;
  }

  /** Fits of the weekday and the weekend observations of one series, apart. */
  public record WeekFits(Fit weekday, Fit weekend) {}

  public WeekFits fitWeek(List<Forecasts.Observation> obs) {
    List<double[]> weekday = new ArrayList<>();
    List<double[]> weekend = new ArrayList<>();
    for (Forecasts.Observation o : obs) {
      (weekend(o.ms()) ? weekend : weekday).add(new double[] {timeOfDay(o.ms()), o.value()});
    }
    return new WeekFits(fit(weekday), fit(weekend));
  }

  /** Fits points {x (radians), y}. */
  public Fit fit(List<double[]> points) {
    int n = points.size();
    double[] x = new double[n];
    double[] y = new double[n];
    for (int i = 0; i < n; i++) {
      x[i] = points.get(i)[0];
      y[i] = points.get(i)[1];
    }
    double c0 = Stats.mean(y);
    if (n < 4) {
      return new Fit(n, Double.NaN, Double.NaN, c0, Double.NaN, Double.NaN, Double.NaN, false);
    }
    double[] p = {Stats.sd(y), Math.PI / 2, c0};
    double ssr = ssr(p, x, y);
    double lambda = 1e-3;
    for (int it = 0; it < MAX_ITERATIONS && lambda < 1e12; it++) {
      double[][] a = normal(p, x);
      double[] g = gradient(p, x, y);
      double[][] damped = new double[3][3];
      for (int i = 0; i < 3; i++) {
        damped[i] = a[i].clone();
        damped[i][i] += lambda * Math.max(a[i][i], 1e-12);
      }
      double[][] inv = invert(damped);
      if (inv == null) {
        lambda *= 10;
        continue;
      }
      double[] next = new double[3];
      for (int i = 0; i < 3; i++) {
        next[i] = p[i] + inv[i][0] * g[0] + inv[i][1] * g[1] + inv[i][2] * g[2];
      }
      double nextSsr = ssr(next, x, y);
      if (nextSsr <= ssr) {
        // Converged when a step no longer moves the parameters (a tiny decrease under heavy
        // damping is not convergence: the damping falls again on the next steps).
        boolean still = true;
        for (int i = 0; i < 3; i++) {
          still &= Math.abs(next[i] - p[i]) <= 1e-12 * Math.max(Math.abs(p[i]), 1e-12);
        }
        p = next;
        ssr = nextSsr;
        lambda = Math.max(lambda / 10, 1e-12);
        if (still) {
          break;
        }
      } else {
        lambda *= 10;
      }
    }
    double s2 = ssr / (n - 3);
    double[][] cov = invert(normal(p, x));
    double da = Double.NaN;
    double db = Double.NaN;
    double dc = Double.NaN;
    if (cov != null) {
      da = Math.sqrt(s2 * cov[0][0]);
      db = Math.sqrt(s2 * cov[1][1]);
      dc = Math.sqrt(s2 * cov[2][2]);
    }
    // a·sin(x + b) = |a|·sin(x + b + π) for a < 0.
    double b = (p[0] < 0 ? p[1] + Math.PI : p[1]) % (2 * Math.PI);
    if (b < 0) {
      b += 2 * Math.PI;
    }
    return new Fit(n, Math.abs(p[0]), b, p[2], da, db, dc, Double.isFinite(db) && db < maxDb);
  }

  static double model(double[] p, double x) {
    return p[0] * Math.sin(x + p[1]) + p[2];
  }

  private static double ssr(double[] p, double[] x, double[] y) {
    double s = 0;
    for (int i = 0; i < x.length; i++) {
      double r = y[i] - model(p, x[i]);
      s += r * r;
    }
    return s;
  }

  /** Row i of the Jacobian of f at x: df/da, df/db, df/dc. */
  private static double[] jacobian(double[] p, double x) {
    return new double[] {Math.sin(x + p[1]), p[0] * Math.cos(x + p[1]), 1};
  }

  private static double[][] normal(double[] p, double[] x) {
    double[][] a = new double[3][3];
    for (double xi : x) {
      double[] j = jacobian(p, xi);
      for (int r = 0; r < 3; r++) {
        for (int c = 0; c < 3; c++) {
          a[r][c] += j[r] * j[c];
        }
      }
    }
    return a;
  }

  private static double[] gradient(double[] p, double[] x, double[] y) {
    double[] g = new double[3];
    for (int i = 0; i < x.length; i++) {
      double[] j = jacobian(p, x[i]);
      double r = y[i] - model(p, x[i]);
      for (int k = 0; k < 3; k++) {
        g[k] += j[k] * r;
      }
    }
    return g;
  }

  /**
   * The inverse of a symmetric 3×3 matrix by cofactors, or null when it is (numerically) singular.
   */
  static double[][] invert(double[][] m) {
    double c00 = m[1][1] * m[2][2] - m[1][2] * m[2][1];
    double c01 = m[1][2] * m[2][0] - m[1][0] * m[2][2];
    double c02 = m[1][0] * m[2][1] - m[1][1] * m[2][0];
    double det = m[0][0] * c00 + m[0][1] * c01 + m[0][2] * c02;
    // For the symmetric positive semi-definite matrices inverted here det <= m00·m11·m22
    // (Hadamard), so this ratio measures near-singularity whatever the parameters' scales.
    double diag = Math.abs(m[0][0] * m[1][1] * m[2][2]);
    if (!Double.isFinite(det) || diag == 0 || Math.abs(det) <= 1e-12 * diag) {
      return null;
    }
    double[][] inv = new double[3][3];
    inv[0][0] = c00 / det;
    inv[1][0] = c01 / det;
    inv[2][0] = c02 / det;
    inv[0][1] = (m[0][2] * m[2][1] - m[0][1] * m[2][2]) / det;
    inv[1][1] = (m[0][0] * m[2][2] - m[0][2] * m[2][0]) / det;
    inv[2][1] = (m[0][1] * m[2][0] - m[0][0] * m[2][1]) / det;
    inv[0][2] = (m[0][1] * m[1][2] - m[0][2] * m[1][1]) / det;
    inv[1][2] = (m[0][2] * m[1][0] - m[0][0] * m[1][2]) / det;
    inv[2][2] = (m[0][0] * m[1][1] - m[0][1] * m[1][0]) / det;
    return inv;
  }
}
