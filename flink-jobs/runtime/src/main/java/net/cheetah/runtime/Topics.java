package net.cheetah.runtime;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.admin.Admin;

/**
 * Every Kafka topic of schemas/topics.yaml, with partitions and retention (docs/ARCHITECTURE.md,
 * "Kafka topics").
 */
public final class Topics {

  public static final String FLOWS_GOFLOW2 = net.cheetah.jobs.Topics.GOFLOW2;
  public static final String FLOWS = net.cheetah.jobs.Topics.FLOWS;
  public static final String FLOWS_REJECTED = net.cheetah.jobs.Topics.REJECTED;
  public static final String PROBE_FLIGHTS = net.cheetah.jobs.Topics.PROBE_FLIGHTS;
  public static final String PROBE_BINS = net.cheetah.jobs.Topics.PROBE_BINS;
  public static final String PROBE_PACKETS = net.cheetah.jobs.Topics.PROBE_PACKETS;
  public static final String PROBE_COUNTERS = net.cheetah.jobs.Topics.PROBE_COUNTERS;
  public static final String SNMP_COUNTERS = net.cheetah.jobs.Topics.SNMP_COUNTERS;
  public static final String TRANSFERS = net.cheetah.jobs.Topics.TRANSFERS;
  public static final String CHEETAHS = net.cheetah.jobs.Topics.CHEETAHS;
  public static final String FLOWSETS = net.cheetah.jobs.Topics.FLOWSETS;
  public static final String LINKS_STATS = net.cheetah.jobs.Topics.LINKS_STATS;
  public static final String THRESHOLDS = net.cheetah.jobs.Topics.THRESHOLDS;
  public static final String REDIRECTS_COMMANDS = net.cheetah.jobs.Topics.REDIRECTS_COMMANDS;
  public static final String REDIRECTS_DECISIONS = net.cheetah.jobs.Topics.REDIRECTS_DECISIONS;
  public static final String REDIRECTS_ACKS = net.cheetah.jobs.Topics.REDIRECTS_ACKS;
  public static final String THROUGHPUT = net.cheetah.jobs.Topics.THROUGHPUT;
  public static final String ALERTS = net.cheetah.jobs.Topics.ALERTS;

  /** In the order of schemas/topics.yaml. */
  public static final List<String> ALL =
      List.of(
          FLOWS_GOFLOW2,
          FLOWS,
          FLOWS_REJECTED,
          PROBE_FLIGHTS,
          PROBE_BINS,
          PROBE_PACKETS,
          PROBE_COUNTERS,
          SNMP_COUNTERS,
          TRANSFERS,
          CHEETAHS,
          FLOWSETS,
          LINKS_STATS,
          THRESHOLDS,
          REDIRECTS_COMMANDS,
          REDIRECTS_DECISIONS,
          REDIRECTS_ACKS,
          THROUGHPUT,
          ALERTS);

  /** Raw, per-flow or per-packet topics: the ones worth a second partition. */
  public static final Set<String> HIGH_VOLUME =
      Set.of(FLOWS_GOFLOW2, FLOWS, PROBE_FLIGHTS, PROBE_PACKETS);

  /**
   * Kept at least this long whatever the configured retention: adapters rebuild their device's
   * desired rules from the command topic after a restart (docs/REDIRECTS.md), and prefix filters
   * live up to 30 days.
   */
  public static final Map<String, Duration> MIN_RETENTION =
      Map.of(REDIRECTS_COMMANDS, Duration.ofDays(31));

  /** Keyed by entity, only the latest value matters: compacted, never deleted by age. */
  public static final Set<String> COMPACTED = Set.of(THRESHOLDS);

  /**
   * Partitions and retention.
   *
   * @param partitions partitions of ordinary topics
   * @param highVolumePartitions partitions of {@link #HIGH_VOLUME} topics
   * @param retention {@code retention.ms} of non-compacted topics
   * @param retentionBytesPerPartition {@code retention.bytes} of non-compacted topics (-1: none)
   */
  public record Config(
      int partitions,
      int highVolumePartitions,
      Duration retention,
      long retentionBytesPerPartition) {

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
    }

    /** One machine: 1 partition (2 for high-volume topics), 2 days or 1 GiB per partition. */
    public static Config embedded() {
      return new Config(1, 2, Duration.ofDays(2), 1L << 30);
    }

    public Config withPartitions(int ordinary, int highVolume) {
      return new Config(ordinary, highVolume, retention, retentionBytesPerPartition);
    }

    public Config withRetention(Duration time, long bytesPerPartition) {
      return new Config(partitions, highVolumePartitions, time, bytesPerPartition);
    }
  }

  private final Config config;

  public Topics(Config config) {
    this.config = config;
  }

  /** One spec per topic of {@link #ALL}, in that order. */
  public List<TopicSpec> specs() {
    List<TopicSpec> specs = new ArrayList<>();
    for (String name : ALL) {
      int partitions =
          HIGH_VOLUME.contains(name) ? config.highVolumePartitions() : config.partitions();
      Duration floor = MIN_RETENTION.get(name);
      boolean longer = floor != null && floor.compareTo(config.retention()) > 0;
      Map<String, String> topicConfig =
          COMPACTED.contains(name)
              ? Map.of("cleanup.policy", "compact")
              : Map.of(
                  "cleanup.policy",
                  "delete",
                  "retention.ms",
                  String.valueOf(longer ? floor.toMillis() : config.retention().toMillis()),
                  "retention.bytes",
                  longer ? "-1" : String.valueOf(config.retentionBytesPerPartition()));
      specs.add(new TopicSpec(name, partitions, topicConfig));
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
