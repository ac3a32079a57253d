package net.cheetah.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import net.cheetah.core.Topics;
import org.junit.jupiter.api.Test;

class TopicLayoutTest {

  /**
   * The manifest's topic names, read with a regex (not with the generator that wrote {@link
   * Topics}): a topic added to schemas/topics.yaml without regenerating fails here.
   */
  private static List<String> manifestTopics() throws IOException {
    Path manifest = Path.of("../../schemas/topics.yaml");
    Matcher m = Pattern.compile("(?m)^  - name: (\\S+)$").matcher(Files.readString(manifest));
    List<String> names = new ArrayList<>();
    while (m.find()) {
      names.add(m.group(1));
    }
    return names;
  }

  @Test
  void listsEveryTopicOfTheManifestOnce() throws IOException {
    List<String> manifest = manifestTopics();
    assertThat(manifest).hasSizeGreaterThan(10).doesNotHaveDuplicates();
    assertThat(Topics.ALL).containsExactlyElementsOf(manifest);
    assertThat(new TopicLayout(TopicLayout.Config.embedded()).specs())
        .extracting(TopicSpec::name)
        .containsExactlyElementsOf(manifest);
  }

  @Test
  void commandsAreKeptAsLongAsTheLongestRuleSoAdaptersCanReconcileFromThem() {
    Map<String, TopicSpec> specs = byName(new TopicLayout(TopicLayout.Config.embedded()));
    assertThat(specs.get("redirects.commands.v1").config())
        .containsEntry("retention.ms", String.valueOf(java.time.Duration.ofDays(31).toMillis()))
        .containsEntry("retention.bytes", "-1");
  }

  @Test
  void thresholdsAreCompactedAndTheRestExpire() {
    Map<String, TopicSpec> specs = byName(new TopicLayout(TopicLayout.Config.embedded()));
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
    Map<String, TopicSpec> embedded = byName(new TopicLayout(TopicLayout.Config.embedded()));
    assertThat(embedded.get("flows.v1").partitions()).isEqualTo(2);
    assertThat(embedded.get("flows.goflow2.v1").partitions()).isEqualTo(2);
    assertThat(embedded.get("thresholds.v1").partitions()).isEqualTo(1);

    Map<String, TopicSpec> bigger =
        byName(new TopicLayout(TopicLayout.Config.embedded().withPartitions(3, 6)));
    assertThat(bigger.get("probe.packets.v1").partitions()).isEqualTo(6);
    assertThat(bigger.get("cheetahs.v1").partitions()).isEqualTo(3);
  }

  @Test
  void aReplicatedClusterKeepsThreeCopiesOfEveryTopicAndWritesNeedTwo() throws IOException {
    List<TopicSpec> specs = new TopicLayout(TopicLayout.Config.replicated(3)).specs();
    assertThat(specs).extracting(TopicSpec::name).containsExactlyElementsOf(manifestTopics());
    assertThat(specs)
        .allSatisfy(
            t -> {
              assertThat(t.replicationFactor()).isEqualTo(3);
              assertThat(t.config()).containsEntry("min.insync.replicas", "2");
            });
    // Compaction and retention are as on one broker.
    assertThat(
            byName(new TopicLayout(TopicLayout.Config.replicated(3))).get("thresholds.v1").config())
        .containsEntry("cleanup.policy", "compact");
    // One broker: the broker decides (the embedded layout sets neither).
    assertThat(new TopicLayout(TopicLayout.Config.embedded()).specs())
        .allSatisfy(
            t -> {
              assertThat(t.replicationFactor()).isEqualTo(TopicSpec.BROKER_DEFAULT);
              assertThat(t.config()).doesNotContainKey("min.insync.replicas");
            });
    assertThatThrownBy(() -> TopicLayout.Config.embedded().withReplication(2, 3))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void rejectsImpossibleSettings() {
    assertThatThrownBy(() -> TopicLayout.Config.embedded().withPartitions(0, 1))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> TopicSpec.of("x", 0))
        .hasMessageContaining("Topic x needs at least one partition");
  }

  private static Map<String, TopicSpec> byName(TopicLayout topics) {
    return topics.specs().stream().collect(Collectors.toMap(TopicSpec::name, Function.identity()));
  }
}
