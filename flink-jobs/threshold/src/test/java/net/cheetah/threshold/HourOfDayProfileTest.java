package net.cheetah.threshold;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

class HourOfDayProfileTest {

  @Test
  void predictsTheMeanOfTheSameHourOnEarlierDays() {
    HourOfDayProfile p = new HourOfDayProfile(3);
    p.record(100, 14, new BackgroundTag(100e6, 0.2));
    p.record(101, 14, new BackgroundTag(200e6, 0.4));
    p.record(102, 14, new BackgroundTag(300e6, 0.9));
    p.record(102, 15, new BackgroundTag(900e6, 2.0)); // another hour: ignored
    p.record(103, 14, new BackgroundTag(999e6, 3.0)); // today: ignored
    BackgroundTag t = p.predict(103, 14).orElseThrow();
    assertThat(t.meanBgBps()).isCloseTo(200e6, within(1e-3));
    assertThat(t.burstiness()).isCloseTo(0.5, within(1e-12));
  }

  @Test
  void onlyTheLastDaysCountAndNoHistoryPredictsNothing() {
    HourOfDayProfile p = new HourOfDayProfile(2);
    p.record(100, 3, new BackgroundTag(500e6, 1));
    p.record(102, 3, new BackgroundTag(100e6, 0.1));
    assertThat(p.predict(103, 3).orElseThrow().meanBgBps()).isEqualTo(100e6);
    assertThat(p.predict(103, 4)).isEmpty();
    p.expireBefore(105);
    assertThat(p.predict(104, 3)).isEmpty();
  }
}
