package net.cheetah.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Random;
import net.cheetah.core.Topics;
import net.cheetah.jobs.LinkStatsJob;
import net.cheetah.runtime.Wait;
import net.cheetah.schemas.v1.LinkBin;
import net.cheetah.schemas.v1.SnmpCounters;
import net.cheetah.schemas.v1.Threshold;
import net.cheetah.schemas.v1.ThresholdMode;
import net.cheetah.simulator.CongestionControl;
import net.cheetah.simulator.LossTableBuilder;
import net.cheetah.simulator.PointRunner;
import net.cheetah.simulator.PortConfig;
import net.cheetah.simulator.TcpCheetah;
import net.cheetah.threshold.BackgroundTag;
import net.cheetah.threshold.LossTable;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;

/**
 * probe.bins.v1 (+ snmp.counters.v1) → the link-statistics job → links.stats.v1 → the warehouse's
 * link_stats, in the embedded stack: every complete T2 window is stored once, with background rate,
 * burstiness and utilisation equal to the values computed here from the bins sent; and the
 * threshold job turns them into R per link on thresholds.v1, read here as a probe would: by the
 * formula, and in table mode from a loss table the simulator builds while the job runs.
 */
@Tag("integration")
class LinkStatsEndToEndTest {
  static final String TEST = "link-stats";
  static final long T1 = 100;
  static final long T2 = 10_000;

  @TempDir(cleanup = CleanupMode.ON_SUCCESS)
  Path dir;

  @Test
  void completeWindowsOfBinsBecomeLinkStatisticsInTheWarehouse() throws Exception {
    Tools tools = EndToEnd.tools();
    Map<String, String> settings =
        Map.of(
            "link-stats.t2-ms", Long.toString(T2),
            "link-stats.sliding-every-ms", "0",
            "link-stats.lateness-ms", "1000",
            // Every window publishes R, so the newest R is the last window's.
            "thresholds.min-change", "0");
    long t0 = (System.currentTimeMillis() / T2) * T2 - 6 * T2;
    Random random = new Random(7);
    // Two links, 25.5 s of bins: windows [t0, t0+10 s) and [t0+10 s, t0+20 s) complete; the third
    // needs bins up to t0 + 31 s and stays open.
    List<LinkBin> bins = new ArrayList<>();
    for (String link : List.of("esnet-a", "esnet-b")) {
      for (long t = t0; t < t0 + 25_500; t += T1) {
        long bytes = 1_000_000 + random.nextInt(9_000_000);
        long cheetah = random.nextInt(4) == 0 ? bytes / 2 : 0;
        bins.add(
            LinkBin.newBuilder()
                .setLinkId(link)
                .setProbeId("probe-1")
                .setBinStartMs(t)
                .setBinMs((int) T1)
                .setBytes(bytes)
                .setPackets(bytes / 1000)
                .setCheetahBytes(cheetah)
                .build());
      }
    }
    try (Stack stack = started(tools, settings)) {
      try (KafkaProducer<byte[], byte[]> producer = EndToEnd.producer(stack.bootstrap())) {
        // esnet-b is a 10 Gb/s interface by SNMP; esnet-a keeps the default C (1 Gb/s).
        SnmpCounters speed =
            SnmpCounters.newBuilder()
                .setLinkId("esnet-b")
                .setDevice("r1")
                .setPolledMs(t0)
                .setIfHighSpeedMbps(10_000)
                .build();
        producer
            .send(new ProducerRecord<>(Topics.SNMP_COUNTERS, key("esnet-b"), speed.toByteArray()))
            .get();
        awaitConsumed(stack.bootstrap(), Topics.SNMP_COUNTERS);
        for (LinkBin b : bins) {
          producer.send(
              new ProducerRecord<>(Topics.PROBE_BINS, key(b.getLinkId()), b.toByteArray()));
        }
        producer.flush();
      }
      WarehouseClient wh = new WarehouseClient(stack.warehouseUrl());
      String sql =
          "SELECT link_id, toUnixTimestamp64Milli(window_start_at), bins, mean_bg_bps, burstiness,"
              + " utilization, capacity_bps FROM link_stats FINAL WHERE NOT sliding"
              + " ORDER BY link_id, window_start_at FORMAT TSV";
      List<String[]> rows =
          Wait.forValue(
              "4 link statistics windows in the warehouse",
              Duration.ofMinutes(2),
              Duration.ofSeconds(1),
              () -> {
                try {
                  List<String[]> r = wh.query(sql).lines().map(l -> l.split("\t")).toList();
                  return r.size() >= 4 ? Optional.of(r) : Optional.empty();
                } catch (Exception e) {
                  return Optional.empty();
                }
              });
      assertThat(rows).hasSize(4);
      int i = 0;
      for (String link : List.of("esnet-a", "esnet-b")) {
        for (long w = t0; w < t0 + 2 * T2; w += T2, i++) {
          String[] row = rows.get(i);
          long from = w;
          List<LinkBin> mine =
              bins.stream()
                  .filter(
                      b ->
                          b.getLinkId().equals(link)
                              && b.getBinStartMs() >= from
                              && b.getBinStartMs() < from + T2)
                  .toList();
          double[] bg =
              mine.stream().mapToDouble(b -> b.getBytes() - b.getCheetahBytes()).toArray();
          double mean = java.util.Arrays.stream(bg).average().orElseThrow();
          double sd =
              Math.sqrt(
                  java.util.Arrays.stream(bg).map(x -> (x - mean) * (x - mean)).sum() / bg.length);
          double all = mine.stream().mapToDouble(LinkBin::getBytes).sum();
          double capacity = link.equals("esnet-b") ? 1e10 : 1e9;
          assertThat(row[0]).isEqualTo(link);
          assertThat(Long.parseLong(row[1])).isEqualTo(w);
          assertThat(Long.parseLong(row[2])).isEqualTo(100);
          assertThat(Double.parseDouble(row[3])).isCloseTo(mean * 8 / (T1 / 1000.0), within(1e-3));
          assertThat(Double.parseDouble(row[4])).isCloseTo(sd / mean, within(1e-9));
          assertThat(Double.parseDouble(row[5]))
              .isCloseTo(all * 8 / (T2 / 1000.0) / capacity, within(1e-9));
          assertThat(Double.parseDouble(row[6])).isEqualTo(capacity);
        }
      }
      // The probe's side: the newest R per link, from the compacted topic, equals the formula on
      // the last window (k = 1, alpha_min 0.1): R = max(0.1, 1/(1 + b)) (C - mean background).
      Map<String, Threshold> latest = latestThresholds(stack.bootstrap(), 2);
      for (int l = 0; l < 2; l++) {
        String[] last = rows.get(2 * l + 1);
        double b = Double.parseDouble(last[4]);
        double r =
            Math.max(0.1, 1 / (1 + b))
                * (Double.parseDouble(last[6]) - Double.parseDouble(last[3]));
        Threshold t = latest.get(last[0]);
        assertThat(t.getRateBps()).isCloseTo(r, within(1e-3 * r));
        assertThat(t.getVersion()).isGreaterThanOrEqualTo(1);
        assertThat(t.getReason()).startsWith("R = α_bg");
      }
      EndToEnd.assertStoredOnce(
          stack, tools, StoredOnce.Result.LINK_STATS, StoredOnce.Result.THRESHOLDS);
      EndToEnd.assertNoRestarts(stack);
    }
  }

  /**
   * Table mode: the first window's tag has no loss table, so its R is the formula's while the
   * simulator builds one off the hot path; then R is the table's. The table is built again here by
   * the simulator (seeded: the same table) from a plan written out by hand, for the tag
   * thresholds.v1 reports; R is then read off it by hand from the definition, and the loss the job
   * reports at R shows that it used that table.
   */
  @Test
  void tableModeSimulatesALossTableForTheTagAndPublishesItsRate() throws Exception {
    Tools tools = EndToEnd.tools();
    Map<String, String> settings =
        Map.of(
            "link-stats.t2-ms", Long.toString(T2),
            "link-stats.sliding-every-ms", "0",
            "link-stats.lateness-ms", "1000",
            "thresholds.mode", "table",
            // Tolerances so wide that the first table serves every later window too.
            "thresholds.epsilon-rate", "1e9",
            "thresholds.epsilon-burstiness", "10",
            // A tiny simulator plan: 3 rates, 2 runs of 2 s each.
            "thresholds.table-rates", "0.2,0.5,0.8",
            "thresholds.table-runs", "2",
            "thresholds.table-seconds", "2");
    long t0 = (System.currentTimeMillis() / T2) * T2 - 6 * T2;
    Random random = new Random(11);
    List<LinkBin> bins = new ArrayList<>();
    // 15.5 s of bins: the window [t0, t0 + 10 s) completes (it needs bins up to its end + 1 s).
    for (long t = t0; t < t0 + 15_500; t += T1) {
      long bytes = 1_000_000 + random.nextInt(9_000_000);
      bins.add(
          LinkBin.newBuilder()
              .setLinkId("esnet-t")
              .setProbeId("probe-1")
              .setBinStartMs(t)
              .setBinMs((int) T1)
              .setBytes(bytes)
              .setPackets(bytes / 1000)
              .build());
    }
    try (Stack stack = started(tools, settings)) {
      try (KafkaProducer<byte[], byte[]> producer = EndToEnd.producer(stack.bootstrap())) {
        for (LinkBin b : bins) {
          producer.send(new ProducerRecord<>(Topics.PROBE_BINS, key("esnet-t"), b.toByteArray()));
        }
        producer.flush();
      }
      List<Threshold> versions =
          thresholdsUntil(
              stack.bootstrap(),
              "a threshold from a loss table",
              v -> v.stream().anyMatch(t -> t.getMode() == ThresholdMode.THRESHOLD_MODE_TABLE));

      for (Threshold t : versions) {
        EndToEnd.say(
            TEST,
            "v"
                + t.getVersion()
                + " "
                + t.getMode()
                + " R="
                + t.getRateBps()
                + ": "
                + t.getReason());
      }
      // The first window: its statistics by hand, R by the formula while the table is built.
      Threshold first = versions.get(0);
      double[] bg =
          bins.stream()
              .filter(b -> b.getBinStartMs() < t0 + T2)
              .mapToDouble(LinkBin::getBytes)
              .toArray();
      double mean = java.util.Arrays.stream(bg).average().orElseThrow();
      double sd =
          Math.sqrt(
              java.util.Arrays.stream(bg).map(x -> (x - mean) * (x - mean)).sum() / bg.length);
      assertThat(first.getVersion()).isEqualTo(1);
      assertThat(first.getMode()).isEqualTo(ThresholdMode.THRESHOLD_MODE_FORMULA);
      assertThat(first.getMeanBgBps()).isCloseTo(mean * 8 / (T1 / 1000.0), within(1e-3));
      assertThat(first.getBurstiness()).isCloseTo(sd / mean, within(1e-9));
      assertThat(first.getReason()).contains("build one (requested); until a table matches");

      LossTable table;
      try (PointRunner runner = new PointRunner(1)) {
        table =
            new LossTableBuilder(
                    new LossTableBuilder.Plan(
                        new PortConfig(1e9, 5_000_000, 5_000_000),
                        0.5,
                        0.1,
                        List.of(200e6, 500e6, 800e6),
                        TcpCheetah.study(0, 0.1, CongestionControl.HTCP),
                        2,
                        1,
                        2,
                        0.2,
                        0.1),
                    runner)
                .build(new BackgroundTag(first.getMeanBgBps(), first.getBurstiness()));
      }
      // R by hand from the definition (docs/SIMULATOR.md, table mode; not TableThreshold): with
      // l_acpt = 0.001 (the default) and the floor 0 (the default), R is the largest table rate
      // r such that every rate up to r (each with its worst row) loses at most l_acpt; when even
      // the lowest loses more, R is the floor and the loss reported is the lowest rate's.
      double lAcpt = 0.001;
      java.util.TreeMap<Double, Double> worst = new java.util.TreeMap<>();
      for (LossTable.Row row : table.rows()) {
        worst.merge(row.cheetahRateBps(), row.lossRate(), Math::max);
        EndToEnd.say(TEST, "table row: " + row.cheetahRateBps() + " b/s loses " + row.lossRate());
      }
      double expectedR =
          worst.keySet().stream()
              .filter(r -> worst.headMap(r, true).values().stream().allMatch(l -> l <= lAcpt))
              .mapToDouble(Double::doubleValue)
              .max()
              .orElse(0);
      double expectedLoss = worst.getOrDefault(expectedR, worst.firstEntry().getValue());
      EndToEnd.say(TEST, "R by hand: " + expectedR + " b/s (loss " + expectedLoss + ")");
      List<Threshold> fromTable =
          versions.stream().filter(t -> t.getMode() == ThresholdMode.THRESHOLD_MODE_TABLE).toList();
      for (Threshold t : fromTable) {
        assertThat(t.getRateBps()).as("R from the table").isEqualTo(expectedR);
        // The loss the job reports is the one this table gives at R: the job used this table.
        assertThat(t.getMeasuredLoss()).as("loss at R").isEqualTo(expectedLoss);
        assertThat(t.getLossAcceptable()).isEqualTo(lAcpt);
        assertThat(t.getReason()).contains("l_acpt");
      }
      assertThat(fromTable.get(0).getReason()).startsWith("a loss table arrived");
      assertThat(expectedR).isIn(0.0, 200e6, 500e6, 800e6);
      EndToEnd.assertNoRestarts(stack);
    }
  }

  /** Every version of thresholds.v1, read from the start, once {@code done} holds for them. */
  private static List<Threshold> thresholdsUntil(
      String bootstrap, String what, java.util.function.Predicate<List<Threshold>> done) {
    Properties c = new Properties();
    c.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    c.put(ConsumerConfig.GROUP_ID_CONFIG, "table-mode-reader");
    c.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    List<Threshold> seen = new ArrayList<>();
    try (KafkaConsumer<byte[], byte[]> consumer =
        new KafkaConsumer<>(c, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      consumer.subscribe(List.of(Topics.THRESHOLDS));
      return Wait.forValue(
          what + " on " + Topics.THRESHOLDS,
          Duration.ofMinutes(2),
          Duration.ofMillis(100),
          () -> {
            for (var r : consumer.poll(Duration.ofMillis(200))) {
              try {
                seen.add(Threshold.parseFrom(r.value()));
              } catch (com.google.protobuf.InvalidProtocolBufferException e) {
                throw new AssertionError("undecodable threshold", e);
              }
            }
            seen.sort(java.util.Comparator.comparingLong(Threshold::getVersion));
            return done.test(seen) ? Optional.of(List.copyOf(seen)) : Optional.empty();
          });
    }
  }

  /** Reads thresholds.v1 from the start until {@code links} links have a threshold at the end. */
  private static Map<String, Threshold> latestThresholds(String bootstrap, int links) {
    Properties c = new Properties();
    c.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    c.put(ConsumerConfig.GROUP_ID_CONFIG, "probe-stand-in");
    c.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    Map<String, Threshold> latest = new java.util.HashMap<>();
    try (KafkaConsumer<byte[], byte[]> consumer =
        new KafkaConsumer<>(c, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      consumer.subscribe(List.of(Topics.THRESHOLDS));
      return Wait.forValue(
          "R for " + links + " links on " + Topics.THRESHOLDS,
          Duration.ofMinutes(1),
          Duration.ofMillis(100),
          () -> {
            for (var r : consumer.poll(Duration.ofMillis(200))) {
              try {
                Threshold t = Threshold.parseFrom(r.value());
                Threshold before = latest.get(t.getLinkId());
                if (before == null || before.getVersion() < t.getVersion()) {
                  latest.put(t.getLinkId(), t);
                }
              } catch (com.google.protobuf.InvalidProtocolBufferException e) {
                throw new AssertionError("undecodable threshold", e);
              }
            }
            return latest.size() >= links
                    && consumer.assignment().stream().allMatch(tp -> caughtUp(consumer, tp))
                ? Optional.of(Map.copyOf(latest))
                : Optional.empty();
          });
    }
  }

  private static boolean caughtUp(
      KafkaConsumer<byte[], byte[]> consumer, org.apache.kafka.common.TopicPartition tp) {
    long end = consumer.endOffsets(List.of(tp)).get(tp);
    return consumer.position(tp) >= end;
  }

  private static byte[] key(String link) {
    return link.getBytes(StandardCharsets.UTF_8);
  }

  /** A stack on free ports under this test's directory, started. */
  private Stack started(Tools tools, Map<String, String> settings) throws Exception {
    Stack stack =
        new Stack(
            EndToEnd.config(settings),
            tools,
            dir.resolve("stack"),
            true,
            s -> EndToEnd.say(TEST, s));
    try {
      stack.start();
      EndToEnd.stopMerges(stack, tools);
    } catch (Exception | Error e) {
      stack.close();
      throw e;
    }
    return stack;
  }

  /**
   * Waits until the link-statistics job has committed an offset past the first record of a topic.
   */
  private static void awaitConsumed(String bootstrap, String topic) {
    Properties p = new Properties();
    p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    try (Admin admin = Admin.create(p)) {
      Wait.forValue(
          LinkStatsJob.NAME + " consuming " + topic,
          Duration.ofMinutes(1),
          Duration.ofMillis(200),
          () -> {
            try {
              var offsets =
                  admin
                      .listConsumerGroupOffsets(LinkStatsJob.NAME)
                      .partitionsToOffsetAndMetadata()
                      .get();
              long committed =
                  offsets.entrySet().stream()
                      .filter(e -> e.getKey().topic().equals(topic) && e.getValue() != null)
                      .mapToLong(e -> e.getValue().offset())
                      .sum();
              return committed >= 1 ? Optional.of(committed) : Optional.empty();
            } catch (Exception e) {
              return Optional.empty();
            }
          });
    }
  }
}
