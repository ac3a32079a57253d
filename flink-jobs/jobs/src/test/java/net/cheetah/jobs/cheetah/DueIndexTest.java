package net.cheetah.jobs.cheetah;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The cheetah operator's schedule: due order across and within buckets, partial drains. */
class DueIndexTest {
  private final DueIndex<String> index = new DueIndex<>();
  private final List<String> drained = new ArrayList<>();

  private void drain(long watermark) throws Exception {
    index.drain(watermark, (k, t) -> drained.add(k + "@" + t));
  }

  @Test
  void drainsInDueOrderUpToTheWatermarkAndKeepsTheRest() throws Exception {
    // Buckets are 1024 ms wide: 0-1023, 1024-2047, 2048-3071.
    index.add("c", 2_100);
    index.add("a", 1_500);
    index.add("b", 1_500); // ties keep the order they were added in
    index.add("d", 3_000);
    index.add("e", 200);
    index.add("f", 2_047); // after the watermark below, in a bucket it drains in part
    drain(2_046);
    assertThat(drained).containsExactly("e@200", "a@1500", "b@1500");
    assertThat(index.size()).isEqualTo(3);
    drained.clear();
    drain(2_047);
    assertThat(drained).containsExactly("f@2047");
    drained.clear();
    drain(Long.MAX_VALUE - 1);
    assertThat(drained).containsExactly("c@2100", "d@3000");
    assertThat(index.size()).isZero();
  }

  @Test
  void whatTheSinkAddsAfterTheWatermarkWaitsForTheNextOne() throws Exception {
    index.add("x", 1_000);
    index.drain(
        1_030,
        (k, t) -> {
          drained.add(k + "@" + t);
          index.add("x", 1_040); // the same bucket as the watermark, after it
          index.add("y", 5_000);
        });
    assertThat(drained).containsExactly("x@1000");
    assertThat(index.size()).isEqualTo(2);
    drained.clear();
    drain(1_040);
    assertThat(drained).containsExactly("x@1040");
  }

  @Test
  void negativeTimesSortBeforePositiveOnes() throws Exception {
    index.add("late", 5);
    index.add("early", -2_000);
    drain(10);
    assertThat(drained).containsExactly("early@-2000", "late@5");
  }
}
