package net.cheetah.simulator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

class StatisticsTest {

  @Test
  void confidenceIntervalIsStudentTByHand() {
    // values 1..5: mean 3, sample sd sqrt(2.5), t(0.975, 4) = 2.776.
    Estimate e = Estimate.of(new double[] {1, 2, 3, 4, 5});
    assertThat(e.mean()).isEqualTo(3.0);
    assertThat(e.halfWidth95()).isCloseTo(2.776 * Math.sqrt(2.5) / Math.sqrt(5), within(1e-12));
    assertThat(Estimate.of(new double[] {7}).halfWidth95()).isZero();
  }

  @Test
  void tQuantilesMatchTheTableBeyondIt() {
    // Published t(0.975) values: ν = 40: 2.021, 59: 2.001, 120: 1.980.
    assertThat(StudentT.quantile975(40)).isCloseTo(2.021, within(5e-4));
    assertThat(StudentT.quantile975(59)).isCloseTo(2.001, within(5e-4));
    assertThat(StudentT.quantile975(120)).isCloseTo(1.980, within(5e-4));
    assertThat(StudentT.quantile975(30)).isEqualTo(2.042);
  }

  @Test
  void quantitiesParseSuffixesListsAndRanges() {
    assertThat(Quantities.parse("700M", "x")).isEqualTo(700e6);
    assertThat(Quantities.parse("1Gbps", "x")).isEqualTo(1e9);
    assertThat(Quantities.parse("5MB", "x")).isEqualTo(5e6);
    assertThat(Quantities.parse("64MiB", "x")).isEqualTo(64.0 * 1024 * 1024);
    assertThat(Quantities.parseList("10,100", "x")).containsExactly(10.0, 100.0);
    assertThat(Quantities.parseList("50M..200M:50M", "x"))
        .containsExactly(50e6, 100e6, 150e6, 200e6);
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> Quantities.parse("fast", "--lambda"))
        .hasMessageContaining("--lambda")
        .hasMessageContaining("'fast'");
  }
}
