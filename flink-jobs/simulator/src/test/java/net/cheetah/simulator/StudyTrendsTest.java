package net.cheetah.simulator;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The shapes the threshold study reports, with fixed seeds and short runs (10 s, 8 runs per point).
 * Every point of one seed sees the same background, so the trends are not masked by background
 * noise.
 */
class StudyTrendsTest {
  private static final int RUNS = 8;
  private static final long SEED = 2024;
  private static final double SECONDS = 10;
  private static PointRunner runner;

  @BeforeAll
  static void start() {
    runner = new PointRunner(Runtime.getRuntime().availableProcessors());
  }

  @AfterAll
  static void stop() {
    runner.close();
  }

  private static PointResult point(double lambda, double rate, double rtt, boolean redirect) {
    return runner.run(Scenarios.study(lambda, rate, rtt, redirect, SECONDS), RUNS, SEED);
  }

  @Test
  void burstinessFallsAsBurstArrivalRateRises() {
    double previous = Double.POSITIVE_INFINITY;
    for (double lambda : new double[] {10, 50, 200, 600}) {
      double b =
          runner.run(Scenarios.backgroundOnly(lambda, SECONDS), RUNS, SEED).bgBurstiness().mean();
      assertThat(b).as("burstiness at λ = %s", lambda).isLessThan(previous);
      previous = b;
    }
    assertThat(previous).as("λ = 600 is nearly smooth").isLessThan(0.2);
  }

  @Test
  void lossRisesWithCheetahRateAndMoreForLongRtt() {
    // Loss at λ = 10 hangs on rare long burst overlaps: compare well separated rates, 16 runs.
    double[] rates = {300e6, 550e6, 800e6};
    double[] shortRtt = new double[rates.length];
    double[] longRtt = new double[rates.length];
    for (int i = 0; i < rates.length; i++) {
      shortRtt[i] = lossAt(rates[i], 0.01);
      longRtt[i] = lossAt(rates[i], 0.1);
    }
    // Ample headroom: no loss. Zero headroom (800 Mb/s = C − r̄_bg): loss.
    assertThat(longRtt[0]).isZero();
    assertThat(shortRtt[0]).isZero();
    assertThat(longRtt[2]).isGreaterThan(longRtt[1]).isGreaterThan(longRtt[0]);
    assertThat(shortRtt[2]).isGreaterThan(shortRtt[1]).isGreaterThan(shortRtt[0]);
    assertThat(longRtt[2]).as("a long-RTT cheetah reacts later").isGreaterThan(shortRtt[2]);
    assertThat(longRtt[1]).isGreaterThan(shortRtt[1]);
  }

  private static double lossAt(double rate, double rtt) {
    Scenario s = Scenarios.study(10, rate, rtt, false, SECONDS);
    return runner.run(s, 2 * RUNS, SEED).bgLossRate().mean();
  }

  @Test
  void lossRisesWithBurstinessAtA700MbpsCheetahAndVanishesWhenSmooth() {
    double smooth = point(600, 700e6, 0.1, false).bgLossRate().mean();
    double medium = point(50, 700e6, 0.1, false).bgLossRate().mean();
    double bursty = point(10, 700e6, 0.1, false).bgLossRate().mean();
    assertThat(smooth).isZero();
    assertThat(bursty).isGreaterThan(medium).isGreaterThan(1e-3);
  }

  @Test
  void redirectedCheetahLosesThroughputAsBurstinessGrowsMoreAtLongRtt() {
    double smoothLong = point(600, 700e6, 0.1, true).throughputRatio().orElseThrow().mean();
    double burstyLong = point(10, 700e6, 0.1, true).throughputRatio().orElseThrow().mean();
    double burstyShort = point(10, 700e6, 0.01, true).throughputRatio().orElseThrow().mean();
    assertThat(smoothLong).isGreaterThan(0.995);
    assertThat(burstyLong).isLessThan(0.97).isLessThan(smoothLong);
    assertThat(burstyLong).as("high RTT suffers more").isLessThan(burstyShort);
    // Redirection protects the background.
    assertThat(point(10, 700e6, 0.1, true).bgLossRate().mean()).isZero();
  }
}
