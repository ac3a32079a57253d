package net.cheetah.analytics.links;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import net.cheetah.analytics.links.LinkStatsSchedule.Due;
import org.junit.jupiter.api.Test;

class LinkStatsScheduleTest {
  // T1 100 ms, T2 1 s, sliding every 500 ms, lateness 200 ms.
  private final LinkStatsSchedule s = new LinkStatsSchedule(100, 1_000, 500, 200);

  @Test
  void windowsAreDueOnceBinsUpToTheirEndPlusLatenessAreSeen() {
    long[] next = {s.firstTumblingEnd(1_300), s.firstSlidingEnd(1_300)};
    assertThat(next).containsExactly(2_000, 1_500);
    // Newest bin 1,500..1,600: the sliding window ending 1,500 needs bins up to 1,700.
    assertThat(s.due(1_500, next)).isEmpty();
    assertThat(s.due(1_600, next)).containsExactly(new Due(500, 1_500, true));
    // Bins up to 2,200 seen: the aligned window [1,000, 2,000) and the slide ending 2,000.
    assertThat(s.due(2_100, next))
        .containsExactly(new Due(1_000, 2_000, false), new Due(1_000, 2_000, true));
    assertThat(next).containsExactly(3_000, 2_500);
  }

  @Test
  void aGapMakesEveryMissedWindowDueInOrder() {
    long[] next = {1_000, Long.MAX_VALUE};
    LinkStatsSchedule noSliding = new LinkStatsSchedule(100, 1_000, 0, 0);
    List<Due> due = noSliding.due(3_900, next);
    assertThat(due)
        .containsExactly(
            new Due(0, 1_000, false),
            new Due(1_000, 2_000, false),
            new Due(2_000, 3_000, false),
            new Due(3_000, 4_000, false));
  }

  @Test
  void theRingHoldsAWindowAndTheLateness() {
    assertThat(s.ringSlots()).isEqualTo(13);
  }

  @Test
  void badPeriodsAreRefused() {
    assertThatThrownBy(() -> new LinkStatsSchedule(100, 1_050, 0, 0))
        .hasMessageContaining("multiple of T1");
    assertThatThrownBy(() -> new LinkStatsSchedule(100, 1_000, 150, 0))
        .hasMessageContaining("sliding period");
  }
}
