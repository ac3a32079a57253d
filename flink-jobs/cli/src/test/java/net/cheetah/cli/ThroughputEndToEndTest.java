package net.cheetah.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.google.protobuf.ByteString;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import net.cheetah.config.CheetahConfig;
import net.cheetah.core.Topics;
import net.cheetah.jobs.ThroughputJob;
import net.cheetah.runtime.Wait;
import net.cheetah.schemas.v1.Alert;
import net.cheetah.schemas.v1.FlowRecord;
import net.cheetah.schemas.v1.FlowSource;
import net.cheetah.schemas.v1.Throughput;
import net.cheetah.schemas.v1.Transfer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;

/**
 * flows.v1 + transfers.v1 → the throughput job → throughput.v1 and alerts.v1, on a real broker and
 * a Flink MiniCluster, across a restore from a retained checkpoint (the job's cluster closed
 * mid-stream, without a savepoint, then started again on the same data directory): every expected
 * row and alert is read back exactly once, with values worked out by hand below.
 *
 * <p>One partition per topic, so that the job reads records in the order they are sent and no
 * partition without records sits out of event time. The workload, 8 slots 10 minutes apart
 * (yesterday from 10:00 UTC). Sites are /24s, so the pairs A → B (10.0.1.1 → 10.0.2.1) and C → D
 * (10.0.1.2 → 10.0.2.2) are peers.
 *
 * <ul>
 *   <li>A → B flows in slot i, with v = 2.0, 2.2, 1.8, 2.0, 0.5, 0.5, 0.5, 0.5 Gbit/s: stream 1 [s,
 *       s + 10 s] of 0.625·v bytes (at v/2; in slot 0 cut into two records at s + 5 s, which the
 *       job stitches), stream 2 [s + 1 s, s + 21 s] of 1.25·v bytes (at v/2), and a control flow
 *       [s, s + 22 s] of 1000 bytes (under 1% of the largest). One instance of 2 streams: (1) v/2 +
 *       v/2 = v; (2) 8·1.875·v / 15 s = v; (3) 8·1.875·v / 20 s = 0.75·v.
 *   <li>Transfers (iperf3, 20 s, [s, s + 21 s]): A → B 2 streams at 1.6 Gbit/s, C → D 8 streams at
 *       8 Gbit/s; in slot 7 both slow: 0.4 and 2 Gbit/s. A → B's transfers of slots 2 and 1 are
 *       sent again (in slots 2 and 3), as a transfer log shipped twice would: they count once.
 * </ul>
 *
 * Forecast window 3, EWMA weight 0.7, band 2 sd, step window 2 (t ≥ 5, change ≥ 20%):
 *
 * <ul>
 *   <li>netflow A → B: slot 3's forecast is mean(2.0, 2.2, 1.8) = 2.0, EWMA 0.7·(0.7·2.0 + 0.3·2.2)
 *       + 0.3·1.8 = 1.982; slot 4 (0.5) lies outside mean(2.2, 1.8, 2.0) = 2.0 ± 2·0.2: an
 *       outside_band alert; slots 5-7 stay inside (sd 0.81, 0.87, then |0.5 - 0.5| = 0). A step at
 *       slot 4: before (1.8, 2.0) = 1.9, after (0.5, 0.5), pooled sd √((0.01 + 0.01)/2) = 0.1, t =
 *       1.4 / (0.1·√(1/2 + 1/2)) = 14; no other candidate passes (slot 2: change 9.5%; slot 3: t
 *       0.97; slot 5: t 1).
 *   <li>iperf3 series: constant, then slot 7 off a band of sd 0: one outside_band alert per pair.
 *   <li>PRCA (peer window 60 s): the reference is C → D's cluster (median 8 Gbit/s); A → B's
 *       cluster (median 1.6 &lt; 0.8·8) is slow for a static reason, "streams 2 (best 8)", reported
 *       with each of its transfers from slot 1 on (slot 0 had no reference yet): 7 records of one
 *       alert. In slot 7, C → D's slow transfer (2 &lt; 0.8·8) comes with A → B's slow one (0.4
 *       &lt; 0.8·1.6) within 60 s: network reports for both (one record each, published when C →
 *       D's is taken; A → B's came first and had no peer yet).
 * </ul>
 */
@Tag("integration")
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class ThroughputEndToEndTest {
  static final String TEST = "throughput";
  static final long SLOT = 600_000;
  static final String A = "10.0.1.1";
  static final String B = "10.0.2.1";
  static final String C = "10.0.1.2";
  static final String D = "10.0.2.2";
  static final double[] V = {2.0e9, 2.2e9, 1.8e9, 2.0e9, 0.5e9, 0.5e9, 0.5e9, 0.5e9};

  @TempDir(cleanup = CleanupMode.ON_SUCCESS)
  Path dir;

  private final List<String> said = Collections.synchronizedList(new ArrayList<>());

  @Test
  void instancesTransfersAndAlertsArePublishedOnceAcrossACheckpointRestore() throws Exception {
    long started = System.nanoTime();
    long t0 = EndToEnd.yesterdayAt(10 * 3_600_000L);
    CheetahConfig cfg =
        EndToEnd.config(
            Map.ofEntries(
                Map.entry("kafka.partitions", "1"),
                Map.entry("detection.gap-ms", "1000"),
                Map.entry("detection.active-timeout-ms", "1000"),
                Map.entry("detection.out-of-orderness-ms", "0"),
                Map.entry("detection.idle-advance-ms", "1000"),
                Map.entry("flink.checkpoint-interval-ms", "500"),
                Map.entry("throughput.forecast-window", "3"),
                Map.entry("throughput.step-window", "2"),
                Map.entry("throughput.peer-window-ms", "60000")));
    Path data = dir.resolve("data");
    Broker broker = new Broker(cfg.kafka(), data, true, this::say);
    broker.start();
    try (KafkaProducer<byte[], byte[]> producer = EndToEnd.producer(broker.bootstrap())) {
      // The first half, then the job's cluster closes once some of it is committed (no savepoint:
      // the next run resumes from the newest retained checkpoint).
      try (FlinkJobs jobs =
          EndToEnd.startJob(new ThroughputJob(), cfg, data, broker.bootstrap(), this::say)) {
        sendSlots(producer, t0, 0, 4);
        Wait.until(
            "some throughput rows committed before the crash",
            Duration.ofMinutes(1),
            Duration.ofMillis(100),
            () -> EndToEnd.readCommitted(broker.bootstrap(), Topics.THROUGHPUT).size() >= 3);
      }
      try (FlinkJobs jobs =
          EndToEnd.startJob(new ThroughputJob(), cfg, data, broker.bootstrap(), this::say)) {
        assertThat(said).anyMatch(s -> s.startsWith("resuming " + ThroughputJob.NAME + " from"));
        sendSlots(producer, t0, 4, 8);
        long s7 = t0 + 7 * SLOT;
        // Complete: slot 7's instance and both its transfers (the last rows of each operator).
        List<Throughput> rows =
            awaitExactly(
                    broker.bootstrap(),
                    Topics.THROUGHPUT,
                    24,
                    got -> got.stream().filter(r -> throughput(r).getStartMs() == s7).count() >= 3)
                .stream()
                .map(ThroughputEndToEndTest::throughput)
                .toList();
        // Complete: every alert id expected, and the slow cluster's seventh report.
        List<String> ids =
            List.of(
                "outside_band/" + A + "/" + B + "/netflow/" + (t0 + 4 * SLOT),
                "step/" + A + "/" + B + "/netflow/" + (t0 + 4 * SLOT),
                "outside_band/" + A + "/" + B + "/iperf3/" + s7,
                "outside_band/" + C + "/" + D + "/iperf3/" + s7,
                "prca/transfer/" + A + "/" + B + "/iperf3/" + s7,
                "prca/transfer/" + C + "/" + D + "/iperf3/" + s7);
        List<Alert> alerts =
            awaitExactly(
                    broker.bootstrap(),
                    Topics.ALERTS,
                    13,
                    got -> {
                      List<String> have = got.stream().map(r -> alert(r).getAlertId()).toList();
                      return have.containsAll(ids)
                          && have.stream().filter(a -> a.startsWith("prca/cluster/")).count() >= 7;
                    })
                .stream()
                .map(ThroughputEndToEndTest::alert)
                .toList();
        checkInstances(rows, t0);
        checkTransfers(rows, t0);
        checkAlerts(alerts, t0);
        assertThat(jobs.failure()).isNotDone();
      }
    } finally {
      broker.stop();
    }
    EndToEnd.say(TEST, String.format("passed in %.1f s", (System.nanoTime() - started) / 1e9));
  }

  private static void checkInstances(List<Throughput> rows, long t0) {
    List<Throughput> passive =
        rows.stream()
            .filter(Throughput::getPassive)
            .sorted(Comparator.comparingLong(Throughput::getStartMs))
            .toList();
    assertThat(passive).as("one row per application instance").hasSize(8);
    for (int i = 0; i < 8; i++) {
      Throughput r = passive.get(i);
      long s = t0 + i * SLOT;
      double v = V[i];
      assertThat(r.getSrcHost() + " -> " + r.getDstHost()).isEqualTo(A + " -> " + B);
      assertThat(r.getStartMs()).as("instance %d start", i).isEqualTo(s);
      assertThat(r.getEndMs()).as("instance %d end (streams only)", i).isEqualTo(s + 21_000);
      assertThat(r.getStreams()).as("instance %d streams (control flow left out)", i).isEqualTo(2);
      assertThat(r.getBytes()).isEqualTo(Math.round(1.875 * v));
      assertThat(r.getSumStreamBps()).as("formula 1").isCloseTo(v, within(1e-3));
      assertThat(r.getMeanTimeBps()).as("formula 2").isCloseTo(v, within(1e-3));
      assertThat(r.getMaxTimeBps()).as("formula 3").isCloseTo(0.75 * v, within(1e-3));
      boolean fitted = i >= 3; // 4 points of the day
      assertThat(Double.isNaN(r.getDiurnalC()))
          .as("diurnal fit of instance %d", i)
          .isEqualTo(!fitted);
    }
    // Instance 0 by hand: 1.25e9 + 2.5e9 bytes; (1) 8·1.25e9/10 + 8·2.5e9/20 = 2e9,
    // (2) 8·3.75e9 / 15 = 2e9, (3) 8·3.75e9 / 20 = 1.5e9.
    assertThat(passive.get(0).getBytes()).isEqualTo(3_750_000_000L);
    assertThat(passive.get(0).getMaxTimeBps()).isEqualTo(1.5e9);
    assertThat(passive.get(0).getForecastEwmaBps()).isNaN();
    assertThat(passive.get(1).getForecastEwmaBps()).isCloseTo(2.0e9, within(1e-3));
    assertThat(passive.get(2).getForecastMean5Bps()).isNaN();
    assertThat(passive.get(3).getForecastMean5Bps()).isCloseTo(2.0e9, within(1e-3));
    assertThat(passive.get(3).getForecastEwmaBps()).isCloseTo(1.982e9, within(1e-3));
    assertThat(passive.get(4).getForecastMean5Bps()).isCloseTo(2.0e9, within(1e-3));
    assertThat(passive.get(6).getForecastMean5Bps()).isCloseTo(1.0e9, within(1e-3));
  }

  private static void checkTransfers(List<Throughput> rows, long t0) {
    List<Throughput> active = rows.stream().filter(r -> !r.getPassive()).toList();
    assertThat(active).as("one row per logged transfer").hasSize(16);
    for (String[] pair :
        List.of(
            new String[] {A, B, "2", "1.6e9", "0.4e9"}, new String[] {C, D, "8", "8e9", "2e9"})) {
      List<Throughput> mine =
          active.stream()
              .filter(r -> r.getSrcHost().equals(pair[0]) && r.getDstHost().equals(pair[1]))
              .sorted(Comparator.comparingLong(Throughput::getStartMs))
              .toList();
      assertThat(mine).hasSize(8);
      for (int i = 0; i < 8; i++) {
        double bps = Double.parseDouble(i == 7 ? pair[4] : pair[3]);
        Throughput r = mine.get(i);
        assertThat(r.getStartMs()).isEqualTo(t0 + i * SLOT);
        assertThat(r.getStreams()).isEqualTo(Integer.parseInt(pair[2]));
        assertThat(r.getSumStreamBps()).isCloseTo(bps, within(1e-3));
        assertThat(r.getMaxTimeBps()).isCloseTo(bps, within(1e-3));
      }
      assertThat(mine.get(7).getForecastMean5Bps())
          .isCloseTo(Double.parseDouble(pair[3]), within(1e-3));
    }
  }

  private static void checkAlerts(List<Alert> alerts, long t0) {
    List<String> kinds = alerts.stream().map(Alert::getKind).sorted().toList();
    assertThat(kinds)
        .containsExactly(
            "outside_band",
            "outside_band",
            "outside_band",
            "prca",
            "prca",
            "prca",
            "prca",
            "prca",
            "prca",
            "prca",
            "prca",
            "prca",
            "step");
    long s4 = t0 + 4 * SLOT;
    long s7 = t0 + 7 * SLOT;
    Alert band = one(alerts, "outside_band/" + A + "/" + B + "/netflow/" + s4);
    assertThat(band.getValue()).isCloseTo(0.5e9, within(1e-3));
    assertThat(band.getExpected()).isCloseTo(2.0e9, within(1e-3));
    assertThat(band.getDetectedMs()).isEqualTo(s4);
    Alert step = one(alerts, "step/" + A + "/" + B + "/netflow/" + s4);
    assertThat(step.getExpected()).as("mean before").isCloseTo(1.9e9, within(1e-3));
    assertThat(step.getValue()).as("mean after").isCloseTo(0.5e9, within(1e-3));
    assertThat(step.getMessage()).contains("(t = 14");
    assertThat(one(alerts, "outside_band/" + A + "/" + B + "/iperf3/" + s7).getValue())
        .isCloseTo(0.4e9, within(1e-3));
    assertThat(one(alerts, "outside_band/" + C + "/" + D + "/iperf3/" + s7).getExpected())
        .isCloseTo(8e9, within(1e-3));
    String cluster = "prca/cluster/" + A + "/" + B + "/iperf3/2/0/0/0";
    List<Alert> clusterReports =
        alerts.stream().filter(a -> a.getAlertId().equals(cluster)).toList();
    assertThat(clusterReports)
        .as("A -> B's slow cluster, with each transfer from slot 1")
        .hasSize(7);
    assertThat(clusterReports.stream().map(Alert::getDetectedMs).sorted().toList())
        .containsExactly(
            t0 + SLOT + 21_000,
            t0 + 2 * SLOT + 21_000,
            t0 + 3 * SLOT + 21_000,
            t0 + 4 * SLOT + 21_000,
            t0 + 5 * SLOT + 21_000,
            t0 + 6 * SLOT + 21_000,
            s7 + 21_000);
    for (Alert a : clusterReports) {
      assertThat(a.getMessage()).startsWith("cluster static: streams 2 (best 8)");
      assertThat(a.getValue()).isCloseTo(1.6e9, within(1e-3));
      assertThat(a.getExpected()).isCloseTo(8e9, within(1e-3));
    }
    Alert ab = one(alerts, "prca/transfer/" + A + "/" + B + "/iperf3/" + s7);
    assertThat(ab.getMessage()).startsWith("transfer network: all 1 transfer(s) of peer pairs");
    assertThat(ab.getValue()).isCloseTo(0.4e9, within(1e-3));
    Alert cd = one(alerts, "prca/transfer/" + C + "/" + D + "/iperf3/" + s7);
    assertThat(cd.getValue()).isCloseTo(2e9, within(1e-3));
    assertThat(cd.getExpected()).isCloseTo(8e9, within(1e-3));
  }

  private static Alert one(List<Alert> alerts, String id) {
    List<Alert> found = alerts.stream().filter(a -> a.getAlertId().equals(id)).toList();
    assertThat(found).as("alerts with id " + id + " among " + alerts).hasSize(1);
    return found.get(0);
  }

  /** Slots [from, to): A → B's flows, then both pairs' transfers, in time order. */
  private static void sendSlots(KafkaProducer<byte[], byte[]> producer, long t0, int from, int to)
      throws Exception {
    for (int i = from; i < to; i++) {
      long s = t0 + i * SLOT;
      long v = Math.round(V[i]);
      long b1 = v * 5 / 8;
      if (i == 0) {
        send(producer, Topics.FLOWS, flow(5001, s, s + 5_000, b1 / 2));
        send(producer, Topics.FLOWS, flow(5001, s + 5_000, s + 10_000, b1 - b1 / 2));
      } else {
        send(producer, Topics.FLOWS, flow(5001, s, s + 10_000, b1));
      }
      send(producer, Topics.FLOWS, flow(5002, s + 1_000, s + 21_000, v * 5 / 4));
      send(producer, Topics.FLOWS, flow(5000, s, s + 22_000, 1000));
      boolean slow = i == 7;
      send(
          producer, Topics.TRANSFERS, transfer(A, B, 2, slow ? 1_000_000_000L : 4_000_000_000L, s));
      send(
          producer,
          Topics.TRANSFERS,
          transfer(C, D, 8, slow ? 5_000_000_000L : 20_000_000_000L, s));
      // transfers.v1 is at least once (a log shipped again): repeats, before and after the
      // original was taken, count once.
      if (i == 2) {
        send(producer, Topics.TRANSFERS, transfer(A, B, 2, 4_000_000_000L, s));
      } else if (i == 3) {
        send(producer, Topics.TRANSFERS, transfer(A, B, 2, 4_000_000_000L, s - 2 * SLOT));
      }
    }
    producer.flush();
  }

  private static void send(KafkaProducer<byte[], byte[]> producer, String topic, byte[] value)
      throws Exception {
    producer.send(new ProducerRecord<>(topic, null, value)).get();
  }

  private static byte[] flow(int srcPort, long start, long end, long bytes) {
    return FlowRecord.newBuilder()
        .setExporter(ByteString.copyFrom(mapped(127, 0, 0, 1)))
        .setSource(FlowSource.FLOW_SOURCE_NETFLOW_V9)
        .setReceivedMs(end + 1_000)
        .setStartMs(start)
        .setEndMs(end)
        .setSrcAddr(ByteString.copyFrom(mapped(10, 0, 1, 1)))
        .setDstAddr(ByteString.copyFrom(mapped(10, 0, 2, 1)))
        .setSrcPort(srcPort)
        .setDstPort(5201)
        .setProto(6)
        .setBytes(bytes)
        .setPackets(Math.max(1, bytes / 1500))
        .setSamplingRate(1)
        .setEtype(0x0800)
        .build()
        .toByteArray();
  }

  private static byte[] transfer(String src, String dst, int streams, long bytes, long start) {
    return Transfer.newBuilder()
        .setSrcHost(src)
        .setDstHost(dst)
        .setTool("iperf3")
        .setStreams(streams)
        .setBytes(bytes)
        .setSeconds(20)
        .setStartMs(start)
        .setEndMs(start + 21_000)
        .build()
        .toByteArray();
  }

  private static byte[] mapped(int a, int b, int c, int d) {
    byte[] x = new byte[16];
    x[10] = (byte) 0xFF;
    x[11] = (byte) 0xFF;
    x[12] = (byte) a;
    x[13] = (byte) b;
    x[14] = (byte) c;
    x[15] = (byte) d;
    return x;
  }

  private void say(String s) {
    said.add(s);
    EndToEnd.say(TEST, s);
  }

  /**
   * Waits until the committed records of a topic are {@code complete} (the last ones expected are
   * there), then requires exactly {@code n}: a record repeated after the restore (replayed input is
   * processed first, before the second half is sent) shows as more.
   */
  private static List<ConsumerRecord<byte[], byte[]>> awaitExactly(
      String bootstrap,
      String topic,
      int n,
      Predicate<List<ConsumerRecord<byte[], byte[]>>> complete) {
    List<ConsumerRecord<byte[], byte[]>> all =
        Wait.forValue(
            "the last records expected on " + topic,
            Duration.ofMinutes(2),
            Duration.ofMillis(500),
            () -> {
              List<ConsumerRecord<byte[], byte[]>> got = EndToEnd.readCommitted(bootstrap, topic);
              return complete.test(got) ? Optional.of(got) : Optional.empty();
            });
    assertThat(all).as("records on " + topic + " (nothing lost, nothing repeated)").hasSize(n);
    for (ConsumerRecord<byte[], byte[]> r : all) {
      String key = new String(r.key(), StandardCharsets.UTF_8);
      assertThat(key).as("key: the host pair").contains("\n");
    }
    return all;
  }

  private static Throughput throughput(ConsumerRecord<byte[], byte[]> r) {
    try {
      return Throughput.parseFrom(r.value());
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }

  private static Alert alert(ConsumerRecord<byte[], byte[]> r) {
    try {
      return Alert.parseFrom(r.value());
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }
}
