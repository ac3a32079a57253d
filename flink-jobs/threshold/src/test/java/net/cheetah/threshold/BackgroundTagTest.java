package net.cheetah.threshold;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class BackgroundTagTest {
  @Test
  void withinMeansBothDifferencesAtMostTheirToleranceEdgesIncluded() {
    BackgroundTag t = new BackgroundTag(200e6, 0.5);
    assertThat(t.isWithin(new BackgroundTag(220e6, 0.5), 20e6, 0.1)).isTrue();
    assertThat(t.isWithin(new BackgroundTag(180e6, 0.375), 20e6, 0.125)).isTrue();
    assertThat(t.isWithin(new BackgroundTag(220.1e6, 0.5), 20e6, 0.1)).isFalse();
    assertThat(t.isWithin(new BackgroundTag(200e6, 0.75), 20e6, 0.125)).isFalse();
    assertThat(t.isWithin(t, 0, 0)).isTrue();
  }
}
