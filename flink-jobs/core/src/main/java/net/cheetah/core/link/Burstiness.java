package net.cheetah.core.link;

/**
 * Burstiness b of a link over a window (docs/ARCHITECTURE.md, "Burstiness"): the coefficient of
 * variation of background bytes per T1 bin ({@link BinBackground}), the population standard
 * deviation over the mean; 0 when there are no bins or the mean is 0.
 *
 * <p>Population, not sample, variance: b describes the window's own bins, every one of them (the
 * probe sends one per T1, zero-byte bins included), not a sample of a larger series; the loss
 * tables are simulated and looked up by this same number. The warehouse's rollups compute it from
 * sums: sqrt(Σx²/n − (Σx/n)²) / (Σx/n), checked against schemas/testdata/burstiness_cases.json.
 *
 * <p>Fed one bin at a time (Welford's update: stable for byte counts in the billions, constant
 * memory), it is used by the link-statistics job, the simulator, and the tests. Not thread-safe.
 */
public final class Burstiness {
  private long bins;
  private double sum;
  private double mean;
  private double squaredDeviations;

  /** The burstiness of a whole series of background bytes per bin. */
  public static double of(double... backgroundBytesPerBin) {
    Burstiness b = new Burstiness();
    for (double x : backgroundBytesPerBin) {
      b.add(x);
    }
    return b.value();
  }

  /** Adds the background bytes of one bin. */
  public void add(double backgroundBytes) {
    bins++;
    sum += backgroundBytes;
    double delta = backgroundBytes - mean;
    mean += delta / bins;
    squaredDeviations += delta * (backgroundBytes - mean);
  }

  public long bins() {
    return bins;
  }

  /** Background bytes over every bin added. */
  public double sum() {
    return sum;
  }

  /** Population variance of background bytes per bin (0 with no bins). */
  public double variance() {
    return bins == 0 ? 0 : squaredDeviations / bins;
  }

  /** b: population standard deviation / mean of background bytes per bin; 0 when the mean is 0. */
  public double value() {
    return mean == 0 ? 0 : Math.sqrt(variance()) / mean;
  }
}
