package net.cheetah.bench;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import net.cheetah.schemas.v1.FlowRecord;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * How far event time (a flows.v1 record's end) goes backwards within each partition of a topic, in
 * offset order: what per-partition watermarks with a bounded out-of-orderness have to absorb.
 */
final class OrderCheck {
  private OrderCheck() {}

  /**
   * Reads the committed records of {@code topic} and describes, per partition, the largest step
   * back and how many records end more than {@code boundMs} before the largest end seen before them
   * (records a watermark of that bound would call late).
   */
  static String describe(String bootstrap, String topic, long boundMs) {
    Properties p = new Properties();
    p.put("bootstrap.servers", bootstrap);
    p.put("isolation.level", "read_committed");
    p.put("max.poll.records", "5000");
    StringBuilder out = new StringBuilder("  order of " + topic + " (bound " + boundMs + " ms):");
    try (KafkaConsumer<byte[], byte[]> c =
        new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      List<PartitionInfo> parts = c.partitionsFor(topic);
      List<TopicPartition> tps =
          parts.stream().map(i -> new TopicPartition(topic, i.partition())).toList();
      c.assign(tps);
      c.seekToBeginning(tps);
      Map<TopicPartition, Long> ends = c.endOffsets(tps);
      Map<Integer, long[]> stats = new HashMap<>(); // {records, maxEnd, maxStepBack, beyondBound}
      long deadline = System.nanoTime() + Duration.ofMinutes(5).toNanos();
      while (System.nanoTime() < deadline
          && tps.stream().anyMatch(tp -> c.position(tp) < ends.get(tp) - 1)) {
        for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(500))) {
          long end = FlowRecord.parseFrom(r.value()).getEndMs();
          long[] s =
              stats.computeIfAbsent(r.partition(), k -> new long[] {0, Long.MIN_VALUE, 0, 0});
          s[0]++;
          if (s[1] != Long.MIN_VALUE) {
            long back = s[1] - end;
            s[2] = Math.max(s[2], back);
            s[3] += back > boundMs ? 1 : 0;
          }
          s[1] = Math.max(s[1], end);
        }
      }
      stats.forEach(
          (part, s) ->
              out.append(
                  String.format(
                      Locale.ROOT,
                      " partition %d: %,d records, largest step back %.1f s, %,d beyond the bound;",
                      part,
                      s[0],
                      s[2] / 1e3,
                      s[3])));
    } catch (Exception e) {
      out.append(" unavailable: ").append(e.getMessage());
    }
    return out.toString();
  }
}
