package net.cheetah.analytics.throughput;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Sudden step changes in a throughput series (docs/ARCHITECTURE.md, "Transfer throughput"): a
 * two-sample t test between the {@code window} observations before and the {@code window} after
 * every point. A point is a candidate when the pooled-variance t statistic of the two windows'
 * means reaches {@code minT} and the mean moves by at least {@code minChange} of the earlier mean;
 * the strongest candidates are kept, each suppressing candidates closer than {@code window} to it.
 * Adjacent windows (rather than the whole series on each side) keep one step from hiding another
 * and slow drifts (diurnal variation) from looking like steps.
 */
public final class StepDetector {
  private final int window;
  private final double minT;
  private final double minChange;

  public StepDetector(int window, double minT, double minChange) {
    this.window = window;
    this.minT = minT;
    this.minChange = minChange;
  }

  /**
   * A step between observation {@code index - 1} (at {@code lastBeforeMs}) and {@code index} (at
   * {@code ms}, the first after it): the means of the windows before and after, and the t statistic
   * (infinite when both windows are constant).
   */
  public record Step(
      int index, long lastBeforeMs, long ms, double before, double after, double t) {}

  /** The steps of {@code series} (in time order), in time order. */
  public List<Step> find(List<Forecasts.Observation> series) {
    double[] v = series.stream().mapToDouble(Forecasts.Observation::value).toArray();
    List<Step> candidates = new ArrayList<>();
    for (int k = window; k + window <= v.length; k++) {
      double before = mean(v, k - window, k);
      double after = mean(v, k, k + window);
      double change =
          before != 0
              ? Math.abs(after - before) / Math.abs(before)
              : after != 0 ? Double.POSITIVE_INFINITY : 0;
      double t = t(v, k - window, k, k + window);
      if (t >= minT && change >= minChange) {
        candidates.add(new Step(k, series.get(k - 1).ms(), series.get(k).ms(), before, after, t));
      }
    }
    candidates.sort(
        Comparator.comparingDouble(Step::t)
            .thenComparingDouble(s -> Math.abs(s.after() - s.before()))
            .reversed());
    List<Step> kept = new ArrayList<>();
    for (Step c : candidates) {
      if (kept.stream().allMatch(k -> Math.abs(k.index() - c.index()) >= window)) {
        kept.add(c);
      }
    }
    kept.sort(Comparator.comparingInt(Step::index));
    return kept;
  }

  /** |mean(right) - mean(left)| / (pooled sd · sqrt(1/nL + 1/nR)) of [lo, k) against [k, hi). */
  static double t(double[] v, int lo, int k, int hi) {
    int nl = k - lo;
    int nr = hi - k;
    double ml = mean(v, lo, k);
    double mr = mean(v, k, hi);
    double ss = 0;
    for (int i = lo; i < k; i++) {
      ss += (v[i] - ml) * (v[i] - ml);
    }
    for (int i = k; i < hi; i++) {
      ss += (v[i] - mr) * (v[i] - mr);
    }
    double diff = Math.abs(mr - ml);
    if (ss == 0) {
      return diff == 0 ? 0 : Double.POSITIVE_INFINITY;
    }
    double sp = Math.sqrt(ss / (nl + nr - 2));
    return diff / (sp * Math.sqrt(1.0 / nl + 1.0 / nr));
  }

  private static double mean(double[] v, int from, int to) {
    double s = 0;
    for (int i = from; i < to; i++) {
      s += v[i];
    }
    return s / (to - from);
  }
}
