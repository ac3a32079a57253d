package net.cheetah.simulator;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import net.cheetah.threshold.BackgroundTag;
import net.cheetah.threshold.LossTable;

/**
 * Builds the loss table of table mode for an observed (r̄_bg, b) tag, off the hot path: finds the
 * burst arrival rate λ whose Pareto bursts have burstiness b at mean rate r̄_bg, then simulates a
 * cheetah of each rate (the high-RTT case) over that background and records the mean loss.
 */
public final class LossTableBuilder {
  /** How tables are built: the port, the burst shape, the rates and the runs per rate. */
  public record Plan(
      PortConfig port,
      double hurst,
      double meanBurstSeconds,
      List<Double> ratesBps,
      TcpCheetah cheetah,
      int runs,
      long seed,
      double durationSeconds,
      double warmupSeconds,
      double binSeconds) {}

  private final Plan plan;
  private final PointRunner runner;

  public LossTableBuilder(Plan plan, PointRunner runner) {
    this.plan = plan;
    this.runner = runner;
  }

  /**
   * The λ giving burstiness b: burstiness falls as λ grows, so bisect on log λ within [0.1, 1e4]
   * bursts/s. A b beyond what that range reaches gets the nearest end.
   */
  public double lambdaFor(BackgroundTag tag) {
    double lo = Math.log(0.1);
    double hi = Math.log(1e4);
    for (int i = 0; i < 14; i++) {
      double mid = (lo + hi) / 2;
      if (burstiness(tag.meanBgBps(), Math.exp(mid)) > tag.burstiness()) {
        lo = mid;
      } else {
        hi = mid;
      }
    }
    return Math.exp((lo + hi) / 2);
  }

  public LossTable build(BackgroundTag tag) {
    if (!(tag.meanBgBps() > 0)) {
      throw new IllegalArgumentException("a table needs background above 0 bits/s, got " + tag);
    }
    ParetoBursts bg = bursts(tag.meanBgBps(), lambdaFor(tag));
    List<LossTable.Row> rows = new ArrayList<>();
    for (double rate : plan.ratesBps()) {
      Scenario s = scenario(bg, Optional.of(plan.cheetah().withRateLimit(rate)));
      double loss = runner.run(s, plan.runs(), plan.seed()).bgLossRate().mean();
      rows.add(new LossTable.Row(rate, loss));
    }
    return new LossTable(tag, plan.cheetah().rttSeconds(), rows);
  }

  private double burstiness(double meanBgBps, double lambda) {
    Scenario s = scenario(bursts(meanBgBps, lambda), Optional.empty());
    return runner.run(s, plan.runs(), plan.seed()).bgBurstiness().mean();
  }

  private ParetoBursts bursts(double meanBgBps, double lambda) {
    return new ParetoBursts(meanBgBps, lambda, plan.hurst(), plan.meanBurstSeconds(), 1500);
  }

  private Scenario scenario(ParetoBursts bg, Optional<TcpCheetah> cheetah) {
    return new Scenario(
        plan.port(),
        bg,
        cheetah,
        false,
        plan.durationSeconds(),
        plan.warmupSeconds(),
        plan.binSeconds());
  }
}
