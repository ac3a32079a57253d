package net.cheetah.analytics;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

class IntervalApportionerTest {
  private static Map<Long, Long> parts(long start, long end, long bytes, long interval) {
    Map<Long, Long> m = new TreeMap<>();
    IntervalApportioner.apportion(start, end, bytes, interval, (k, b) -> m.merge(k, b, Long::sum));
    return m;
  }

  @Test
  void recordInsideOneIntervalStaysWhole() {
    assertThat(parts(61_000, 119_999, 500, 60_000)).isEqualTo(Map.of(1L, 500L));
  }

  @Test
  void zeroLengthRecordGoesToItsInterval() {
    assertThat(parts(60_000, 60_000, 7, 60_000)).isEqualTo(Map.of(1L, 7L));
  }

  @Test
  void recordStraddlingABoundaryIsSplitByTime() {
    // 60 s span, 30 s on each side of t = 60 s.
    assertThat(parts(30_000, 90_000, 100, 60_000)).isEqualTo(Map.of(0L, 50L, 1L, 50L));
  }

  @Test
  void recordEndingOnABoundaryPutsNothingInTheNextInterval() {
    assertThat(parts(0, 120_000, 1200, 60_000)).isEqualTo(Map.of(0L, 600L, 1L, 600L));
  }

  @Test
  void cumulativeFloorsKeepTheTotal() {
    // 2 ms span, 1 ms before the boundary: floor(3·1/2) = 1 then the rest, 2.
    assertThat(parts(59_999, 60_001, 3, 60_000)).isEqualTo(Map.of(0L, 1L, 1L, 2L));
  }

  @Test
  void hugeCountsDoNotOverflow() {
    long bytes = 4_000_000_000_000_000_000L; // 4e18 over 3 intervals of 1 s
    Map<Long, Long> m = parts(500, 2_500, bytes, 1_000);
    assertThat(m)
        .containsEntry(0L, 1_000_000_000_000_000_000L)
        .containsEntry(1L, 2_000_000_000_000_000_000L);
    assertThat(m.values().stream().mapToLong(Long::longValue).sum()).isEqualTo(bytes);
  }

  @Test
  void partsAlwaysSumToTheRecord() {
    Random r = new Random(7);
    for (int i = 0; i < 10_000; i++) {
      long start = r.nextInt(1_000_000);
      long end = start + r.nextInt(400_000);
      long bytes = Math.abs(r.nextLong()) % 10_000_000_000_000L;
      assertThat(
              parts(start, end, bytes, 60_000).values().stream().mapToLong(Long::longValue).sum())
          .isEqualTo(bytes);
    }
  }
}
