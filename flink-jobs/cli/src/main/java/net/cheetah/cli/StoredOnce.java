package net.cheetah.cli;

import com.google.protobuf.ByteString;
import com.google.protobuf.InvalidProtocolBufferException;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import net.cheetah.core.Topics;
import net.cheetah.schemas.v1.Alert;
import net.cheetah.schemas.v1.CheetahEvent;
import net.cheetah.schemas.v1.DetectionSource;
import net.cheetah.schemas.v1.FlowRecord;
import net.cheetah.schemas.v1.Flowset;
import net.cheetah.schemas.v1.LinkStats;
import net.cheetah.schemas.v1.RedirectCommand;
import net.cheetah.schemas.v1.Threshold;
import net.cheetah.schemas.v1.Throughput;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * Is every result stored once? Counted in two places, because each sees what the other cannot:
 *
 * <ul>
 *   <li>the result topic, read committed from the start: a sink that writes a record twice (a
 *       broken exactly-once sink, an operator that emits twice) shows as a key with two messages.
 *       The warehouse cannot show this one reliably: ReplacingMergeTree drops rows of the same key
 *       within one insert and in background merges;
 *   <li>the warehouse's table without FINAL, after {@link #stopMerges}: rows inserted twice in
 *       separate inserts (the warehouse's consumer reading a record again) stay visible.
 * </ul>
 *
 * A key is one version of a result ({@code stored_once.sql} explains each). Only the NetFlow
 * cheetahs (the Flink job's) are counted: the probe exports at least once.
 *
 * <p>Which checks apply to a result follows from its topic's delivery in schemas/topics.yaml
 * ({@link Result#topicChecked}): a topic written at least once (thresholds, redirect decisions and
 * commands) may hold a record twice after a Flink restore, by design (docs/ARCHITECTURE.md,
 * "Delivery guarantees"), so only its table is counted; the warehouse skips the repeats.
 */
final class StoredOnce {
  private static final HexFormat HEX = HexFormat.of();

  /** A result: its table, its topic, and the key of one version of it in a topic record. */
  enum Result {
    FLOWS("flows", Topics.FLOWS) {
      @Override
      Optional<String> key(byte[] v) throws InvalidProtocolBufferException {
        FlowRecord r = FlowRecord.parseFrom(v);
        return Optional.of(
            hex(r.getExporter())
                + "/"
                + r.getObservationDomain()
                + " "
                + hex(r.getSrcAddr())
                + ":"
                + r.getSrcPort()
                + ">"
                + hex(r.getDstAddr())
                + ":"
                + r.getDstPort()
                + "/"
                + r.getProto()
                + " "
                + r.getStartMs()
                + "-"
                + r.getEndMs()
                + " "
                + r.getBytes()
                + "B "
                + r.getPackets()
                + "p received "
                + r.getReceivedMs());
      }
    },
    CHEETAHS("cheetahs", Topics.CHEETAHS) {
      @Override
      Optional<String> key(byte[] v) throws InvalidProtocolBufferException {
        CheetahEvent e = CheetahEvent.parseFrom(v);
        return e.getSource() == DetectionSource.DETECTION_SOURCE_NETFLOW
            ? Optional.of(e.getFlowId() + " seq " + e.getSeq())
            : Optional.empty();
      }
    },
    FLOWSETS("flowsets", Topics.FLOWSETS) {
      @Override
      Optional<String> key(byte[] v) throws InvalidProtocolBufferException {
        return Optional.of(Flowset.parseFrom(v).getFlowsetId());
      }
    },
    LINK_STATS("link_stats", Topics.LINKS_STATS) {
      @Override
      Optional<String> key(byte[] v) throws InvalidProtocolBufferException {
        LinkStats s = LinkStats.parseFrom(v);
        return Optional.of(
            s.getLinkId()
                + (s.getSliding() ? " sliding " : " ")
                + s.getWindowStartMs()
                + "-"
                + s.getWindowEndMs());
      }
    },
    THRESHOLDS("thresholds", Topics.THRESHOLDS) {
      @Override
      Optional<String> key(byte[] v) throws InvalidProtocolBufferException {
        Threshold t = Threshold.parseFrom(v);
        return Optional.of(t.getLinkId() + " v" + t.getVersion());
      }
    },
    REDIRECT_DECISIONS("redirect_decisions", Topics.REDIRECTS_DECISIONS) {
      @Override
      Optional<String> key(byte[] v) throws InvalidProtocolBufferException {
        RedirectCommand c = RedirectCommand.parseFrom(v);
        String outcome =
            !c.getRefusal().isEmpty() ? "refused" : c.getDryRun() ? "dry_run" : "published";
        return Optional.of(c.getDeviceId() + " " + c.getCommandId() + " " + outcome);
      }
    },
    REDIRECT_COMMANDS("redirect_commands", Topics.REDIRECTS_COMMANDS) {
      @Override
      Optional<String> key(byte[] v) throws InvalidProtocolBufferException {
        return Optional.of(RedirectCommand.parseFrom(v).getCommandId());
      }
    },
    THROUGHPUT("throughput", Topics.THROUGHPUT) {
      @Override
      Optional<String> key(byte[] v) throws InvalidProtocolBufferException {
        Throughput t = Throughput.parseFrom(v);
        return Optional.of(
            t.getSrcHost()
                + ">"
                + t.getDstHost()
                + (t.getPassive() ? " instance " : " transfer ")
                + t.getStartMs()
                + "-"
                + t.getEndMs());
      }
    },
    ALERTS("alerts", Topics.ALERTS) {
      @Override
      Optional<String> key(byte[] v) throws InvalidProtocolBufferException {
        Alert a = Alert.parseFrom(v);
        return Optional.of(a.getAlertId() + " at " + a.getDetectedMs());
      }
    };

    final String table;
    final String topic;

    Result(String table, String topic) {
      this.table = table;
      this.topic = topic;
    }

    /** The key of one version in a topic record; empty for records not counted here. */
    abstract Optional<String> key(byte[] value) throws InvalidProtocolBufferException;

    /**
     * Whether the topic must hold each key once too: not for a topic written at least once ({@code
     * delivery: at-least-once} in schemas/topics.yaml, {@link Topics#AT_LEAST_ONCE}), where a
     * repeat is the design and only the table must hold each key once.
     */
    boolean topicChecked() {
      return !Topics.AT_LEAST_ONCE.contains(topic);
    }
  }

  /** Items (messages or rows) and distinct keys in one place, with a few keys seen twice. */
  record Count(String where, long items, long keys, List<String> repeated) {
    boolean ok() {
      return items == keys && repeated.isEmpty();
    }

    String line() {
      return where
          + ": "
          + items
          + (items == 1 ? " version" : " versions")
          + (ok() ? ", each key once" : " of " + keys + " keys; repeated: " + repeated);
    }
  }

  private StoredOnce() {}

  /** Stops background merges in the warehouse (stop_merges.sql), for the rest of its run. */
  static void stopMerges(Tools tools, WarehouseClient wh) throws IOException, InterruptedException {
    wh.query(DemoCommand.query(tools, "stop_merges.sql"));
  }

  /**
   * Every result's topic ({@link Result#topicChecked} ones, in the order of the results) and then
   * every result's table, counted.
   */
  static List<Count> count(
      Tools tools, WarehouseClient wh, String bootstrap, Collection<Result> results)
      throws IOException, InterruptedException {
    return count(tools, wh, bootstrap, Map.of(), results);
  }

  /** {@link #count}, reading the topics with the client properties {@code security}. */
  static List<Count> count(
      Tools tools,
      WarehouseClient wh,
      String bootstrap,
      Map<String, String> security,
      Collection<Result> results)
      throws IOException, InterruptedException {
    List<Count> out = new ArrayList<>();
    for (Result r : results) {
      if (r.topicChecked()) {
        out.add(inTopic(bootstrap, security, r, Duration.ofSeconds(60)));
      }
    }
    Map<String, Count> tables = new HashMap<>();
    for (String line : wh.query(DemoCommand.query(tools, "stored_once.sql")).split("\n")) {
      String[] f = line.split("\t", -1);
      if (f.length == 4) {
        String list = f[3].replaceAll("^\\[|\\]$", "");
        List<String> repeated =
            list.isEmpty() ? List.of() : List.of(list.replace("'", "").split(","));
        tables.put(
            f[0],
            new Count(
                "table " + f[0] + " (no FINAL)",
                Long.parseLong(f[1]),
                Long.parseLong(f[2]),
                repeated));
      }
    }
    for (Result r : results) {
      Count c = tables.get(r.table);
      if (c == null) {
        throw new IllegalStateException("stored_once.sql did not count table " + r.table);
      }
      out.add(c);
    }
    return out;
  }

  /** Messages per key on a result topic, read committed from its start to its end. */
  static Count inTopic(String bootstrap, Result r, Duration timeout) {
    return inTopic(bootstrap, Map.of(), r, timeout);
  }

  static Count inTopic(String bootstrap, Map<String, String> security, Result r, Duration timeout) {
    Properties p = new Properties();
    p.putAll(security);
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    p.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "5000");
    Map<String, Integer> perKey = new HashMap<>();
    long messages = 0;
    long undecodable = 0;
    try (KafkaConsumer<byte[], byte[]> c =
        new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      List<TopicPartition> parts = new ArrayList<>();
      for (PartitionInfo i : c.partitionsFor(r.topic, Duration.ofSeconds(30))) {
        parts.add(new TopicPartition(i.topic(), i.partition()));
      }
      c.assign(parts);
      c.seekToBeginning(parts);
      // The end for a read-committed consumer: the last stable offset of each partition.
      Map<TopicPartition, Long> end = c.endOffsets(parts, Duration.ofSeconds(30));
      long deadline = System.nanoTime() + timeout.toNanos();
      while (parts.stream().anyMatch(tp -> c.position(tp) < end.get(tp))) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException(
              "reading " + r.topic + " to its end took longer than " + timeout);
        }
        for (ConsumerRecord<byte[], byte[]> rec : c.poll(Duration.ofMillis(500))) {
          if (rec.offset() >= end.get(new TopicPartition(rec.topic(), rec.partition()))) {
            continue;
          }
          try {
            Optional<String> k = r.key(rec.value());
            if (k.isPresent()) {
              messages++;
              perKey.merge(k.get(), 1, Integer::sum);
            }
          } catch (InvalidProtocolBufferException e) {
            undecodable++; // the warehouse stores these as rejected; not a version of a result
          }
        }
      }
    }
    List<String> repeated =
        perKey.entrySet().stream()
            .filter(e -> e.getValue() > 1)
            .limit(3)
            .map(e -> e.getKey() + " (" + e.getValue() + "x)")
            .toList();
    return new Count(
        "topic "
            + r.topic
            + " (read committed"
            + (undecodable > 0 ? ", " + undecodable + " undecodable" : "")
            + ")",
        messages,
        perKey.size(),
        repeated);
  }

  private static String hex(ByteString b) {
    return HEX.formatHex(b.toByteArray());
  }
}
