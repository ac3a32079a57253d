package net.cheetah.analytics.throughput;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Throughput forecasts of one series (one host pair and tool, in time order; docs/ARCHITECTURE.md,
 * "Transfer throughput"): the mean and standard deviation of the previous {@code window}
 * observations, and an EWMA with weight {@code w} on the history. An observation outside mean ±
 * {@code bandSd} standard deviations is an alert.
 */
public final class Forecasts {
  private final int window;
  private final double w;
  private final double bandSd;

  public Forecasts(int window, double ewmaWeight, double bandSd) {
    this.window = window;
    this.w = ewmaWeight;
    this.bandSd = bandSd;
  }

  /** One observation of a series. */
  public record Observation(long ms, double value) {}

  /**
   * The forecasts made for one observation from the ones before it: {@code mean} and {@code sd} NaN
   * until {@code window} observations came before, {@code ewma} NaN for the first.
   */
  public record Forecast(
      long ms, double observed, double mean, double sd, double ewma, boolean outsideBand) {
    public boolean hasMean() {
      return !Double.isNaN(mean);
    }
  }

  /** A series' forecasts and their errors: average(|forecast - observed| / observed). */
  public record Series(List<Forecast> rows, double meanError, double ewmaError) {}

  /** {@code observations} in time order. */
  public Series run(List<Observation> observations) {
    List<Forecast> rows = new ArrayList<>();
    double ewma = Double.NaN;
    double[] values = observations.stream().mapToDouble(Observation::value).toArray();
    List<Double> meanErr = new ArrayList<>();
    List<Double> ewmaErr = new ArrayList<>();
    for (int i = 0; i < values.length; i++) {
      double o = values[i];
      double mean = Double.NaN;
      double sd = Double.NaN;
      if (i >= window) {
        double[] last = Arrays.copyOfRange(values, i - window, i);
        mean = Stats.mean(last);
        sd = Stats.sd(last);
      }
      boolean outside = !Double.isNaN(mean) && Math.abs(o - mean) > bandSd * sd;
      rows.add(new Forecast(observations.get(i).ms(), o, mean, sd, ewma, outside));
      if (o > 0) {
        if (!Double.isNaN(mean)) {
          meanErr.add(Math.abs(mean - o) / o);
        }
        if (!Double.isNaN(ewma)) {
          ewmaErr.add(Math.abs(ewma - o) / o);
        }
      }
      ewma = Double.isNaN(ewma) ? o : w * ewma + (1 - w) * o;
    }
    return new Series(rows, avg(meanErr), avg(ewmaErr));
  }

  private static double avg(List<Double> x) {
    return Stats.mean(x.stream().mapToDouble(Double::doubleValue).toArray());
  }
}
