package net.cheetah.core.link;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

/**
 * Burstiness and background against answers computed by hand, here and in
 * schemas/testdata/burstiness_cases.json (the cases the warehouse's rollups are checked with too).
 */
class BurstinessTest {

  @Test
  void threeBinsOneTwoThreeHaveThePopulationCov() {
    // Mean 2, population variance (1 + 0 + 1) / 3 = 2/3: b = sqrt(2/3) / 2. A sample variance
    // (n - 1 = 2) would give 1 / 2 = 0.5.
    double b = Burstiness.of(1, 2, 3);
    assertThat(b).isCloseTo(Math.sqrt(2.0 / 3) / 2, within(1e-15));
    assertThat(b).isNotCloseTo(0.5, within(1e-3));
  }

  @Test
  void noBinsOrASilentBackgroundIsZeroNotNaN() {
    assertThat(Burstiness.of()).isZero();
    assertThat(Burstiness.of(0, 0, 0)).isZero();
    assertThat(Burstiness.of(7, 7, 7)).isZero(); // constant: no variation
  }

  @Test
  void backgroundTakesTheLargerCheetahEstimateAndNeverGoesBelowZero() {
    assertThat(BinBackground.bytes(1000, 200, 500)).isEqualTo(500); // max, not 200 + 500
    assertThat(BinBackground.bytes(1000, 600, 100)).isEqualTo(400);
    assertThat(BinBackground.bytes(100, 150, 0)).isZero();
    assertThat(BinBackground.bytes(100, 0, 0)).isEqualTo(100);
  }

  @Test
  void theAccumulatorKeepsCountSumAndVariance() {
    Burstiness b = new Burstiness();
    for (double x : new double[] {1000, 2000, 2000, 4000}) {
      b.add(x);
    }
    assertThat(b.bins()).isEqualTo(4);
    assertThat(b.sum()).isEqualTo(9000);
    assertThat(b.variance()).isCloseTo(1_187_500, within(1e-6)); // (1250² + 2·250² + 1750²) / 4
    assertThat(b.value()).isCloseTo(Math.sqrt(19) / 9, within(1e-15));
  }

  @Test
  void everyHandComputedCaseOfTheSharedFixture() throws Exception {
    BurstinessCases fixture = BurstinessCases.read();
    assertThat(fixture.cases()).as(BurstinessCases.file().toString()).hasSizeGreaterThan(4);
    for (BurstinessCases.Case c : fixture.cases()) {
      Burstiness b = new Burstiness();
      for (int i = 0; i < c.bins().size(); i++) {
        BurstinessCases.Bin bin = c.bins().get(i);
        double bg = BinBackground.bytes(bin.bytes(), bin.cheetahBytes(), bin.netflowCheetahBytes());
        assertThat(bg).as("%s: background of bin %d", c.name(), i).isEqualTo(c.background()[i]);
        b.add(bg);
      }
      double tolerance = 1e-12 * Math.max(c.burstiness(), 1e-300);
      assertThat(b.value())
          .as("%s: burstiness", c.name())
          .isCloseTo(c.burstiness(), within(tolerance));
      assertThat(b.variance())
          .as("%s: population variance", c.name())
          .isCloseTo(c.variance(), within(1e-9 * Math.max(c.variance(), 1)));
      assertThat(b.sum() / Math.max(b.bins(), 1))
          .as("%s: mean", c.name())
          .isCloseTo(c.mean(), within(1e-9));
      if (c.sampleBurstiness() != c.burstiness()) {
        assertThat(b.value())
            .as("%s: population, not sample, variance", c.name())
            .isNotCloseTo(c.sampleBurstiness(), within(tolerance));
      }
    }
  }
}
