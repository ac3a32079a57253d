package net.cheetah.threshold;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import net.cheetah.core.threshold.ThresholdMode;
import org.junit.jupiter.api.Test;

class FormulaThresholdTest {
  private static final FormulaParams P = new FormulaParams(1e9, 1.0, 0.1);

  @Test
  void smoothBackgroundGetsTheWholeHeadroom() {
    ThresholdDecision d = FormulaThreshold.decide(200e6, 0, P);
    assertThat(d.rateBps()).isEqualTo(800e6);
    assertThat(d.alphaBg()).isEqualTo(1.0);
    assertThat(d.mode()).isEqualTo(ThresholdMode.FORMULA);
    assertThat(d.reason()).contains("800.0 Mb/s").contains("200.0 Mb/s");
  }

  @Test
  void alphaFallsWithBurstinessDownToItsFloor() {
    // α = 1 / (1 + b): b = 1 gives 0.5, so R = 0.5 · 800 Mb/s.
    assertThat(FormulaThreshold.decide(200e6, 1, P).rateBps()).isCloseTo(400e6, within(1e-3));
    assertThat(FormulaThreshold.alpha(0.25, P)).isGreaterThan(FormulaThreshold.alpha(0.5, P));
    assertThat(FormulaThreshold.alpha(50, P)).isEqualTo(0.1);
  }

  @Test
  void saturatedLinkHasNoHeadroom() {
    ThresholdDecision d = FormulaThreshold.decide(1.2e9, 0.1, P);
    assertThat(d.rateBps()).isZero();
    assertThat(d.reason()).contains("no headroom");
  }
}
