package net.cheetah.runtime;

import java.util.Map;

/**
 * A Kafka topic to create: name, partition count and topic-level configuration (for example {@code
 * cleanup.policy=compact} or {@code retention.ms}). The replication factor is the broker's {@code
 * default.replication.factor}.
 */
public record TopicSpec(String name, int partitions, Map<String, String> config) {

  public TopicSpec {
    if (name == null || name.isBlank()) {
      throw new IllegalArgumentException("A topic name must not be blank");
    }
    if (partitions < 1) {
      throw new IllegalArgumentException(
          "Topic " + name + " needs at least one partition, got " + partitions);
    }
    config = Map.copyOf(config);
  }

  public static TopicSpec of(String name, int partitions) {
    return new TopicSpec(name, partitions, Map.of());
  }
}
