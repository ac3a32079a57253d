package net.cheetah.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class TopicsTest {

  /** Copied by hand from schemas/topics.yaml. */
  private static final List<String> ARCHITECTURE_TOPICS =
      List.of(
          "flows.goflow2.v1",
          "flows.v1",
          "flows.rejected.v1",
          "probe.flights.v1",
          "probe.bins.v1",
          "probe.packets.v1",
          // The probe's live counters, for the NOC.
          "probe.counters.v1",
          "snmp.counters.v1",
          "transfers.v1",
          "cheetahs.v1",
          "flowsets.v1",
          "links.stats.v1",
          "thresholds.v1",
          "redirects.commands.v1",
          // Every decision of the redirect job, for the audit.
          "redirects.decisions.v1",
          "redirects.acks.v1",
          "throughput.v1",
          "alerts.v1");

  @Test
  void listsEveryTopicOfTheArchitectureOnce() {
    assertThat(Topics.ALL).containsExactlyElementsOf(ARCHITECTURE_TOPICS);
    assertThat(new Topics(Topics.Config.embedded()).specs())
        .extracting(TopicSpec::name)
        .containsExactlyElementsOf(ARCHITECTURE_TOPICS);
  }

  @Test
  void commandsAreKeptAsLongAsTheLongestRuleSoAdaptersCanReconcileFromThem() {
    Map<String, TopicSpec> specs = byName(new Topics(Topics.Config.embedded()));
    assertThat(specs.get("redirects.commands.v1").config())
        .containsEntry("retention.ms", String.valueOf(java.time.Duration.ofDays(31).toMillis()))
        .containsEntry("retention.bytes", "-1");
  }

  @Test
  void thresholdsAreCompactedAndTheRestExpire() {
    Map<String, TopicSpec> specs = byName(new Topics(Topics.Config.embedded()));
    assertThat(specs.get("thresholds.v1").config())
        .containsEntry("cleanup.policy", "compact")
        .doesNotContainKey("retention.ms");
    assertThat(specs.get("alerts.v1").config())
        .containsEntry("cleanup.policy", "delete")
        .containsEntry("retention.ms", String.valueOf(Duration.ofDays(2).toMillis()))
        .containsEntry("retention.bytes", String.valueOf(1L << 30));
  }

  @Test
  void highVolumeTopicsGetTheirOwnPartitionCount() {
    Map<String, TopicSpec> embedded = byName(new Topics(Topics.Config.embedded()));
    assertThat(embedded.get("flows.v1").partitions()).isEqualTo(2);
    assertThat(embedded.get("flows.goflow2.v1").partitions()).isEqualTo(2);
    assertThat(embedded.get("thresholds.v1").partitions()).isEqualTo(1);

    Map<String, TopicSpec> bigger =
        byName(new Topics(Topics.Config.embedded().withPartitions(3, 6)));
    assertThat(bigger.get("probe.packets.v1").partitions()).isEqualTo(6);
    assertThat(bigger.get("cheetahs.v1").partitions()).isEqualTo(3);
  }

  @Test
  void rejectsImpossibleSettings() {
    assertThatThrownBy(() -> Topics.Config.embedded().withPartitions(0, 1))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> TopicSpec.of("x", 0))
        .hasMessageContaining("Topic x needs at least one partition");
  }

  private static Map<String, TopicSpec> byName(Topics topics) {
    return topics.specs().stream().collect(Collectors.toMap(TopicSpec::name, Function.identity()));
  }
}
