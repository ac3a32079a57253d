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
          lag += Math.max(0, end - at - 1);
        }
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
   * Polls {@link #of} until it is 0 or {@code timeout} passes; returns the last value (0 = caught
   * up, -1 = unknown).
   */
  public static long awaitCaughtUp(Admin admin, String groupPrefix, Duration timeout)
      throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    long lag = of(admin, groupPrefix);
    while (lag != 0 && System.nanoTime() < deadline) {
      Thread.sleep(250);
      lag = of(admin, groupPrefix);
    }
    return lag;
  }
}
