package net.cheetah.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import com.google.protobuf.CodedOutputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import net.cheetah.core.Topics;
import net.cheetah.jobs.CheetahJob;
import net.cheetah.jobs.LinkStatsJob;
import net.cheetah.jobs.NormalizeJob;
import net.cheetah.jobs.RedirectJob;
import net.cheetah.jobs.StreamJob;
import net.cheetah.jobs.ThresholdJob;
import net.cheetah.jobs.ThroughputJob;
import net.cheetah.runtime.Wait;
import net.cheetah.schemas.goflow2.FlowMessage;
import net.cheetah.schemas.v1.CheetahEvent;
import net.cheetah.schemas.v1.CheetahEventType;
import net.cheetah.schemas.v1.DetectionSource;
import net.cheetah.schemas.v1.FlowRecord;
import net.cheetah.schemas.v1.FlowSource;
import net.cheetah.schemas.v1.HostSample;
import net.cheetah.schemas.v1.LinkBin;
import net.cheetah.schemas.v1.LinkStats;
import net.cheetah.schemas.v1.SnmpCounters;
import net.cheetah.schemas.v1.Transfer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;

/**
 * Garbage on every topic a Flink job reads (flows.rejected.v1, written by every job that decodes:
 * nothing is dropped silently): undecodable bytes, empty values, tombstones and valid protobuf with
 * nonsense fields, all with null keys, each become one rejected row per job that reads the topic
 * (stage = that job's, reason = the check's code, payload = the bytes sent, source topic); no job
 * fails or restarts; and the good records sent between the garbage are all stored and processed
 * (link statistics and R from the good bins, poll and window; a PRCA report from the good host
 * samples sent after the garbage on transfers.hosts.v1, a broadcast input of the throughput job).
 */
@Tag("integration")
class JobInputGarbageTest {
  static final String TEST = "job-input-garbage";
  static final HexFormat HEX = HexFormat.of().withUpperCase();
  static final long T1 = 100;
  static final long T2 = 10_000;
  static final long DAY = 86_400_000L;
  static final byte[] UNDECODABLE = {(byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, 7, 1, 2};
  static final byte[] EMPTY = new byte[0];

  @TempDir(cleanup = CleanupMode.ON_SUCCESS)
  Path dir;

  /** A rejected row as the warehouse keeps it. */
  record Row(String stage, String topic, String reason, String payloadHex) {}

  /** One record to send: null value = a tombstone; the expected rejections it must cause. */
  record Sent(String topic, byte[] value, List<Row> expected) {}

  private final List<Sent> garbage = new ArrayList<>();

  /** The offset of the last record this test wrote to each partition. */
  private final Map<TopicPartition, Long> lastSent = new java.util.HashMap<>();

  private void send(KafkaProducer<byte[], byte[]> producer, ProducerRecord<byte[], byte[]> r)
      throws Exception {
    var m = producer.send(r).get();
    lastSent.merge(new TopicPartition(m.topic(), m.partition()), m.offset(), Math::max);
  }

  /** Garbage for the readers of {@code topic} ({@code stages}), refused for {@code reason}. */
  private void garbage(String topic, byte[] value, String reason, String... stages) {
    List<Row> rows = new ArrayList<>();
    for (String stage : stages) {
      rows.add(new Row(stage, topic, reason, value == null ? "" : HEX.formatHex(value)));
    }
    garbage.add(new Sent(topic, value, rows));
  }

  /** Undecodable bytes, an empty value and a tombstone, refused by every reader of the topic. */
  private void unreadable(String topic, String undecodableReason, String... stages) {
    garbage(topic, UNDECODABLE, undecodableReason, stages);
    garbage(topic, EMPTY, "empty_value", stages);
    garbage(topic, null, "empty_value", stages);
  }

  @Test
  void garbageOnEveryJobInputIsRejectedAndTheGoodRecordsAroundItAreProcessed() throws Exception {
    long t0Run = System.nanoTime();
    Tools tools = EndToEnd.tools();
    long now = System.currentTimeMillis();
    long t0 = (now / T2) * T2 - 6 * T2;
    String normalize = "normalize";
    String cheetahs = CheetahJob.STAGE;
    String links = net.cheetah.jobs.links.LinkInputs.STAGE;
    String thresholds = net.cheetah.jobs.thresholds.ThresholdInputs.STAGE;
    String redirects = net.cheetah.jobs.redirects.Sightings.STAGE;
    String throughput = net.cheetah.jobs.throughput.ThroughputInputs.STAGE;

    // flows.goflow2.v1 (normalize): length-delimited goflow2 messages.
    unreadable(Topics.GOFLOW2, "malformed_message", normalize);
    // normalize keeps a refused message without its length prefix.
    FlowMessage inverted = goflow(7200).setTimeFlowEndNs((now - 20_000) * 1_000_000L).build();
    garbage.add(
        new Sent(
            Topics.GOFLOW2,
            delimited(inverted),
            List.of(
                new Row(
                    normalize,
                    Topics.GOFLOW2,
                    "inverted_times",
                    HEX.formatHex(inverted.toByteArray())))));
    byte[] goodGoflow = delimited(goflow(7100).build());

    // flows.v1 (the cheetah job and the throughput job).
    unreadable(Topics.FLOWS, "undecodable", cheetahs, throughput);
    garbage(
        Topics.FLOWS,
        flow(7201).setEndMs(now - 20_000).build().toByteArray(),
        "inverted_times",
        cheetahs,
        throughput);
    garbage(
        Topics.FLOWS,
        flow(7202).setBytes(-1).build().toByteArray(),
        "impossible_counts",
        cheetahs,
        throughput);
    garbage(
        Topics.FLOWS,
        flow(7203).setSrcAddr(ByteString.copyFrom(new byte[] {10, 0, 0})).build().toByteArray(),
        "bad_address",
        cheetahs,
        throughput);
    garbage(
        Topics.FLOWS,
        flow(7204).setStartMs(now + 2 * DAY).setEndMs(now + 2 * DAY + 1000).build().toByteArray(),
        "future_times",
        cheetahs,
        throughput);
    List<byte[]> goodFlows =
        List.of(
            flow(7001).build().toByteArray(),
            flow(7002).build().toByteArray(),
            flow(7003).build().toByteArray());

    // probe.bins.v1 (link statistics).
    unreadable(Topics.PROBE_BINS, "undecodable", links);
    garbage(Topics.PROBE_BINS, bin("", t0).build().toByteArray(), "missing_link_id", links);
    garbage(
        Topics.PROBE_BINS,
        bin("bad-link", t0).setCheetahBytes(2_000_000).build().toByteArray(),
        "impossible_counts",
        links);
    garbage(
        Topics.PROBE_BINS,
        bin("bad-link", t0).setBytes(-5).build().toByteArray(),
        "impossible_counts",
        links);
    garbage(
        Topics.PROBE_BINS,
        bin("bad-link", now + 2 * DAY).build().toByteArray(),
        "future_times",
        links);
    garbage(Topics.PROBE_BINS, bin("bad-link", 0).build().toByteArray(), "missing_times", links);

    // cheetahs.v1 (link statistics and redirects).
    unreadable(Topics.CHEETAHS, "undecodable", links, redirects);
    garbage(
        Topics.CHEETAHS,
        cheetah("bad-1").setTypeValue(7).build().toByteArray(),
        "unknown_enum",
        links,
        redirects);
    garbage(
        Topics.CHEETAHS,
        cheetah("bad-2")
            .setSource(DetectionSource.DETECTION_SOURCE_UNSPECIFIED)
            .build()
            .toByteArray(),
        "unknown_enum",
        links,
        redirects);
    garbage(
        Topics.CHEETAHS, cheetah("").build().toByteArray(), "missing_flow_id", links, redirects);
    garbage(
        Topics.CHEETAHS,
        cheetah("bad-3").setEndMs(now - 60_000).build().toByteArray(),
        "inverted_times",
        links,
        redirects);
    garbage(
        Topics.CHEETAHS,
        cheetah("bad-4").setRateBps(Double.NaN).build().toByteArray(),
        "bad_rate",
        links,
        redirects);
    garbage(
        Topics.CHEETAHS,
        cheetah("bad-5").setSrcAddr(ByteString.copyFrom(new byte[5])).build().toByteArray(),
        "bad_address",
        links,
        redirects);
    List<byte[]> goodCheetahs =
        List.of(
            cheetah("good-cheetah-1").build().toByteArray(),
            cheetah("good-cheetah-2")
                .setSource(DetectionSource.DETECTION_SOURCE_PROBE)
                .setLinkId("good-link")
                .setEndMs(0)
                .build()
                .toByteArray());

    // snmp.counters.v1 (link statistics and thresholds).
    unreadable(Topics.SNMP_COUNTERS, "undecodable", links, thresholds);
    garbage(
        Topics.SNMP_COUNTERS,
        poll("", t0).build().toByteArray(),
        "missing_link_id",
        links,
        thresholds);
    garbage(
        Topics.SNMP_COUNTERS,
        poll("bad-link", 0).build().toByteArray(),
        "missing_times",
        links,
        thresholds);
    garbage(
        Topics.SNMP_COUNTERS,
        poll("bad-link", t0).setIfHighSpeedMbps(-1).build().toByteArray(),
        "impossible_counts",
        links,
        thresholds);
    garbage(
        Topics.SNMP_COUNTERS,
        poll("bad-link", now + 2 * DAY).build().toByteArray(),
        "future_times",
        links,
        thresholds);
    byte[] goodPoll = poll("good-link", t0).build().toByteArray();

    // links.stats.v1 (thresholds).
    unreadable(Topics.LINKS_STATS, "undecodable", thresholds);
    garbage(Topics.LINKS_STATS, stats("", t0).build().toByteArray(), "missing_link_id", thresholds);
    garbage(
        Topics.LINKS_STATS,
        stats("bad-link", t0).setWindowEndMs(t0 - 1).build().toByteArray(),
        "inverted_times",
        thresholds);
    garbage(
        Topics.LINKS_STATS,
        stats("bad-link", t0).setBurstiness(-1).build().toByteArray(),
        "bad_rate",
        thresholds);
    garbage(
        Topics.LINKS_STATS,
        stats("bad-link", t0).setMeanBgBps(Double.NaN).build().toByteArray(),
        "bad_rate",
        thresholds);
    garbage(
        Topics.LINKS_STATS,
        stats("bad-link", t0).setCapacityBps(Double.POSITIVE_INFINITY).build().toByteArray(),
        "bad_rate",
        thresholds);
    byte[] goodStats = stats("manual-link", t0).build().toByteArray();

    // transfers.hosts.v1 (the throughput job's PRCA, broadcast to every peer group).
    unreadable(Topics.HOST_SAMPLES, "undecodable", throughput);
    garbage(
        Topics.HOST_SAMPLES, sample("", now, 50).build().toByteArray(), "missing_host", throughput);
    garbage(
        Topics.HOST_SAMPLES,
        sample("bad host", now, 50).build().toByteArray(),
        "bad_host",
        throughput);
    garbage(
        Topics.HOST_SAMPLES,
        sample("bad-host", -1, 50).build().toByteArray(),
        "bad_time",
        throughput);
    garbage(
        Topics.HOST_SAMPLES,
        sample("bad-host", now, Double.NaN).build().toByteArray(),
        "bad_percent",
        throughput);
    garbage(
        Topics.HOST_SAMPLES,
        sample("bad-host", now, 50).setNicBps(-1).build().toByteArray(),
        "bad_nic_bps",
        throughput);
    // The good ones, after the garbage: D's CPU at 92 and 98 % during C -> D's transfer below.
    long transferAt = (now / 1000) * 1000 - 120_000;
    List<byte[]> goodSamples =
        List.of(
            sample(HOST_D, transferAt + 5_000, 92).build().toByteArray(),
            sample(HOST_D, transferAt + 15_000, 98).build().toByteArray());

    List<Row> expected = garbage.stream().flatMap(s -> s.expected().stream()).toList();
    // Counted by hand from the lists above: 4 + 2 x 7 + 8 + 2 x 9 + 2 x 7 + 8 + 8.
    assertThat(expected).as("rejections this test expects").hasSize(74);

    try (Stack stack =
        new Stack(
            EndToEnd.config(
                Map.of(
                    "link-stats.t2-ms", Long.toString(T2),
                    "link-stats.sliding-every-ms", "0",
                    "link-stats.lateness-ms", "1000",
                    "thresholds.min-change", "0")),
            tools,
            dir.resolve("stack"),
            true,
            s -> EndToEnd.say(TEST, s))) {
      stack.start();
      try (KafkaProducer<byte[], byte[]> producer = producer(stack.bootstrap())) {
        // Good records before, between and after the garbage, with and without keys.
        int i = 0;
        send(producer, record(Topics.SNMP_COUNTERS, "good-link", goodPoll));
        send(producer, record(Topics.GOFLOW2, null, goodGoflow));
        send(producer, record(Topics.LINKS_STATS, null, goodStats));
        for (Sent s : garbage) {
          send(producer, new ProducerRecord<>(s.topic(), null, s.value()));
          if (i < goodFlows.size()) {
            send(producer, record(Topics.FLOWS, i % 2 == 0 ? null : "k", goodFlows.get(i)));
          }
          if (i < goodCheetahs.size()) {
            send(producer, record(Topics.CHEETAHS, i % 2 == 0 ? "k" : null, goodCheetahs.get(i)));
          }
          i++;
        }
        for (byte[] s : goodSamples) {
          send(producer, record(Topics.HOST_SAMPLES, HOST_D, s));
        }
        // The samples are in (garbage and good) before the transfers they describe are judged.
        awaitConsumed(stack.bootstrap(), ThroughputJob.NAME, List.of(Topics.HOST_SAMPLES));
        // A -> B at 8 Gbit/s and C -> D at 2 Gbit/s, same times (judged together once event time
        // passes their end, by the idle advance: A -> B first, by pair): C -> D's cluster is slow
        // (2 < 0.8 x 8), its cause D's CPU, (92 + 98) / 2 = 95 %, as
        // ThroughputHostSamplesEndToEndTest works it.
        send(
            producer,
            record(Topics.TRANSFERS, HOST_A + "\n" + HOST_B, transfer(HOST_A, HOST_B, transferAt)));
        send(
            producer,
            record(Topics.TRANSFERS, HOST_C + "\n" + HOST_D, transfer(HOST_C, HOST_D, transferAt)));
        // The capacity must be known before the bins are: wait until both readers of the poll
        // have passed every snmp.counters.v1 record, garbage included (they did not stop there).
        awaitConsumed(stack.bootstrap(), LinkStatsJob.NAME, List.of(Topics.SNMP_COUNTERS));
        awaitConsumed(stack.bootstrap(), ThresholdJob.NAME, List.of(Topics.SNMP_COUNTERS));
        // 15.5 s of bins of good-link: the window [t0, t0 + 10 s) completes.
        for (long t = t0; t < t0 + 15_500; t += T1) {
          send(
              producer,
              record(Topics.PROBE_BINS, (t / T1) % 2 == 0 ? null : "good-link", goodBin(t)));
        }
      }

      WarehouseClient wh = new WarehouseClient(stack.warehouseUrl());
      List<Row> rows = awaitRejected(wh, expected.size());
      assertThat(rows)
          .as("rejected rows of the jobs' readers: stage, source topic, reason, payload")
          .containsExactlyInAnyOrderElementsOf(expected);
      // Every job read past every record sent to it, the garbage and the good after it.
      awaitConsumed(stack.bootstrap(), NormalizeJob.NAME, List.of(Topics.GOFLOW2));
      awaitConsumed(stack.bootstrap(), CheetahJob.NAME, List.of(Topics.FLOWS));
      awaitConsumed(stack.bootstrap(), ThroughputJob.NAME, List.of(Topics.FLOWS));
      awaitConsumed(
          stack.bootstrap(),
          LinkStatsJob.NAME,
          List.of(Topics.PROBE_BINS, Topics.CHEETAHS, Topics.SNMP_COUNTERS));
      awaitConsumed(
          stack.bootstrap(), ThresholdJob.NAME, List.of(Topics.LINKS_STATS, Topics.SNMP_COUNTERS));
      awaitConsumed(stack.bootstrap(), RedirectJob.NAME, List.of(Topics.CHEETAHS));

      // The good records: stored, each once (counted without FINAL), and processed by the jobs
      // that read them.
      List<String[]> checks =
          List.of(
              new String[] {
                "the window of good-link's bins, at the capacity of its good poll",
                "SELECT count(), any(bins), any(capacity_bps) FROM link_stats"
                    + " WHERE link_id = 'good-link' AND NOT sliding",
                "1\t100\t10000000000"
              },
              new String[] {
                "R from good-link's window and from the good window sent; none from garbage",
                "SELECT countIf(link_id = 'good-link') > 0, countIf(link_id = 'manual-link') > 0,"
                    + " countIf(link_id NOT IN ('good-link', 'manual-link')) FROM thresholds",
                "1\t1\t0"
              },
              new String[] {
                "good-link's bins",
                "SELECT count() FROM probe_bins WHERE link_id = 'good-link'",
                "155"
              },
              new String[] {
                "good-link's poll",
                "SELECT count() FROM snmp_counters WHERE link_id = 'good-link'",
                "1"
              },
              new String[] {
                "the good flows.v1 records and the good goflow2 message, normalized",
                "SELECT count() FROM flows WHERE src_port IN (7001, 7002, 7003, 7100)",
                "4"
              },
              new String[] {
                "C -> D's slow cluster reported from the good host samples (and transfers)",
                "SELECT count(), countIf(startsWith(message, 'cluster resource: receiver cpu 95%'))"
                    + " FROM alerts WHERE alert_id = 'prca/cluster/"
                    + HOST_C
                    + "/"
                    + HOST_D
                    + "/iperf3/4/0/0/0'",
                "1\t1"
              },
              new String[] {
                "the good cheetah events",
                "SELECT count() FROM cheetahs"
                    + " WHERE flow_id IN ('good-cheetah-1', 'good-cheetah-2')",
                "2"
              });
      awaitAll(wh, checks);
      for (String[] c : checks) {
        assertThat(count(wh, c[1])).as(c[0]).isEqualTo(c[2]);
      }

      EndToEnd.assertNoRestarts(stack);
      assertThat(failures(stack))
          .as("failures per job (a decoder that throws fails its task, and Flink restarts the job)")
          .hasSize(StreamJob.stack().size())
          .allSatisfy((name, f) -> assertThat(f).as(name).isEmpty());
    }
    EndToEnd.say(TEST, String.format("passed in %.1f s", (System.nanoTime() - t0Run) / 1e9));
  }

  private static List<Row> awaitRejected(WarehouseClient wh, int expected) {
    String sql =
        "SELECT stage, source_topic, reason, hex(payload) FROM rejected"
            + " WHERE stage != 'warehouse' ORDER BY stage, source_topic, reason FORMAT TSV";
    List<Row> last = new ArrayList<>();
    int[] stable = new int[1];
    try {
      return Wait.forValue(
          expected + " rejected rows from the jobs",
          Duration.ofMinutes(3),
          Duration.ofSeconds(1),
          () -> {
            List<Row> rows = new ArrayList<>();
            try {
              for (String l : wh.query(sql).split("\n")) {
                if (!l.isBlank()) {
                  String[] f = l.split("\t", -1);
                  rows.add(new Row(f[0], f[1], f[2], f[3]));
                }
              }
            } catch (Exception e) {
              return Optional.empty();
            }
            stable[0] = rows.equals(last) ? stable[0] + 1 : 0;
            last.clear();
            last.addAll(rows);
            return rows.size() >= expected && stable[0] >= 3
                ? Optional.of(List.copyOf(rows))
                : Optional.empty();
          });
    } catch (RuntimeException e) {
      throw new AssertionError(e.getMessage() + "; last seen " + last, e);
    }
  }

  /** Waits (2 min at most) until every check's query gives its expected value. */
  private static void awaitAll(WarehouseClient wh, List<String[]> checks) {
    try {
      Wait.forValue(
          "the good records in the warehouse",
          Duration.ofMinutes(2),
          Duration.ofSeconds(1),
          () -> {
            for (String[] c : checks) {
              try {
                if (!count(wh, c[1]).equals(c[2])) {
                  return Optional.empty();
                }
              } catch (Exception e) {
                return Optional.empty();
              }
            }
            return Optional.of(true);
          });
    } catch (RuntimeException e) {
      // The assertions that follow say which value differs.
      EndToEnd.say(TEST, e.getMessage());
    }
  }

  private static String count(WarehouseClient wh, String sql) throws Exception {
    return wh.query(sql + " FORMAT TSV").strip();
  }

  /**
   * Waits until {@code group} has committed, in every partition of {@code topics} this test wrote
   * to, an offset past the last record written there: it read past all of them, garbage included.
   * (Not the partition's end offset: a transaction's commit marker there is never consumed.)
   */
  private void awaitConsumed(String bootstrap, String group, List<String> topics) {
    Map<TopicPartition, Long> want = new java.util.HashMap<>();
    lastSent.forEach(
        (tp, offset) -> {
          if (topics.contains(tp.topic())) {
            want.put(tp, offset + 1);
          }
        });
    assertThat(want).as("records sent to %s", topics).isNotEmpty();
    Properties p = new Properties();
    p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    try (Admin admin = Admin.create(p)) {
      String[] last = {""};
      try {
        Wait.forValue(
            group + " reading past the records sent to " + topics,
            Duration.ofMinutes(2),
            Duration.ofMillis(500),
            () -> {
              try {
                var committed =
                    admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get();
                last[0] = "committed " + committed + ", want " + want;
                boolean done =
                    want.entrySet().stream()
                        .allMatch(
                            e ->
                                committed.get(e.getKey()) != null
                                    && committed.get(e.getKey()).offset() >= e.getValue());
                return done ? Optional.of(true) : Optional.empty();
              } catch (Exception e) {
                return Optional.empty();
              }
            });
      } catch (RuntimeException e) {
        throw new AssertionError(e.getMessage() + "; " + last[0], e);
      }
    }
  }

  /**
   * The failures of every job (Flink REST /jobs/ID/exceptions): a task that throws leaves an entry
   * there, and Flink then restarts the job.
   */
  private static Map<String, String> failures(Stack stack) throws Exception {
    HttpClient http = HttpClient.newHttpClient();
    String overview = get(http, stack.flinkUrl() + "/jobs/overview");
    Map<String, String> out = new TreeMap<>();
    Matcher m =
        Pattern.compile("\"jid\"\\s*:\\s*\"([0-9a-f]+)\"\\s*,\\s*\"name\"\\s*:\\s*\"([^\"]+)\"")
            .matcher(overview);
    while (m.find()) {
      String body = get(http, stack.flinkUrl() + "/jobs/" + m.group(1) + "/exceptions");
      assertThat(body).as("exceptions of %s", m.group(2)).contains("\"exceptionHistory\"");
      boolean none = Pattern.compile("\"entries\"\\s*:\\s*\\[\\s*\\]").matcher(body).find();
      out.put(m.group(2), none ? "" : body);
    }
    return out;
  }

  private static String get(HttpClient http, String url) throws Exception {
    HttpResponse<String> r =
        http.send(
            HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(10)).build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).as(url).isEqualTo(200);
    return r.body();
  }

  private static ProducerRecord<byte[], byte[]> record(String topic, String key, byte[] value) {
    return new ProducerRecord<>(
        topic, key == null ? null : key.getBytes(StandardCharsets.UTF_8), value);
  }

  private static KafkaProducer<byte[], byte[]> producer(String bootstrap) {
    Properties p = new Properties();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ProducerConfig.ACKS_CONFIG, "all");
    // One partition order per topic, so that "good around garbage" holds as sent.
    p.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, 1);
    return new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer());
  }

  private static final String HOST_A = "10.0.1.1";
  private static final String HOST_B = "10.0.2.1";
  private static final String HOST_C = "10.0.1.2";
  private static final String HOST_D = "10.0.2.2";

  /** A host sample of CPU only. */
  private static HostSample.Builder sample(String host, long ms, double cpu) {
    return HostSample.newBuilder().setHost(host).setTimeMs(ms).setCpuPercent(cpu);
  }

  /** An iperf3 run of 4 streams, 20 s from {@code start}: A -> B 20e9 bytes, C -> D 5e9. */
  private static byte[] transfer(String src, String dst, long start) {
    return Transfer.newBuilder()
        .setSrcHost(src)
        .setDstHost(dst)
        .setTool("iperf3")
        .setStreams(4)
        .setBytes(src.equals(HOST_A) ? 20_000_000_000L : 5_000_000_000L)
        .setSeconds(20)
        .setStartMs(start)
        .setEndMs(start + 21_000)
        .build()
        .toByteArray();
  }

  private static final byte[] V4_A = {(byte) 192, 0, 2, 10};
  private static final byte[] V4_B = {(byte) 198, 51, 100, 7};

  /** A valid goflow2 NetFlow v5 message, 10 s to 5 s ago. */
  private static FlowMessage.Builder goflow(int srcPort) {
    long now = System.currentTimeMillis();
    return FlowMessage.newBuilder()
        .setType(FlowMessage.FlowType.NETFLOW_V5)
        .setTimeReceivedNs(now * 1_000_000L)
        .setTimeFlowStartNs((now - 10_000) * 1_000_000L)
        .setTimeFlowEndNs((now - 5_000) * 1_000_000L)
        .setSamplerAddress(ByteString.copyFrom(new byte[] {127, 0, 0, 1}))
        .setEtype(0x0800)
        .setSrcAddr(ByteString.copyFrom(V4_A))
        .setDstAddr(ByteString.copyFrom(V4_B))
        .setProto(6)
        .setSrcPort(srcPort)
        .setDstPort(443)
        .setBytes(15_000)
        .setPackets(10);
  }

  /** goflow2's "bin" format: a varint length, then the message. */
  private static byte[] delimited(FlowMessage m) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    CodedOutputStream c = CodedOutputStream.newInstance(out);
    c.writeUInt32NoTag(m.getSerializedSize());
    m.writeTo(c);
    c.flush();
    return out.toByteArray();
  }

  /** A valid flows.v1 record, 10 s to 5 s ago. */
  private static FlowRecord.Builder flow(int srcPort) {
    long now = System.currentTimeMillis();
    return FlowRecord.newBuilder()
        .setExporter(ByteString.copyFrom(mapped(new byte[] {127, 0, 0, 1})))
        .setSource(FlowSource.FLOW_SOURCE_NETFLOW_V5)
        .setReceivedMs(now)
        .setStartMs(now - 10_000)
        .setEndMs(now - 5_000)
        .setSrcAddr(ByteString.copyFrom(mapped(V4_A)))
        .setDstAddr(ByteString.copyFrom(mapped(V4_B)))
        .setSrcPort(srcPort)
        .setDstPort(443)
        .setProto(6)
        .setBytes(15_000)
        .setPackets(10)
        .setSamplingRate(1)
        .setEtype(0x0800);
  }

  private static byte[] mapped(byte[] v4) {
    byte[] b = new byte[16];
    b[10] = (byte) 0xFF;
    b[11] = (byte) 0xFF;
    System.arraycopy(v4, 0, b, 12, 4);
    return b;
  }

  private static LinkBin.Builder bin(String link, long startMs) {
    return LinkBin.newBuilder()
        .setLinkId(link)
        .setProbeId("probe-1")
        .setBinStartMs(startMs)
        .setBinMs((int) T1)
        .setBytes(1_000_000)
        .setPackets(1_000);
  }

  /** good-link's bin at {@code t}: bytes vary so the burstiness is not 0. */
  private static byte[] goodBin(long t) {
    long bytes = 1_000_000 + (t / T1 % 10) * 100_000;
    return bin("good-link", t).setBytes(bytes).setPackets(bytes / 1000).build().toByteArray();
  }

  /** A valid NetFlow cheetah START event without a link. */
  private static CheetahEvent.Builder cheetah(String flowId) {
    long now = System.currentTimeMillis();
    return CheetahEvent.newBuilder()
        .setFlowId(flowId)
        .setType(CheetahEventType.CHEETAH_EVENT_TYPE_START)
        .setSource(DetectionSource.DETECTION_SOURCE_NETFLOW)
        .setEventMs(now - 5_000)
        .setSeq(1)
        .setExporter(ByteString.copyFrom(mapped(new byte[] {127, 0, 0, 1})))
        .setSrcAddr(ByteString.copyFrom(mapped(V4_A)))
        .setDstAddr(ByteString.copyFrom(mapped(V4_B)))
        .setSrcPort(7300)
        .setDstPort(443)
        .setProto(6)
        .setStartMs(now - 10_000)
        .setEndMs(now - 5_000)
        .setBytes(600_000_000)
        .setPackets(400_000)
        .setRateBps(960e6)
        .setRecords(1);
  }

  private static SnmpCounters.Builder poll(String link, long polledMs) {
    return SnmpCounters.newBuilder()
        .setLinkId(link)
        .setDevice("r1")
        .setIfIndex(3)
        .setPolledMs(polledMs)
        .setIfHighSpeedMbps(10_000);
  }

  private static LinkStats.Builder stats(String link, long startMs) {
    return LinkStats.newBuilder()
        .setLinkId(link)
        .setWindowStartMs(startMs)
        .setWindowEndMs(startMs + T2)
        .setT1Ms((int) T1)
        .setT2Ms(T2)
        .setBins(100)
        .setMeanBgBps(1e8)
        .setBurstiness(0.5)
        .setUtilization(0.1)
        .setCapacityBps(1e9);
  }
}
