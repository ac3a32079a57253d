package net.cheetah.runtime;

import java.util.Map;

/**
 * A Kafka topic to create: name, partition count, replication factor and topic-level configuration
 * (for example {@code cleanup.policy=compact}, {@code retention.ms} or {@code
 * min.insync.replicas}).
 *
 * @param replicationFactor copies of each partition; {@link #BROKER_DEFAULT} leaves it to the
 *     broker's {@code default.replication.factor}
 */
public record TopicSpec(
    String name, int partitions, int replicationFactor, Map<String, String> config) {

  /** Replication as the broker's {@code default.replication.factor} says. */
  public static final int BROKER_DEFAULT = -1;

  public TopicSpec {
    if (name == null || name.isBlank()) {
      throw new IllegalArgumentException("A topic name must not be blank");
    }
    if (partitions < 1) {
      throw new IllegalArgumentException(
          "Topic " + name + " needs at least one partition, got " + partitions);
    }
    if (replicationFactor != BROKER_DEFAULT && replicationFactor < 1) {
      throw new IllegalArgumentException(
          "Topic " + name + " needs a replication factor >= 1, got " + replicationFactor);
    }
    config = Map.copyOf(config);
  }

  /** A topic replicated as the broker's default says. */
  public TopicSpec(String name, int partitions, Map<String, String> config) {
    this(name, partitions, BROKER_DEFAULT, config);
  }

  public static TopicSpec of(String name, int partitions) {
    return new TopicSpec(name, partitions, Map.of());
  }
}
