package net.cheetah.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.google.protobuf.InvalidProtocolBufferException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.stream.LongStream;
import net.cheetah.core.Topics;
import net.cheetah.jobs.ThroughputJob;
import net.cheetah.runtime.Wait;
import net.cheetah.schemas.v1.Alert;
import net.cheetah.schemas.v1.Throughput;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * CrashRecoveryTest's transfers and host samples for the throughput job, fed as ship-transfers
 * --kafka feeds them (transfers.v1 keyed by host pair, transfers.hosts.v1 by host), two slots per
 * run of `up`, and the results expected by hand: ThroughputHostSamplesEndToEndTest's scenario
 * (worked there) over {@link #SLOTS} slots 10 minutes apart, yesterday from 10:00 UTC, before the
 * NetFlow workload's 12:00.
 *
 * <p>In slot i (start s): host samples D at s + 5 s (CPU 92 %, sent twice, counted once) and s + 15
 * s (98 %), B at s + 5 s (50 %), C at s + 10 s (40 %, NIC 30 %), and every host at s + 100 s (5 %,
 * after the transfers: it moves the samples' event time past them); transfers [s, s + 21 s] of 20
 * s: A → B at 8 Gbit/s (the reference), C → D at 2 Gbit/s. PRCA reports C → D's cluster slow with
 * each of its transfers, its cause D's CPU at (92 + 98) / 2 = 95 %; each pair's rates are constant,
 * so no other alert. A transfer is judged (alert and throughput row) once event time passes its
 * end: the next slot's transfers carry it there, so the second slot of run 1 is judged after the
 * clean stop and that of run 2 after the kill. After the last run's NetFlow, one transfer per pair
 * at 14:00 carries the last slot ({@link #sendCarriers}); these two are never judged (the samples'
 * event time stays before their end): {@link #SLOTS} alerts and 2 × {@link #SLOTS} throughput rows
 * in all.
 */
final class CrashThroughput {
  static final long SLOT = 600_000;
  static final int SLOTS = 6;
  static final String A = "10.0.1.1";
  static final String B = "10.0.2.1";
  static final String C = "10.0.1.2";
  static final String D = "10.0.2.2";
  static final Set<String> HOSTS = Set.of(A, B, C, D);
  static final String CLUSTER = "prca/cluster/" + C + "/" + D + "/iperf3/4/0/0/0";
  static final long REFERENCE_BPS = 8_000_000_000L; // 20e9 bytes in 20 s
  static final long SLOW_BPS = 2_000_000_000L; // 5e9 bytes in 20 s

  private final long t0 = EndToEnd.yesterdayAt(10 * 3_600_000L);
  private final long carrier = EndToEnd.yesterdayAt(14 * 3_600_000L);

  /** The offset of the last record sent here, per partition. */
  private final Map<TopicPartition, Long> sent = new HashMap<>();

  /**
   * Run {@code run}'s (0, 1, 2) two slots, each in three steps, the job reading each before the
   * next is sent: the samples during the slot's transfers, the transfers, the samples after them.
   * So a transfer is in the job before event time passes its end (else it would wait for a later
   * watermark), and its samples before it is judged, whatever the readers' pace. Sent before the
   * run's NetFlow: a split that never had a record leaves event time to the others, and the flows'
   * is hours past these transfers.
   */
  void send(String bootstrap, int run) throws Exception {
    try (KafkaProducer<byte[], byte[]> p = EndToEnd.producer(bootstrap)) {
      for (int i = 2 * run; i < 2 * run + 2; i++) {
        long s = t0 + i * SLOT;
        sample(p, D, s + 5_000, 92.0, 20.0, -1);
        sample(p, D, s + 5_000, 92.0, 20.0, -1);
        sample(p, D, s + 15_000, 98.0, -1, -1);
        sample(p, B, s + 5_000, 50.0, -1, -1);
        sample(p, C, s + 10_000, 40.0, -1, 30.0);
        awaitRead(bootstrap);
        transfer(p, A, B, 20_000_000_000L, s);
        transfer(p, C, D, 5_000_000_000L, s);
        awaitRead(bootstrap);
        for (String h : List.of(A, B, C, D)) {
          sample(p, h, s + 100_000, 5.0, -1, -1);
        }
        awaitRead(bootstrap);
      }
    }
  }

  /**
   * One transfer per pair at 14:00, after the NetFlow workload's flows: the last slot is judged,
   * and the job's event time follows the flows again (as without transfers), so their instances
   * come out. Sent after the last run's NetFlow.
   */
  void sendCarriers(String bootstrap) throws Exception {
    try (KafkaProducer<byte[], byte[]> p = EndToEnd.producer(bootstrap)) {
      transfer(p, A, B, 20_000_000_000L, carrier);
      transfer(p, C, D, 5_000_000_000L, carrier);
    }
  }

  /** Until the throughput job has committed offsets past every record sent here. */
  private void awaitRead(String bootstrap) {
    Properties props = new Properties();
    props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    try (Admin admin = Admin.create(props)) {
      Wait.until(
          ThroughputJob.NAME + " to read the transfers and samples sent " + sent,
          Duration.ofMinutes(2),
          () -> {
            try {
              Map<TopicPartition, OffsetAndMetadata> committed =
                  admin
                      .listConsumerGroupOffsets(ThroughputJob.NAME)
                      .partitionsToOffsetAndMetadata()
                      .get();
              return sent.entrySet().stream()
                  .allMatch(
                      e ->
                          committed.get(e.getKey()) != null
                              && committed.get(e.getKey()).offset() > e.getValue());
            } catch (Exception e) {
              return false;
            }
          });
    }
  }

  /** Until the first {@code slots} slots are judged: their alerts and rows committed. */
  static void awaitJudged(String bootstrap, int slots) {
    try {
      Wait.until(
          slots + " slots of transfers judged (alerts.v1, throughput.v1)",
          Duration.ofMinutes(4),
          () -> alerts(bootstrap).size() >= slots && throughput(bootstrap).size() >= 2L * slots);
    } catch (RuntimeException e) {
      throw new AssertionError(
          e.getMessage()
              + "; alerts detected at "
              + alerts(bootstrap).stream().map(Alert::getDetectedMs).toList()
              + ", throughput rows "
              + throughput(bootstrap).stream().map(CrashThroughput::row).toList(),
          e);
    }
  }

  /** Until the warehouse holds every slot's throughput rows and the alert's last report. */
  void awaitStored(WarehouseClient wh) {
    Wait.until(
        "the warehouse to store the transfers' throughput rows and alert",
        Duration.ofMinutes(2),
        () -> {
          try {
            return wh.count(
                        "SELECT count() FROM throughput WHERE NOT passive AND src_host IN ('"
                            + A
                            + "', '"
                            + C
                            + "')")
                    >= 2L * SLOTS
                && wh.count(
                        "SELECT count() FROM alerts WHERE alert_id = '"
                            + CLUSTER
                            + "' AND toUnixTimestamp64Milli(detected_at) = "
                            + (t0 + (SLOTS - 1) * SLOT + 21_000))
                    > 0;
          } catch (Exception e) {
            return false;
          }
        });
  }

  /** The committed alerts about the four hosts. */
  static List<Alert> alerts(String bootstrap) {
    List<Alert> out = new ArrayList<>();
    for (ConsumerRecord<byte[], byte[]> r : EndToEnd.readCommitted(bootstrap, Topics.ALERTS)) {
      Alert a = parse(() -> Alert.parseFrom(r.value()));
      if (HOSTS.contains(a.getSrcHost()) || HOSTS.contains(a.getDstHost())) {
        out.add(a);
      }
    }
    return out;
  }

  /** The committed throughput rows of the four hosts. */
  static List<Throughput> throughput(String bootstrap) {
    List<Throughput> out = new ArrayList<>();
    for (ConsumerRecord<byte[], byte[]> r : EndToEnd.readCommitted(bootstrap, Topics.THROUGHPUT)) {
      Throughput t = parse(() -> Throughput.parseFrom(r.value()));
      if (HOSTS.contains(t.getSrcHost()) || HOSTS.contains(t.getDstHost())) {
        out.add(t);
      }
    }
    return out;
  }

  /**
   * Every slot's alert and rows on the topics, read committed, each exactly once (counted, not
   * deduplicated), and in the warehouse: the throughput rows once each, without FINAL; the alert as
   * its table keeps it (the latest report; reports of one id in one insert are replaced there).
   */
  void assertStored(String bootstrap, WarehouseClient wh) throws Exception {
    List<Long> detected = LongStream.range(0, SLOTS).mapToObj(i -> t0 + i * SLOT + 21_000).toList();
    List<Alert> alerts =
        alerts(bootstrap).stream().sorted(Comparator.comparingLong(Alert::getDetectedMs)).toList();
    assertThat(alerts.stream().map(a -> a.getAlertId() + " at " + a.getDetectedMs()).toList())
        .as("alerts about the transfer hosts on %s (read committed)", Topics.ALERTS)
        .containsExactlyElementsOf(detected.stream().map(d -> CLUSTER + " at " + d).toList());
    for (Alert a : alerts) {
      assertThat(a.getKind()).isEqualTo("prca");
      assertThat(a.getMessage()).startsWith("cluster resource: receiver cpu 95%");
      assertThat(a.getValue()).isCloseTo(SLOW_BPS, within(1e-3));
      assertThat(a.getExpected()).isCloseTo(REFERENCE_BPS, within(1e-3));
    }
    List<String> expectedRows = new ArrayList<>();
    for (int i = 0; i < SLOTS; i++) {
      long s = t0 + i * SLOT;
      expectedRows.add(row(A, B, s, REFERENCE_BPS));
      expectedRows.add(row(C, D, s, SLOW_BPS));
    }
    assertThat(throughput(bootstrap).stream().map(CrashThroughput::row).toList())
        .as("throughput rows of the transfer hosts on %s (read committed)", Topics.THROUGHPUT)
        .containsExactlyInAnyOrderElementsOf(expectedRows);
    String hosts = "('" + String.join("', '", HOSTS) + "')";
    List<String> stored =
        wh.query(
                "SELECT src_host, dst_host, passive, toUnixTimestamp64Milli(start_at),"
                    + " toUnixTimestamp64Milli(end_at), streams, round(sum_stream_bps)"
                    + " FROM throughput WHERE src_host IN "
                    + hosts
                    + " FORMAT TSV")
            .lines()
            .filter(l -> !l.isBlank())
            .map(l -> l.split("\t"))
            .map(
                f ->
                    f[0] + ">" + f[1] + " " + f[2] + " " + f[3] + "-" + f[4] + " " + f[5] + " "
                        + f[6])
            .toList();
    assertThat(stored)
        .as("rows of the transfer hosts in table throughput (no FINAL)")
        .containsExactlyInAnyOrderElementsOf(
            expectedRows.stream().map(r -> r.replace(" transfer ", " false ")).toList());
    List<Long> alertRows =
        wh.query(
                "SELECT toUnixTimestamp64Milli(detected_at) FROM alerts WHERE alert_id = '"
                    + CLUSTER
                    + "' FORMAT TSV")
            .lines()
            .filter(l -> !l.isBlank())
            .map(Long::parseLong)
            .sorted()
            .toList();
    assertThat(alertRows).as("rows of %s in table alerts (no FINAL)", CLUSTER).isNotEmpty();
    assertThat(alertRows).doesNotHaveDuplicates();
    assertThat(detected).containsAll(alertRows);
    assertThat(alertRows.get(alertRows.size() - 1))
        .as("the latest report of %s stored", CLUSTER)
        .isEqualTo(detected.get(SLOTS - 1));
    assertThat(
            wh.count(
                "SELECT count() FROM alerts WHERE alert_id != '"
                    + CLUSTER
                    + "' AND (src_host IN "
                    + hosts
                    + " OR dst_host IN "
                    + hosts
                    + ")"))
        .as("other alerts about the transfer hosts in table alerts")
        .isZero();
  }

  /** A logged transfer's row: pair, start-end, streams, throughput (formula 1). */
  private static String row(String src, String dst, long start, long bps) {
    return src + ">" + dst + " transfer " + start + "-" + (start + 21_000) + " 4 " + bps;
  }

  private static String row(Throughput t) {
    return t.getSrcHost()
        + ">"
        + t.getDstHost()
        + (t.getPassive() ? " instance " : " transfer ")
        + t.getStartMs()
        + "-"
        + t.getEndMs()
        + " "
        + t.getStreams()
        + " "
        + Math.round(t.getSumStreamBps());
  }

  private void sent(RecordMetadata m) {
    sent.merge(new TopicPartition(m.topic(), m.partition()), m.offset(), Math::max);
  }

  private void sample(
      KafkaProducer<byte[], byte[]> p, String host, long ms, double cpu, double disk, double nic)
      throws Exception {
    byte[] v = ThroughputHostSamplesEndToEndTest.sample(host, ms, cpu, disk, nic);
    sent(
        p.send(new ProducerRecord<>(Topics.HOST_SAMPLES, host.getBytes(StandardCharsets.UTF_8), v))
            .get());
  }

  private void transfer(
      KafkaProducer<byte[], byte[]> p, String src, String dst, long bytes, long start)
      throws Exception {
    byte[] t = ThroughputHostSamplesEndToEndTest.transfer(src, dst, bytes, start);
    sent(
        p.send(
                new ProducerRecord<>(
                    Topics.TRANSFERS, (src + "\n" + dst).getBytes(StandardCharsets.UTF_8), t))
            .get());
  }

  interface Parse<T> {
    T get() throws InvalidProtocolBufferException;
  }

  private static <T> T parse(Parse<T> p) {
    try {
      return p.get();
    } catch (InvalidProtocolBufferException e) {
      throw new AssertionError("undecodable record on a result topic", e);
    }
  }
}
