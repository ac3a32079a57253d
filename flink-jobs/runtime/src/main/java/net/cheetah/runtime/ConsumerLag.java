package net.cheetah.runtime;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;

/**
 * How far the consumer groups whose id starts with a prefix are behind the committed end of the
 * partitions they read: 0 means they consumed everything committed.
 */
public final class ConsumerLag {
  private ConsumerLag() {}

  /**
   * Records committed but not consumed yet, summed over the groups starting with {@code
   * groupPrefix}; -1 when unknown (no such group yet, or the broker did not answer). The last
   * transaction's commit marker takes one offset that a consumer does not commit past: one behind
   * the end counts as caught up.
   */
  public static long of(Admin admin, String groupPrefix) {
    return of(admin, groupPrefix, Map.of());
  }

  /**
   * {@link #of(Admin, String)} on brokers that need client credentials: {@code security}, the
   * admin's (docs/DEPLOY.md, "Security"), also for the consumer that reads unclear ranges.
   */
  public static long of(Admin admin, String groupPrefix, Map<String, String> security) {
    try {
      List<String> groups =
          admin.listConsumerGroups().all().get().stream()
              .map(g -> g.groupId())
              .filter(g -> g.startsWith(groupPrefix))
              .toList();
      if (groups.isEmpty()) {
        return -1;
      }
      long lag = 0;
      Map<TopicPartition, long[]> unclear = new LinkedHashMap<>();
      for (String g : groups) {
        Map<TopicPartition, OffsetAndMetadata> committed =
            admin.listConsumerGroupOffsets(g).partitionsToOffsetAndMetadata().get();
        Map<TopicPartition, OffsetSpec> latest = new LinkedHashMap<>();
        committed.keySet().forEach(tp -> latest.put(tp, OffsetSpec.latest()));
        Map<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> ends =
            admin
                .listOffsets(latest, new ListOffsetsOptions(IsolationLevel.READ_COMMITTED))
                .all()
                .get();
        for (var e : committed.entrySet()) {
          long end = ends.get(e.getKey()).offset();
          long at = e.getValue() == null ? 0 : e.getValue().offset();
          if (end - at > 1) {
            // More than a commit marker between them: committed records, or only a transaction
            // aborted when its writer died (a killed TaskManager's) and its marker, which no
            // consumer ever reads. Only reading the range tells.
            unclear.merge(e.getKey(), new long[] {at, end}, (a, b) -> a[0] <= b[0] ? a : b);
          }
        }
      }
      if (!unclear.isEmpty()) {
        lag += committedRecords(admin, unclear, security);
      }
      return lag;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return -1;
    } catch (Exception e) {
      return -1;
    }
  }

  /**
   * Committed records in the offset range [from, to) of each partition, read with isolation
   * read_committed (aborted records and transaction markers are skipped, as every Cheetah consumer
   * skips them). If the range cannot be read within a few seconds, its whole width counts.
   */
  public static long committedRecords(Admin admin, Map<TopicPartition, long[]> ranges)
      throws Exception {
    return committedRecords(admin, ranges, Map.of());
  }

  /** {@link #committedRecords(Admin, Map)} with client credentials {@code security}. */
  public static long committedRecords(
      Admin admin, Map<TopicPartition, long[]> ranges, Map<String, String> security)
      throws Exception {
    StringBuilder bootstrap = new StringBuilder();
    for (org.apache.kafka.common.Node n : admin.describeCluster().nodes().get()) {
      bootstrap
          .append(bootstrap.length() == 0 ? "" : ",")
          .append(n.host())
          .append(':')
          .append(n.port());
    }
    java.util.Properties p = new java.util.Properties();
    p.putAll(security);
    p.put(
        org.apache.kafka.clients.consumer.ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
        bootstrap.toString());
    p.put(
        org.apache.kafka.clients.consumer.ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    p.put(org.apache.kafka.clients.consumer.ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    org.apache.kafka.common.serialization.ByteArrayDeserializer bytes =
        new org.apache.kafka.common.serialization.ByteArrayDeserializer();
    try (org.apache.kafka.clients.consumer.KafkaConsumer<byte[], byte[]> c =
        new org.apache.kafka.clients.consumer.KafkaConsumer<>(p, bytes, bytes)) {
      c.assign(ranges.keySet());
      ranges.forEach((tp, r) -> c.seek(tp, r[0]));
      long count = 0;
      long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
      while (System.nanoTime() < deadline) {
        for (var r : c.poll(Duration.ofMillis(200))) {
          long[] range = ranges.get(new TopicPartition(r.topic(), r.partition()));
          if (r.offset() < range[1]) {
            count++;
          }
        }
        boolean done = true;
        for (var e : ranges.entrySet()) {
          done &= c.position(e.getKey()) >= e.getValue()[1];
        }
        if (done) {
          return count;
        }
      }
      long width = 0;
      for (long[] r : ranges.values()) {
        width += r[1] - r[0] - 1;
      }
      return Math.max(count, width);
    }
  }

  /**
   * Polls {@link #of} until it is 0 or {@code timeout} passes; returns the last value (0 = caught
   * up, -1 = unknown).
   */
  public static long awaitCaughtUp(Admin admin, String groupPrefix, Duration timeout)
      throws InterruptedException {
    return awaitCaughtUp(admin, groupPrefix, timeout, Map.of());
  }

  /** {@link #awaitCaughtUp(Admin, String, Duration)} with client credentials {@code security}. */
  public static long awaitCaughtUp(
      Admin admin, String groupPrefix, Duration timeout, Map<String, String> security)
      throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    long lag = of(admin, groupPrefix, security);
    while (lag != 0 && System.nanoTime() < deadline) {
      Thread.sleep(250);
      lag = of(admin, groupPrefix, security);
    }
    return lag;
  }
}
