package net.cheetah.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import org.junit.jupiter.api.Test;

/**
 * Which stored-once checks apply to each result: the topic check only where the topic is written
 * once. Expected by hand from schemas/topics.yaml (`delivery: at-least-once` on thresholds.v1,
 * redirects.commands.v1 and redirects.decisions.v1) and docs/ARCHITECTURE.md, "Delivery
 * guarantees".
 */
class StoredOnceTest {
  @Test
  void onlyTopicsWrittenOnceMustHoldEachKeyOnce() {
    assertThat(Arrays.stream(StoredOnce.Result.values()).filter(r -> !r.topicChecked()))
        .containsExactlyInAnyOrder(
            StoredOnce.Result.THRESHOLDS,
            StoredOnce.Result.REDIRECT_DECISIONS,
            StoredOnce.Result.REDIRECT_COMMANDS);
    assertThat(StoredOnce.Result.LINK_STATS.topicChecked()).as("exactly-once link stats").isTrue();
    assertThat(StoredOnce.Result.THROUGHPUT.topicChecked()).as("exactly-once throughput").isTrue();
    assertThat(StoredOnce.Result.ALERTS.topicChecked()).as("exactly-once alerts").isTrue();
  }
}
