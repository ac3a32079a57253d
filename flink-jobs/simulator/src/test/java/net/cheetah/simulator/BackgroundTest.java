package net.cheetah.simulator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.Optional;
import org.junit.jupiter.api.Test;

class BackgroundTest {

  @Test
  void paretoShapeAndScaleFollowHurstAndMeanDuration() {
    ParetoBursts b = ParetoBursts.study(10);
    assertThat(b.paretoShape()).isEqualTo(2.0); // 3 − 2 · 0.5
    assertThat(b.paretoScaleSeconds()).isCloseTo(0.05, within(1e-12)); // d (α−1)/α
    assertThat(b.burstRateBps()).isCloseTo(200e6, within(1e-3)); // 200 Mb/s / (10 · 0.1)
    assertThat(ParetoBursts.study(600).burstRateBps()).isCloseTo(200e6 / 60, within(1e-3));
  }

  @Test
  void burstProcessKeepsItsMeanRate() {
    double[] rates = new double[8];
    for (int i = 0; i < rates.length; i++) {
      rates[i] = PortSimulation.run(Scenarios.backgroundOnly(100, 12), i).bgMeanRateBps();
    }
    Estimate e = Estimate.of(rates);
    assertThat(e.mean()).isCloseTo(200e6, within(0.04 * 200e6));
  }

  @Test
  void replayedBinsSendTheirBytesWithinEachBin() {
    double[] bins = {150_000, 0, 3_000_000, 1_500};
    Scenario s =
        new Scenario(
            PortConfig.study(),
            new RecordedBins(bins, 0.1, 1500),
            Optional.empty(),
            false,
            4,
            0,
            0.1);
    RunResult r = PortSimulation.run(s, 1);
    // 40 bins = 10 cycles of the 4 bins, whatever the starting bin.
    long packetsPerCycle = (150_000 + 3_000_000 + 1_500) / 1500;
    assertThat(r.bgOfferedPackets()).isEqualTo(10 * packetsPerCycle);
    assertThat(r.bgDroppedPackets()).isZero();
    // CoV of the bin series computed by hand: bytes 150000, 0, 3e6, 1500.
    double mean = (150_000 + 3_000_000 + 1_500) / 4.0;
    double var =
        (Math.pow(150_000 - mean, 2)
                + Math.pow(mean, 2)
                + Math.pow(3_000_000 - mean, 2)
                + Math.pow(1_500 - mean, 2))
            / 4;
    assertThat(r.bgBurstiness()).isCloseTo(Math.sqrt(var) / mean, within(1e-9));
  }
}
