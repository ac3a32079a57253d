package net.cheetah.simulator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The port against queueing theory: an M/D/1 queue and its Pollaczek-Khinchine mean wait. */
class QueueKnownAnswersTest {
  private static final int PACKET = 1500;
  private static final double CAPACITY = 1e9;
  private static final double SERVICE_S = PACKET * 8 / CAPACITY;

  /**
   * Poisson packets from the burst process itself: bursts far shorter than the packet gap yield at
   * most one packet each, at a burst start plus an independent offset, so packets form a Poisson
   * process of rate r̄ / (8 · 1500 B). A shape of 2.9 (h = 0.05) keeps two-packet bursts below
   * 1e-4.
   */
  private static Scenario poissonPackets(double load, double seconds) {
    double meanRate = load * CAPACITY;
    double gapS = PACKET * 8 / meanRate; // within one burst, at burst rate = mean rate
    double meanBurst = gapS / 20;
    double lambda = meanRate / (meanRate * meanBurst); // r_burst = r̄: λ = 1 / d
    ParetoBursts bg = new ParetoBursts(meanRate, lambda, 0.05, meanBurst, PACKET);
    return new Scenario(
        new PortConfig(CAPACITY, 50_000_000L, 50_000_000L),
        bg,
        Optional.empty(),
        false,
        seconds,
        0.5,
        0.1);
  }

  private static double pollaczekKhinchineWait(double rho) {
    return rho * SERVICE_S / (2 * (1 - rho));
  }

  @Test
  void halfLoadedPortWaitsAsMd1() {
    RunResult r = PortSimulation.run(poissonPackets(0.5, 8), 11);
    assertThat(r.bgMeanRateBps()).isCloseTo(0.5e9, within(0.01e9));
    assertThat(r.bgMeanDelaySeconds())
        .isCloseTo(pollaczekKhinchineWait(0.5), within(0.02 * pollaczekKhinchineWait(0.5)));
    assertThat(r.bgDroppedPackets()).isZero();
  }

  @Test
  void eightyPercentLoadedPortWaitsAsMd1() {
    double[] waits = new double[3];
    for (int seed = 0; seed < waits.length; seed++) {
      waits[seed] = PortSimulation.run(poissonPackets(0.8, 8), seed).bgMeanDelaySeconds();
    }
    double mean = Estimate.of(waits).mean();
    // ρS / 2(1 − ρ) = 24 µs for 12 µs packets at ρ = 0.8.
    assertThat(pollaczekKhinchineWait(0.8)).isCloseTo(24e-6, within(1e-9));
    assertThat(mean).isCloseTo(24e-6, within(0.03 * 24e-6));
  }

  @Test
  void overloadedQueueDropsTheExcessAndNeverHoldsMoreThanItsBuffer() {
    // 1.5 Gb/s of evenly spaced packets into 1 Gb/s: a third must be dropped, and the wait is
    // bounded by the buffer's drain time.
    double[] bins = new double[50];
    java.util.Arrays.fill(bins, 1.5e9 / 8 * 0.1);
    Scenario s =
        new Scenario(
            new PortConfig(CAPACITY, 1_000_000L, 1_000_000L),
            new RecordedBins(bins, 0.1, PACKET),
            Optional.empty(),
            false,
            5,
            1,
            0.1);
    RunResult r = PortSimulation.run(s, 3);
    assertThat(r.bgLossRate()).isCloseTo(1.0 / 3, within(0.005));
    assertThat(r.bgMaxDelaySeconds()).isLessThanOrEqualTo(1_000_000 * 8 / CAPACITY + 1e-9);
    assertThat(r.bgMaxDelaySeconds()).isGreaterThan(0.99 * (1_000_000 - PACKET) * 8 / CAPACITY);
  }
}
