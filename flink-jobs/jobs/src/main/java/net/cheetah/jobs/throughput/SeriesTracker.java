package net.cheetah.jobs.throughput;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import net.cheetah.analytics.throughput.DiurnalFit;
import net.cheetah.analytics.throughput.Forecasts;
import net.cheetah.analytics.throughput.StepDetector;
import net.cheetah.config.CheetahConfig;

/**
 * The series analyses of docs/ARCHITECTURE.md, "Transfer throughput", one observation at a time
 * (the throughput job's; the offline command runs them over whole series): the forecasts made for
 * the observation from the ones before it, the diurnal fit of its kind of day over the kept
 * observations (made again at most once per event-time hour), and the step decided with it.
 *
 * <p>A step at observation k needs the window after k and, so that a stronger candidate right after
 * k can suppress it as offline, the windows after the next window - 1 candidates: it is decided
 * when observation k + 2·window - 2 arrives, over the 4·window - 2 latest observations (the offline
 * command sees the whole series, so where candidates chain over more than that span the two may
 * keep different ones).
 */
public final class SeriesTracker {
  private static final long HOUR_MS = 3_600_000L;
  private final CheetahConfig.Throughput cfg;
  private final Forecasts forecasts;
  private final DiurnalFit diurnal;
  private final StepDetector steps;

  public SeriesTracker(CheetahConfig.Throughput cfg) {
    this.cfg = cfg;
    this.forecasts = new Forecasts(cfg.forecastWindow(), cfg.ewmaWeight(), cfg.forecastBandSd());
    this.diurnal = new DiurnalFit(cfg.diurnalMaxDb());
    this.steps = new StepDetector(cfg.stepWindow(), cfg.stepMinT(), cfg.stepMinChange());
  }

  /** How many latest observations a series keeps: throughput.history, or what the tests need. */
  public static int kept(CheetahConfig.Throughput cfg) {
    return Math.max(cfg.history(), Math.max(cfg.forecastWindow(), 4 * cfg.stepWindow() - 2));
  }

  /**
   * One observation's results: the series kept after it, its forecasts (mean and sd NaN until the
   * forecast window is full, EWMA NaN for the first), the fit of its kind of day (weekday or
   * weekend, over the kept observations, this one included; NaN parameters under 4 points) and the
   * step decided with it, if any.
   */
  public record Update(
      SeriesState next, Forecasts.Forecast forecast, Fit fit, Optional<Step> step) {}

  /** A step, with the observation times around it. */
  public record Step(long ms, long lastBeforeMs, double before, double after, double t) {}

  public Update observe(SeriesState s, long ms, double value) {
    int n = s.size();
    int w = cfg.forecastWindow();
    List<Forecasts.Observation> recent = new ArrayList<>();
    for (int i = Math.max(0, n - w); i < n; i++) {
      recent.add(new Forecasts.Observation(s.ms()[i], s.values()[i]));
    }
    recent.add(new Forecasts.Observation(ms, value));
    Forecasts.Forecast f = forecasts.run(recent).rows().get(recent.size() - 1);
    // The mean and sd of the window come from the rows above; the EWMA from the whole series.
    Forecasts.Forecast forecast =
        new Forecasts.Forecast(ms, value, f.mean(), f.sd(), s.ewma(), f.outsideBand());
    double ewma =
        Double.isNaN(s.ewma())
            ? value
            : cfg.ewmaWeight() * s.ewma() + (1 - cfg.ewmaWeight()) * value;

    int keep = kept(cfg);
    int from = Math.max(0, n + 1 - keep);
    long[] nextMs = Arrays.copyOfRange(s.ms(), from, n + 1);
    double[] nextValues = Arrays.copyOfRange(s.values(), from, n + 1);
    nextMs[nextMs.length - 1] = ms;
    nextValues[nextValues.length - 1] = value;
    int d = DiurnalFit.weekend(ms) ? 1 : 0;
    long hour = Math.floorDiv(ms, HOUR_MS);
    long[] fitHour = s.fitHour().clone();
    double[] fit = s.fit().clone();
    // Refitted at most once per event-time hour per kind of day (a fit runs over every kept
    // point), and on every observation while it had under 4 points (no fit, nothing to run).
    if (fitHour[d] != hour || fit[4 * d + 3] < 4) {
      List<double[]> points = new ArrayList<>();
      for (int i = 0; i < nextMs.length; i++) {
        if ((DiurnalFit.weekend(nextMs[i]) ? 1 : 0) == d) {
          points.add(new double[] {DiurnalFit.timeOfDay(nextMs[i]), nextValues[i]});
        }
      }
      DiurnalFit.Fit f2 = diurnal.fit(points);
      fitHour[d] = hour;
      fit[4 * d] = f2.a();
      fit[4 * d + 1] = f2.b();
      fit[4 * d + 2] = f2.n() < 4 ? Double.NaN : f2.c();
      fit[4 * d + 3] = f2.n();
    }
    SeriesState next = new SeriesState(nextMs, nextValues, ewma, fitHour, fit);
    Fit current = new Fit(fit[4 * d], fit[4 * d + 1], fit[4 * d + 2], (int) fit[4 * d + 3]);
    return new Update(next, forecast, current, step(nextMs, nextValues));
  }

  /**
   * The diurnal fit in use for a kind of day: a, b, c (NaN while it had fewer than 4 points or was
   * undetermined) over {@code n} points.
   */
  public record Fit(double a, double b, double c, int n) {}

  private Optional<Step> step(long[] ms, double[] values) {
    int w = cfg.stepWindow();
    int size = values.length;
    int k = size + 1 - 2 * w; // the candidate decided now
    if (k < w) {
      return Optional.empty();
    }
    int off = Math.max(0, size - (4 * w - 2));
    List<Forecasts.Observation> buffer = new ArrayList<>();
    for (int i = off; i < size; i++) {
      buffer.add(new Forecasts.Observation(ms[i], values[i]));
    }
    return steps.find(buffer).stream()
        .filter(st -> st.index() == k - off)
        .findFirst()
        .map(st -> new Step(st.ms(), st.lastBeforeMs(), st.before(), st.after(), st.t()));
  }
}
