package net.cheetah.analytics.throughput;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import net.cheetah.analytics.throughput.StepDetector.Step;
import org.junit.jupiter.api.Test;

class StepDetectorTest {
  private final StepDetector d = new StepDetector(5, 5, 0.2);
  private static final long HOUR = 3_600_000L;

  static List<Forecasts.Observation> hourly(double... v) {
    return java.util.stream.IntStream.range(0, v.length)
        .mapToObj(i -> new Forecasts.Observation(i * HOUR, v[i]))
        .toList();
  }

  @Test
  void aHalvingIsFoundAtItsTime() {
    // At index 6 the windows are 102,98,101,99,100 (mean 100, SS 4+4+1+1+0 = 10) and
    // 50,52,48,51,49 (mean 50, SS 10). Pooled sd = sqrt(20 / 8) = sqrt(2.5);
    // t = 50 / (sqrt(2.5) x sqrt(1/5 + 1/5)) = 50 / sqrt(2.5 x 0.4) = 50.
    List<Step> s = d.find(hourly(100, 102, 98, 101, 99, 100, 50, 52, 48, 51, 49, 50));
    assertThat(s).hasSize(1);
    Step step = s.get(0);
    assertThat(step.index()).isEqualTo(6);
    assertThat(step.ms()).isEqualTo(6 * HOUR);
    assertThat(step.lastBeforeMs()).isEqualTo(5 * HOUR);
    assertThat(step.before()).isCloseTo(100, within(1e-12));
    assertThat(step.after()).isCloseTo(50, within(1e-12));
    assertThat(step.t()).isCloseTo(50, within(1e-9));
  }

  @Test
  void twoStepsAreBothFound() {
    List<Step> s = d.find(hourly(100, 101, 99, 100, 100, 50, 51, 49, 50, 50, 80, 81, 79, 80, 80));
    assertThat(s).extracting(Step::index).containsExactly(5, 10);
  }

  @Test
  void noiseIsNoStep() {
    assertThat(d.find(hourly(100, 110, 90, 105, 95, 100, 108, 92, 101, 99, 103, 97))).isEmpty();
  }

  @Test
  void aSmallShiftIsNoStepHoweverClean() {
    // 5% < 20%, though t is infinite (both windows constant).
    assertThat(d.find(hourly(100, 100, 100, 100, 100, 105, 105, 105, 105, 105))).isEmpty();
  }

  @Test
  void tooFewObservations() {
    // 9 < 2 x 5: no point has five observations on each side.
    assertThat(d.find(hourly(100, 100, 100, 100, 10, 10, 10, 10, 10))).isEmpty();
    assertThat(d.find(hourly())).isEmpty();
  }

  @Test
  void theFirstPossibleSplit() {
    assertThat(d.find(hourly(100, 100, 100, 100, 100, 10, 10, 10, 10, 10)))
        .extracting(Step::index)
        .containsExactly(5);
  }
}
