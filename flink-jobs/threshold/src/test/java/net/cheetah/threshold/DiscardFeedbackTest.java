package net.cheetah.threshold;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Optional;
import net.cheetah.core.threshold.ThresholdMode;
import org.junit.jupiter.api.Test;

class DiscardFeedbackTest {
  // 3 polls, l_acpt 1e-3, calm at <= 1e-4, ΔR 100 Mb/s, floor 100 Mb/s.
  private static final FeedbackParams P = new FeedbackParams(3, 1e-3, 1e-4, 100e6, 100e6);
  private static final SnmpPoll LOSSY = new SnmpPoll(99_000, 1_000); // 1e-2
  private static final SnmpPoll CALM = new SnmpPoll(100_000, 0);
  private static final SnmpPoll MILD = new SnmpPoll(99_950, 50); // 5e-4

  @Test
  void sustainedDiscardsLowerRAndCalmRestoresIt() {
    DiscardFeedback f = new DiscardFeedback(P, 500e6);
    assertThat(f.onPoll(LOSSY)).isEmpty();
    assertThat(f.onPoll(LOSSY)).isEmpty();
    ThresholdDecision down = f.onPoll(LOSSY).orElseThrow();
    assertThat(down.rateBps()).isEqualTo(400e6);
    assertThat(down.mode()).isEqualTo(ThresholdMode.FEEDBACK);
    assertThat(down.measuredLoss()).isEqualTo(1e-2);
    assertThat(down.reason()).contains("lowered").contains("500.0 Mb/s").contains("400.0 Mb/s");

    // The window restarts: three more lossy polls lower it again.
    f.onPoll(LOSSY);
    f.onPoll(LOSSY);
    assertThat(f.onPoll(LOSSY).orElseThrow().rateBps()).isEqualTo(300e6);

    // Neither lossy nor calm: no change.
    for (int i = 0; i < 6; i++) {
      assertThat(f.onPoll(MILD)).isEmpty();
    }
    assertThat(f.currentBps()).isEqualTo(300e6);

    // Calm: recover step by step, and stop at the base.
    f.onPoll(CALM);
    f.onPoll(CALM);
    assertThat(f.onPoll(CALM).orElseThrow().reason()).contains("calm");
    f.onPoll(CALM);
    f.onPoll(CALM);
    ThresholdDecision back = f.onPoll(CALM).orElseThrow();
    assertThat(back.rateBps()).isEqualTo(500e6);
    assertThat(back.reason()).contains("back at the base");
    for (int i = 0; i < 6; i++) {
      assertThat(f.onPoll(CALM)).isEmpty();
    }
  }

  @Test
  void neverBelowTheFloorAndARebaseKeepsTheCorrection() {
    DiscardFeedback f = new DiscardFeedback(P, 250e6);
    Optional<ThresholdDecision> last = Optional.empty();
    for (int i = 0; i < 12; i++) {
      Optional<ThresholdDecision> d = f.onPoll(LOSSY);
      if (d.isPresent()) {
        last = d;
      }
    }
    assertThat(f.currentBps()).isEqualTo(100e6);
    assertThat(last.orElseThrow().rateBps()).isEqualTo(100e6);
    f.rebase(600e6);
    assertThat(f.currentBps()).isEqualTo(400e6);
  }

  @Test
  void idlePollIsNotLoss() {
    assertThat(new SnmpPoll(0, 0).discardRate()).isZero();
    assertThat(LOSSY.discardRate()).isEqualTo(1e-2);
  }
}
