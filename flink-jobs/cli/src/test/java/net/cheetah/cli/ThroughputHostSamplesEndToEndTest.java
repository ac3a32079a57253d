package net.cheetah.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.google.protobuf.InvalidProtocolBufferException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import net.cheetah.config.CheetahConfig;
import net.cheetah.core.Topics;
import net.cheetah.jobs.ThroughputJob;
import net.cheetah.runtime.Wait;
import net.cheetah.schemas.v1.Alert;
import net.cheetah.schemas.v1.HostSample;
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
 * transfers.v1 + transfers.hosts.v1 → the throughput job's PRCA → alerts.v1, on a real broker and a
 * Flink MiniCluster: a slow cluster whose receiver's CPU was saturated during its transfers is
 * reported with that resource as its cause, as the offline command reports it from hosts.csv (the
 * same {@code Prca}). Values worked by hand below.
 *
 * <p>One partition per topic. Four slots 10 minutes apart (yesterday from 10:00 UTC); the /24 sites
 * make A → B (10.0.1.1 → 10.0.2.1) and C → D (10.0.1.2 → 10.0.2.2) peers, with the same settings
 * (iperf3, 4 streams, default buffer). In slot i (start s):
 *
 * <ul>
 *   <li>host samples, sent before the slot's transfers: D at s + 5 s (CPU 92%, disk 20%; sent
 *       twice, as a log shipped again: counted once, else the mean would be 94%) and at s + 15 s
 *       (CPU 98%, disk not sampled); B at s + 5 s (CPU 50%); C at s + 10 s (CPU 40%, NIC 30%); and,
 *       after the transfers, D at s + 100 s (CPU 5%: outside them, not counted; it moves the
 *       samples' event time past the transfers' ends);
 *   <li>transfers [s, s + 21 s], 20 s: A → B at 8 Gbit/s, C → D at 2 Gbit/s.
 * </ul>
 *
 * The reference is A → B's cluster (median 8 Gbit/s); C → D's (median 2 &lt; 0.8·8) is slow. Its
 * cause: the busiest resource of sender C or receiver D whose mean over the samples during its
 * transfers reached 90%: D's CPU, (92 + 98) / 2 = 95% in every slot (D's disk 20%, C's CPU 40% and
 * NIC 30%, B is no host of it). One alert id, reported with each of C → D's 4 transfers (in slot 0
 * A → B's transfer is taken first: same start, pair order), message "cluster resource: receiver cpu
 * 95%", value 2 Gbit/s, expected 8 Gbit/s; no other alert (each pair's rates are constant).
 */
@Tag("integration")
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class ThroughputHostSamplesEndToEndTest {
  static final String TEST = "throughput-host-samples";
  static final long SLOT = 600_000;
  static final String A = "10.0.1.1";
  static final String B = "10.0.2.1";
  static final String C = "10.0.1.2";
  static final String D = "10.0.2.2";
  static final int SLOTS = 4;

  @TempDir(cleanup = CleanupMode.ON_SUCCESS)
  Path dir;

  private final List<String> said = Collections.synchronizedList(new ArrayList<>());

  @Test
  void aSlowClusterIsBlamedOnItsReceiversSaturatedCpu() throws Exception {
    long started = System.nanoTime();
    long t0 = EndToEnd.yesterdayAt(10 * 3_600_000L);
    CheetahConfig cfg =
        EndToEnd.config(
            Map.ofEntries(
                Map.entry("kafka.partitions", "1"),
                Map.entry("detection.out-of-orderness-ms", "0"),
                Map.entry("detection.idle-advance-ms", "1000"),
                Map.entry("flink.checkpoint-interval-ms", "500"),
                Map.entry("throughput.peer-window-ms", "60000")));
    Path data = dir.resolve("data");
    Broker broker = new Broker(cfg.kafka(), data, true, this::say);
    broker.start();
    try (KafkaProducer<byte[], byte[]> producer = EndToEnd.producer(broker.bootstrap());
        FlinkJobs jobs =
            EndToEnd.startJob(new ThroughputJob(), cfg, data, broker.bootstrap(), this::say)) {
      for (int i = 0; i < SLOTS; i++) {
        long s = t0 + i * SLOT;
        send(producer, Topics.HOST_SAMPLES, D, sample(D, s + 5_000, 92.0, 20.0, -1));
        send(producer, Topics.HOST_SAMPLES, D, sample(D, s + 5_000, 92.0, 20.0, -1));
        send(producer, Topics.HOST_SAMPLES, D, sample(D, s + 15_000, 98.0, -1, -1));
        send(producer, Topics.HOST_SAMPLES, B, sample(B, s + 5_000, 50.0, -1, -1));
        send(producer, Topics.HOST_SAMPLES, C, sample(C, s + 10_000, 40.0, -1, 30.0));
        send(producer, Topics.TRANSFERS, A + "\n" + B, transfer(A, B, 20_000_000_000L, s));
        send(producer, Topics.TRANSFERS, C + "\n" + D, transfer(C, D, 5_000_000_000L, s));
        send(producer, Topics.HOST_SAMPLES, D, sample(D, s + 100_000, 5.0, -1, -1));
      }
      producer.flush();
      long last = t0 + (SLOTS - 1) * SLOT;
      List<Alert> alerts =
          Wait.forValue(
              "C -> D's report with its last transfer",
              Duration.ofMinutes(2),
              Duration.ofMillis(500),
              () -> {
                List<Alert> got = read(broker.bootstrap(), Topics.ALERTS);
                return got.stream().anyMatch(a -> a.getDetectedMs() == last + 21_000)
                    ? Optional.of(got)
                    : Optional.empty();
              });
      String id = "prca/cluster/" + C + "/" + D + "/iperf3/4/0/0/0";
      assertThat(alerts.stream().map(Alert::getAlertId).distinct().toList())
          .as("one finding: C -> D's cluster")
          .containsExactly(id);
      assertThat(alerts.stream().map(Alert::getDetectedMs).toList())
          .as("reported with each of its transfers, once")
          .containsExactly(t0 + 21_000, t0 + SLOT + 21_000, t0 + 2 * SLOT + 21_000, last + 21_000);
      for (Alert a : alerts) {
        assertThat(a.getKind()).isEqualTo("prca");
        assertThat(a.getSrcHost() + " -> " + a.getDstHost()).isEqualTo(C + " -> " + D);
        assertThat(a.getMessage()).startsWith("cluster resource: receiver cpu 95%");
        assertThat(a.getValue()).isCloseTo(2e9, within(1e-3));
        assertThat(a.getExpected()).isCloseTo(8e9, within(1e-3));
      }
      assertThat(jobs.failure()).isNotDone();
    } finally {
      broker.stop();
    }
    EndToEnd.say(TEST, String.format("passed in %.1f s", (System.nanoTime() - started) / 1e9));
  }

  /** A host sample; a negative percentage is not sampled (left unset). Also CrashThroughput's. */
  static byte[] sample(String host, long ms, double cpu, double disk, double nic) {
    HostSample.Builder b = HostSample.newBuilder().setHost(host).setTimeMs(ms);
    if (cpu >= 0) {
      b.setCpuPercent(cpu);
    }
    if (disk >= 0) {
      b.setDiskPercent(disk);
    }
    if (nic >= 0) {
      b.setNicPercent(nic);
    }
    return b.build().toByteArray();
  }

  /**
   * A 20-s iperf3 transfer of 4 streams, logged as the shipper writes it (also CrashThroughput's).
   */
  static byte[] transfer(String src, String dst, long bytes, long start) {
    return Transfer.newBuilder()
        .setSrcHost(src)
        .setDstHost(dst)
        .setTool("iperf3")
        .setStreams(4)
        .setBytes(bytes)
        .setSeconds(20)
        .setStartMs(start)
        .setEndMs(start + 21_000)
        .build()
        .toByteArray();
  }

  private static void send(
      KafkaProducer<byte[], byte[]> producer, String topic, String key, byte[] value)
      throws Exception {
    producer.send(new ProducerRecord<>(topic, key.getBytes(StandardCharsets.UTF_8), value)).get();
  }

  private void say(String s) {
    said.add(s);
    EndToEnd.say(TEST, s);
  }

  /** Every committed alert so far. */
  private static List<Alert> read(String bootstrap, String topic) {
    List<Alert> out = new ArrayList<>();
    for (ConsumerRecord<byte[], byte[]> r : EndToEnd.readCommitted(bootstrap, topic)) {
      try {
        out.add(Alert.parseFrom(r.value()));
      } catch (InvalidProtocolBufferException e) {
        throw new AssertionError("not an Alert on " + topic, e);
      }
    }
    return out;
  }
}
