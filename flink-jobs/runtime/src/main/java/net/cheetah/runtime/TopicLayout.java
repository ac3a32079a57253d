package net.cheetah.runtime;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import net.cheetah.core.Topics;
import org.apache.kafka.clients.admin.Admin;

/**
 * How each topic of {@link Topics} (schemas/topics.yaml) is laid out on a cluster: partitions by
 * its volume, retention or compaction by its cleanup policy, the manifest's retention floors.
 */
public final class TopicLayout {

  /**
   * Partitions and retention.
   *
   * @param partitions partitions of ordinary topics
   * @param highVolumePartitions partitions of {@link Topics#HIGH_VOLUME} topics
   * @param retention {@code retention.ms} of non-compacted topics
   * @param retentionBytesPerPartition {@code retention.bytes} of non-compacted topics (-1: none)
   * @param replicationFactor copies of each partition ({@link TopicSpec#BROKER_DEFAULT}: the
   *     broker's default)
   * @param minInsyncReplicas {@code min.insync.replicas} of every topic: an acks=all write (every
   *     transactional one) fails unless this many copies have it (0: the broker's default)
   */
  public record Config(
      int partitions,
      int highVolumePartitions,
      Duration retention,
      long retentionBytesPerPartition,
      int replicationFactor,
      int minInsyncReplicas) {

    public Config {
      if (partitions < 1 || highVolumePartitions < 1) {
        throw new IllegalArgumentException("Topic partitions must be >= 1");
      }
      if (retention.isNegative() || retention.isZero()) {
        throw new IllegalArgumentException("Topic retention must be > 0, got " + retention);
      }
      if (retentionBytesPerPartition < -1 || retentionBytesPerPartition == 0) {
        throw new IllegalArgumentException("retention.bytes must be -1 or > 0");
      }
      if (replicationFactor != TopicSpec.BROKER_DEFAULT && replicationFactor < 1) {
        throw new IllegalArgumentException("A replication factor must be >= 1");
      }
      if (minInsyncReplicas < 0
          || (replicationFactor != TopicSpec.BROKER_DEFAULT
              && minInsyncReplicas > replicationFactor)) {
        throw new IllegalArgumentException(
            "min.insync.replicas must be in 0.."
                + replicationFactor
                + ", got "
                + minInsyncReplicas);
      }
    }

    /** One machine: 1 partition (2 for high-volume topics), 2 days or 1 GiB per partition. */
    public static Config embedded() {
      return new Config(1, 2, Duration.ofDays(2), 1L << 30, TopicSpec.BROKER_DEFAULT, 0);
    }

    /**
     * A replicated cluster ({@code ./cheetah cluster}: three brokers): {@code replicas} copies of
     * each partition, of which a write needs {@code replicas - 1} (with three brokers, one may be
     * down without stopping a producer, and no acknowledged write lives on one broker only).
     */
    public static Config replicated(int replicas) {
      return embedded().withReplication(replicas, Math.max(1, replicas - 1));
    }

    public Config withReplication(int replicas, int minInsync) {
      return new Config(
          partitions,
          highVolumePartitions,
          retention,
          retentionBytesPerPartition,
          replicas,
          minInsync);
    }

    public Config withPartitions(int ordinary, int highVolume) {
      return new Config(
          ordinary,
          highVolume,
          retention,
          retentionBytesPerPartition,
          replicationFactor,
          minInsyncReplicas);
    }

    public Config withRetention(Duration time, long bytesPerPartition) {
      return new Config(
          partitions,
          highVolumePartitions,
          time,
          bytesPerPartition,
          replicationFactor,
          minInsyncReplicas);
    }
  }

  private final Config config;

  public TopicLayout(Config config) {
    this.config = config;
  }

  /** One spec per topic of {@link Topics#ALL}, in that order. */
  public List<TopicSpec> specs() {
    List<TopicSpec> specs = new ArrayList<>();
    for (String name : Topics.ALL) {
      int partitions =
          Topics.HIGH_VOLUME.contains(name) ? config.highVolumePartitions() : config.partitions();
      Duration floor = Topics.MIN_RETENTION.get(name);
      boolean longer = floor != null && floor.compareTo(config.retention()) > 0;
      Map<String, String> topicConfig = new java.util.HashMap<>();
      topicConfig.putAll(
          Topics.COMPACTED.contains(name)
              ? Map.of("cleanup.policy", "compact")
              : Map.of(
                  "cleanup.policy",
                  "delete",
                  "retention.ms",
                  String.valueOf(longer ? floor.toMillis() : config.retention().toMillis()),
                  "retention.bytes",
                  longer ? "-1" : String.valueOf(config.retentionBytesPerPartition())));
      if (config.minInsyncReplicas() > 0) {
        topicConfig.put("min.insync.replicas", String.valueOf(config.minInsyncReplicas()));
      }
      specs.add(new TopicSpec(name, partitions, config.replicationFactor(), topicConfig));
    }
    return specs;
  }

  /** Creates the missing topics on the embedded broker; returns the names it created. */
  public Set<String> createAll(EmbeddedKafka kafka) {
    return kafka.createTopics(specs());
  }

  /** Creates the missing topics on any cluster; returns the names it created. */
  public Set<String> createAll(Admin admin, Duration timeout) {
    return TopicCreator.createMissing(admin, specs(), timeout);
  }
}
