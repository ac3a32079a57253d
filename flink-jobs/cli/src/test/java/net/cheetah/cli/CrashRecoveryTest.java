package net.cheetah.cli;

import static net.cheetah.cli.StoredOnce.Result.ALERTS;
import static net.cheetah.cli.StoredOnce.Result.CHEETAHS;
import static net.cheetah.cli.StoredOnce.Result.FLOWS;
import static net.cheetah.cli.StoredOnce.Result.FLOWSETS;
import static net.cheetah.cli.StoredOnce.Result.LINK_STATS;
import static net.cheetah.cli.StoredOnce.Result.REDIRECT_COMMANDS;
import static net.cheetah.cli.StoredOnce.Result.REDIRECT_DECISIONS;
import static net.cheetah.cli.StoredOnce.Result.THRESHOLDS;
import static net.cheetah.cli.StoredOnce.Result.THROUGHPUT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import net.cheetah.core.Topics;
import net.cheetah.jobs.CheetahJob;
import net.cheetah.jobs.StreamJob;
import net.cheetah.runtime.ChildProcess;
import net.cheetah.runtime.FlinkRest;
import net.cheetah.runtime.FreePorts;
import net.cheetah.runtime.Wait;
import net.cheetah.schemas.v1.LinkBin;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;

/**
 * kill -9 of `cheetah up` mid-stream, then `up` again on the same data directory and ports: every
 * job resumes from its newest retained checkpoint, not from the older savepoint of the clean stop
 * before (which would repeat what was committed since), and every flow record, cheetah, flowset,
 * link statistics window, threshold, redirect decision, throughput row and alert is stored exactly
 * once, rows counted.
 *
 * <p>Three runs of `up` in child JVMs, as the user runs it, each fed a third of one NetFlow v9
 * workload: run 1 stops cleanly (SIGTERM: savepoints); run 2 resumes from them, gets its third, and
 * is killed with SIGKILL in the middle of the longest cheetah flow, once goflow2 has published
 * every datagram sent to it (UDP sent to a dead collector is lost by design, so the truth is what
 * the collector took) and the warehouse has stored the committed results; the collector and the
 * warehouse, children of the killed JVM, must then exit by themselves. Run 3 gets the rest.
 *
 * <p>Beside the NetFlow, each run gets a third of a probe link's bins (probe.bins.v1, as the probe
 * sends them): 45.5 s of 100 ms bins, so four 10 s windows complete, the third of them with bins on
 * both sides of the kill. Their link statistics and each window's R (formula mode, a new version
 * per window) are computed here from the bins. The NetFlow exporter is the ingress of one device
 * with guardrails too wide to refuse, so every cheetah flow of the truth gets one published rule
 * and each cheetah that ended one removal; rules added before the kill are removed after it, from
 * the restored rule book. Thresholds and decisions are written at least once: their topics may
 * repeat a record after the restore (by design), their tables must not (StoredOnce).
 *
 * <p>And each run gets two slots of logged transfers and their hosts' samples for the throughput
 * job ({@link CrashThroughput}, expected by hand there): a slot is judged when the next one comes,
 * so run 1's second slot is judged after the clean stop and run 2's after the kill; the job's
 * NetFlow instances (from the workload's flows) wait behind the transfers' event time until run 3
 * too. Throughput rows and alerts of the transfers are counted on their topics and in their tables,
 * and every throughput row and alert key, the NetFlow instances' too, once.
 */
@Tag("integration")
@Timeout(value = 30, unit = TimeUnit.MINUTES)
class CrashRecoveryTest {
  static final String TEST = "crash";
  static final String LINK = "crash-link";
  static final long T1 = 100;
  static final long T2 = 10_000;
  static final double CAPACITY_BPS = 1e9; // link-stats.capacity-bps's default: no SNMP here

  @TempDir(cleanup = CleanupMode.ON_SUCCESS)
  Path dir;

  @Test
  void killDashNineMidStreamThenUpAgainStoresEachResultOnce() throws Exception {
    long t0 = System.nanoTime();
    Tools tools = EndToEnd.tools();
    Path logs = dir.resolve("logs");
    Path truth = dir.resolve("truth");
    Path all = dir.resolve("workload.dg");
    EndToEnd.generator(
        tools,
        logs,
        "netflow",
        List.of(
            "netflow",
            "--datagrams-out",
            all.toString(),
            "--version",
            "9",
            "--template-every",
            "1", // every datagram carries its templates: a restarted collector knows none
            "--seed",
            "12",
            "--time-base",
            Long.toString(EndToEnd.yesterdayAt(12 * 3_600_000L)),
            "--span",
            "900",
            "--margin",
            "300",
            "--mice-per-s",
            "2",
            "--realtime-flows",
            "6",
            "--transfers",
            "6",
            "--truth",
            truth.toString(),
            "--quiet"));
    List<RestartTest.Datagram> dgs = RestartTest.read(all);
    List<String> truthCheetahs = TruthCheck.read(truth.resolve("cheetahs.csv"));
    // The kill falls in the middle of the longest cheetah flow; the clean stop half-way before it.
    long killAt =
        truthCheetahs.stream()
            .skip(1)
            .map(l -> l.split(","))
            .max(
                java.util.Comparator.comparingLong(
                    f -> Long.parseLong(f[6]) - Long.parseLong(f[5])))
            .map(f -> (Long.parseLong(f[5]) + Long.parseLong(f[6])) / 2)
            .orElseThrow();
    int second = 0;
    while (second < dgs.size() && dgs.get(second).exportMs() < killAt) {
      second++;
    }
    int first = second / 2;
    long killMs = dgs.get(second).exportMs();
    long spanning =
        truthCheetahs.stream()
            .skip(1)
            .map(l -> l.split(","))
            .filter(f -> Long.parseLong(f[5]) < killMs && Long.parseLong(f[6]) > killMs)
            .count();
    assertThat(spanning).as("cheetahs with records on both sides of the kill").isPositive();
    long[] upTo = {records(dgs.subList(0, first)), records(dgs.subList(0, second)), records(dgs)};
    Path[] parts = {dir.resolve("1.dg"), dir.resolve("2.dg"), dir.resolve("3.dg")};
    RestartTest.write(parts[0], dgs.subList(0, first));
    RestartTest.write(parts[1], dgs.subList(first, second));
    RestartTest.write(parts[2], dgs.subList(second, dgs.size()));
    EndToEnd.say(
        TEST,
        String.format(
            "%d datagrams, %d records; clean stop after %d records, kill -9 after %d; %d cheetahs"
                + " span the kill",
            dgs.size(), upTo[2], upTo[0], upTo[1], spanning));

    // The probe link's bins: background with a cheetah's bytes in a quarter of the bins.
    long binT0 = (System.currentTimeMillis() / T2) * T2 - 10 * T2;
    Random random = new Random(12);
    List<LinkBin> bins = new ArrayList<>();
    for (long t = binT0; t < binT0 + 45_500; t += T1) {
      long bytes = 1_000_000 + random.nextInt(9_000_000);
      bins.add(
          LinkBin.newBuilder()
              .setLinkId(LINK)
              .setProbeId("crash-probe")
              .setBinStartMs(t)
              .setBinMs((int) T1)
              .setBytes(bytes)
              .setPackets(bytes / 1000)
              .setCheetahBytes(random.nextInt(4) == 0 ? bytes / 2 : 0)
              .build());
    }
    // Run 1 completes window 0 (it needs bins up to its end + 1 s), run 2 window 1 and half of
    // window 2, run 3 the rest of window 2 and window 3; window 4 stays open.
    List<List<LinkBin>> binParts =
        List.of(
            bins.stream().filter(b -> b.getBinStartMs() < binT0 + 12_000).toList(),
            bins.stream()
                .filter(
                    b -> b.getBinStartMs() >= binT0 + 12_000 && b.getBinStartMs() < binT0 + 25_000)
                .toList(),
            bins.stream().filter(b -> b.getBinStartMs() >= binT0 + 25_000).toList());
    List<Window> windows = new ArrayList<>();
    for (long w = binT0; w + T2 + 1000 <= binT0 + 45_500; w += T2) {
      windows.add(Window.of(bins, w));
    }
    assertThat(windows).hasSize(4);

    Map<String, String> sets = new LinkedHashMap<>(RestartTest.DETECTION);
    sets.put("flink.checkpoint-interval-ms", "1000");
    sets.put("link-stats.t2-ms", Long.toString(T2));
    sets.put("link-stats.sliding-every-ms", "0");
    sets.put("link-stats.lateness-ms", "1000");
    sets.put("thresholds.mode", "formula");
    sets.put("thresholds.min-change", "0"); // every window publishes R: a version per window
    // The replay's exporter (the loopback) is the ingress of one device; nothing refused.
    sets.put("redirects.link-devices", EndToEnd.LOOPBACK + "=crash-router");
    sets.put("redirects.max-rules-per-device", "100000");
    sets.put("redirects.max-new-rules-per-minute", "100000");
    sets.putAll(upOnFreePorts(dir.resolve("data")));
    sets.put("throughput.peer-window-ms", "60000"); // as CrashThroughput's scenario is worked
    CrashThroughput transfers = new CrashThroughput();

    // Run 1: a third of the workload, then a clean stop (savepoints).
    try (ChildProcess up = up(tools, logs, "up-1", sets)) {
      Ready r = ready(up);
      StoredOnce.stopMerges(tools, new WarehouseClient(r.warehouse()));
      transfers.send(r.bootstrap(), 0);
      replay(tools, logs, "replay-1", parts[0], r.netflowPort());
      sendBins(r.bootstrap(), binParts.get(0));
      awaitPublished(r.bootstrap(), upTo[0]);
      awaitFlows(tools, r, upTo[0]);
      awaitRows(r, "link_stats", 1);
      awaitRows(r, "thresholds", 1);
      CrashThroughput.awaitJudged(r.bootstrap(), 1);
      up.stop(); // SIGTERM: savepoints, warehouse caught up
      // 143 = 128 + SIGTERM: the JVM's status after its shutdown hook (the clean stop) ran.
      assertThat(up.exitCode()).as("exit code of the cleanly stopped up").contains(143);
      assertThat(stderr(up))
          .as("up-1's stderr")
          .contains("waiting for the warehouse to store everything committed")
          .doesNotContain("clean stop failed");
    }
    EndToEnd.say(TEST, String.format("run 1 stopped cleanly (%.1f s)", secs(t0)));

    // Run 2: resumes from the savepoints, gets the second third, then kill -9.
    List<ProcessHandle> orphans;
    Set<String> addedBeforeKill;
    Set<String> removedBeforeKill;
    try (ChildProcess up = up(tools, logs, "up-2", sets)) {
      Ready r = ready(up);
      assertThat(stderr(up))
          .contains("resuming " + StreamJob.stack().get(0).name() + " from savepoint");
      StoredOnce.stopMerges(tools, new WarehouseClient(r.warehouse()));
      transfers.send(r.bootstrap(), 1);
      replay(tools, logs, "replay-2", parts[1], r.netflowPort());
      sendBins(r.bootstrap(), binParts.get(1));
      awaitPublished(r.bootstrap(), upTo[1]);
      // Everything normalised is committed (so checkpoints newer than the savepoints exist), and
      // the warehouse is not in the middle of a batch when the JVM dies.
      awaitFlows(tools, r, upTo[1]);
      awaitRows(r, "link_stats", 2);
      awaitRows(r, "thresholds", 2);
      // Slots 1 and 2 judged and committed; slot 3 is judged after the kill.
      CrashThroughput.awaitJudged(r.bootstrap(), 3);
      // Every cheetah event of what was replayed is committed and has its decision stored, so the
      // rules of the cheetahs that span the kill are added before it.
      awaitJobConsumed(r.bootstrap(), CheetahJob.NAME, Topics.FLOWS);
      awaitCaughtUp(r);
      awaitDecisions(new WarehouseClient(r.warehouse()));
      addedBeforeKill = addedRules(new WarehouseClient(r.warehouse()));
      removedBeforeKill = removedRules(new WarehouseClient(r.warehouse()));
      assertThat(addedBeforeKill).as("rules added before the kill").isNotEmpty();
      ProcessHandle jvm = ProcessHandle.of(up.pid()).orElseThrow();
      orphans = jvm.descendants().toList();
      assertThat(orphans.stream().map(CrashRecoveryTest::command).toList())
          .as("children of up")
          .anyMatch(c -> c.contains("cheetah-goflow2"))
          .anyMatch(c -> c.contains("cheetah_warehouse"));
      jvm.destroyForcibly(); // SIGKILL
      up.awaitExit(Duration.ofSeconds(30));
    }
    EndToEnd.say(TEST, String.format("run 2 killed with SIGKILL (%.1f s)", secs(t0)));
    // Without the JVM, the collector and the warehouse must go by themselves: their lifeline
    // (stdin) was closed by the kernel.
    Wait.until(
        "the children of the killed up to exit: " + orphans,
        Duration.ofSeconds(90),
        () -> orphans.stream().noneMatch(ProcessHandle::isAlive));

    // Run 3, same data directory and ports: resumes from the checkpoints, gets the rest.
    try (ChildProcess up = up(tools, logs, "up-3", sets)) {
      Ready r = ready(up);
      String said = stderr(up);
      for (StreamJob job : StreamJob.stack()) {
        assertThat(said)
            .as("up-3 resumed %s from a retained checkpoint", job.name())
            .contains("resuming " + job.name() + " from checkpoint ");
      }
      WarehouseClient wh = new WarehouseClient(r.warehouse());
      StoredOnce.stopMerges(tools, wh);
      transfers.send(r.bootstrap(), 2);
      replay(tools, logs, "replay-3", parts[2], r.netflowPort());
      sendBins(r.bootstrap(), binParts.get(2));
      awaitPublished(r.bootstrap(), upTo[2]);
      transfers.sendCarriers(r.bootstrap());
      long cheetahs = EndToEnd.dataRows(truth.resolve("cheetahs.csv"));
      long flowsets = EndToEnd.dataRows(truth.resolve("flowsets.csv"));
      EndToEnd.Progress p =
          Wait.forValue(
              "the warehouse to store every result",
              Duration.ofMinutes(8),
              Duration.ofSeconds(1),
              () -> {
                try {
                  EndToEnd.Progress now = EndToEnd.Progress.of(tools, wh);
                  return now.flows() >= upTo[2]
                          && now.cheetahs() >= cheetahs
                          && now.flowsets() >= flowsets
                          && rows(wh, "link_stats") >= windows.size()
                          && rows(wh, "thresholds") >= windows.size()
                          && addedRules(wh).size() >= cheetahs
                          && removals(wh) >= ended(wh)
                      ? java.util.Optional.of(now)
                      : java.util.Optional.empty();
                } catch (Exception e) {
                  return java.util.Optional.empty();
                }
              });
      CrashThroughput.awaitJudged(r.bootstrap(), CrashThroughput.SLOTS);
      transfers.awaitStored(wh);
      awaitCaughtUp(r);
      p = EndToEnd.Progress.of(tools, wh);
      EndToEnd.say(TEST, "stored: " + p);
      assertThat(p.flows()).as("flow record rows of %d sent", upTo[2]).isEqualTo(upTo[2]);
      assertThat(p.rejected()).as("rejected records").isZero();
      assertThat(
              wh.count(
                  "SELECT count() FROM (SELECT DISTINCT exporter, observation_domain, src_addr,"
                      + " dst_addr, src_port, dst_port, proto, start_at FROM flows)"))
          .as("distinct flow records")
          .isEqualTo(upTo[2]);
      EndToEnd.assertMatchesTruth(
          tools, wh, truthCheetahs, TruthCheck.read(truth.resolve("flowsets.csv")));
      assertLinkResults(wh, windows);
      assertDecisions(wh, cheetahs, addedBeforeKill, removedBeforeKill);
      transfers.assertStored(r.bootstrap(), wh);
      List<StoredOnce.Count> counts =
          StoredOnce.count(
              tools,
              wh,
              r.bootstrap(),
              List.of(
                  FLOWS,
                  CHEETAHS,
                  FLOWSETS,
                  LINK_STATS,
                  THRESHOLDS,
                  REDIRECT_DECISIONS,
                  REDIRECT_COMMANDS,
                  THROUGHPUT,
                  ALERTS));
      counts.forEach(c -> EndToEnd.say(TEST, "stored once? " + c.line()));
      assertThat(counts.stream().filter(c -> !c.ok()).map(StoredOnce.Count::line).toList())
          .as("results stored more than once (topic or table rows)")
          .isEmpty();
      Map<String, Long> restarts = restarts(r.flink());
      EndToEnd.say(TEST, "restarts per job after the crash (REST API numRestarts): " + restarts);
      assertThat(restarts)
          .containsOnlyKeys(StreamJob.stack().stream().map(StreamJob::name).toList())
          .allSatisfy((job, n) -> assertThat(n).as("restarts of " + job).isZero());
    }
    EndToEnd.say(TEST, String.format("passed in %.1f s", secs(t0)));
  }

  record Ready(int netflowPort, String warehouse, String flink, String bootstrap) {}

  /**
   * One T2 window of the bins, by hand (docs/ARCHITECTURE.md, "Burstiness"): the background rate
   * (mean background bytes per T1 bin, in bit/s), burstiness (their standard deviation over their
   * mean), utilisation (all bytes over what C carries in T2), and R by the formula with its
   * defaults (k = 1, α_min = 0.1; "Rate threshold R"): R = max(0.1, 1 / (1 + b)) (C − r̄_bg).
   */
  record Window(long startMs, long bins, double meanBgBps, double burstiness, double utilization) {
    static Window of(List<LinkBin> all, long startMs) {
      List<LinkBin> mine =
          all.stream()
              .filter(b -> b.getBinStartMs() >= startMs && b.getBinStartMs() < startMs + T2)
              .toList();
      double[] bg = mine.stream().mapToDouble(b -> b.getBytes() - b.getCheetahBytes()).toArray();
      double mean = java.util.Arrays.stream(bg).average().orElseThrow();
      double sd =
          Math.sqrt(
              java.util.Arrays.stream(bg).map(x -> (x - mean) * (x - mean)).sum() / bg.length);
      double bytes = mine.stream().mapToDouble(LinkBin::getBytes).sum();
      return new Window(
          startMs,
          mine.size(),
          mean * 8 / (T1 / 1000.0),
          sd / mean,
          bytes * 8 / (T2 / 1000.0) / CAPACITY_BPS);
    }

    double rateBps() {
      return Math.max(0.1, 1 / (1 + burstiness)) * (CAPACITY_BPS - meanBgBps);
    }
  }

  /** Bins as the probe sends them: keyed by link, acks=all, no transaction. */
  private static void sendBins(String bootstrap, List<LinkBin> bins) throws Exception {
    Properties p = new Properties();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ProducerConfig.ACKS_CONFIG, "all");
    try (KafkaProducer<byte[], byte[]> producer =
        new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer())) {
      for (LinkBin b : bins) {
        producer.send(
            new ProducerRecord<>(
                Topics.PROBE_BINS,
                LINK.getBytes(java.nio.charset.StandardCharsets.UTF_8),
                b.toByteArray()));
      }
      producer.flush();
    }
  }

  /** Rows of a table, without FINAL (merges are stopped). */
  private static long rows(WarehouseClient wh, String table) throws Exception {
    return wh.count("SELECT count() FROM " + table);
  }

  private static void awaitRows(Ready r, String table, long n) {
    WarehouseClient wh = new WarehouseClient(r.warehouse());
    Wait.until(
        n + " rows in " + table,
        Duration.ofMinutes(4),
        () -> {
          try {
            return rows(wh, table) >= n;
          } catch (Exception e) {
            return false;
          }
        });
  }

  /** Command ids of the rules added (decisions other than removals). */
  private static Set<String> addedRules(WarehouseClient wh) throws Exception {
    String ids =
        wh.query("SELECT command_id FROM redirect_decisions WHERE action != 'remove' FORMAT TSV");
    return Set.copyOf(ids.lines().filter(l -> !l.isBlank()).toList());
  }

  /** Until each NetFlow cheetah flow stored has its rule added (the redirect job caught up). */
  private static void awaitDecisions(WarehouseClient wh) {
    Wait.until(
        "a rule for every NetFlow cheetah flow stored",
        Duration.ofMinutes(2),
        () -> {
          try {
            long flows =
                wh.count("SELECT uniqExact(flow_id) FROM cheetahs WHERE source = 'netflow'");
            return flows > 0 && addedRules(wh).size() >= flows;
          } catch (Exception e) {
            return false;
          }
        });
  }

  /**
   * Until the job's consumer group has consumed every committed record of the topic. A
   * transactional topic ends with a commit marker, which a consumer's committed offset (the next
   * record's) need not pass, and may end with a transaction aborted by a restore and its marker,
   * which no consumer reads: where more than one offset lies between the committed offset and the
   * end, the records committed in that range are counted (ConsumerLag.committedRecords).
   */
  static void awaitJobConsumed(String bootstrap, String group, String topic) {
    Properties p = new Properties();
    p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    try (Admin admin = Admin.create(p)) {
      Wait.until(
          group + " to consume every committed record of " + topic,
          Duration.ofMinutes(2),
          () -> {
            try {
              Map<TopicPartition, Long> committed = new java.util.HashMap<>();
              admin
                  .listConsumerGroupOffsets(group)
                  .partitionsToOffsetAndMetadata()
                  .get()
                  .forEach(
                      (tp, o) -> {
                        if (tp.topic().equals(topic) && o != null) {
                          committed.put(tp, o.offset());
                        }
                      });
              Map<TopicPartition, OffsetSpec> ends = new java.util.HashMap<>();
              admin
                  .describeTopics(List.of(topic))
                  .allTopicNames()
                  .get()
                  .get(topic)
                  .partitions()
                  .forEach(
                      i -> ends.put(new TopicPartition(topic, i.partition()), OffsetSpec.latest()));
              Map<TopicPartition, long[]> unread = new java.util.HashMap<>();
              admin
                  .listOffsets(
                      ends,
                      new org.apache.kafka.clients.admin.ListOffsetsOptions(
                          org.apache.kafka.common.IsolationLevel.READ_COMMITTED))
                  .all()
                  .get()
                  .forEach(
                      (tp, end) -> {
                        long at = committed.getOrDefault(tp, 0L);
                        if (end.offset() - at > 1) {
                          unread.put(tp, new long[] {at, end.offset()});
                        }
                      });
              return unread.isEmpty()
                  || net.cheetah.runtime.ConsumerLag.committedRecords(admin, unread) == 0;
            } catch (Exception e) {
              return false;
            }
          });
    }
  }

  /** Command ids of the rules removed. */
  private static Set<String> removedRules(WarehouseClient wh) throws Exception {
    String ids =
        wh.query(
            "SELECT replaces_command_id FROM redirect_decisions WHERE action = 'remove' FORMAT"
                + " TSV");
    return Set.copyOf(ids.lines().filter(l -> !l.isBlank()).toList());
  }

  private static long removals(WarehouseClient wh) throws Exception {
    return wh.count("SELECT count() FROM redirect_decisions WHERE action = 'remove'");
  }

  /** NetFlow cheetah flows that ended (the cheetah job's END events, checked by the truth). */
  private static long ended(WarehouseClient wh) throws Exception {
    return wh.count(
        "SELECT uniqExact(flow_id) FROM cheetahs WHERE source = 'netflow' AND type = 'end'");
  }

  /** Link statistics and thresholds, row by row (no FINAL), against the windows by hand. */
  private static void assertLinkResults(WarehouseClient wh, List<Window> windows) throws Exception {
    List<String[]> stats =
        wh.query(
                "SELECT link_id, toUnixTimestamp64Milli(window_start_at), bins, mean_bg_bps,"
                    + " burstiness, utilization, capacity_bps, sliding FROM link_stats"
                    + " ORDER BY window_start_at FORMAT TSV")
            .lines()
            .map(l -> l.split("\t"))
            .toList();
    List<String[]> thresholds =
        wh.query(
                "SELECT link_id, version, mode, rate_bps, mean_bg_bps, burstiness FROM thresholds"
                    + " ORDER BY version FORMAT TSV")
            .lines()
            .map(l -> l.split("\t"))
            .toList();
    assertThat(stats).as("link statistics rows (no FINAL)").hasSize(windows.size());
    assertThat(thresholds).as("threshold rows (no FINAL)").hasSize(windows.size());
    for (int i = 0; i < windows.size(); i++) {
      Window w = windows.get(i);
      String[] s = stats.get(i);
      EndToEnd.say(
          TEST,
          String.format(
              java.util.Locale.ROOT,
              "window %d: r_bg %.0f b/s, b %.4f, R %.0f b/s; stored %s b/s, %s; threshold %s",
              i,
              w.meanBgBps(),
              w.burstiness(),
              w.rateBps(),
              s[3],
              s[4],
              String.join(" ", thresholds.get(i))));
      assertThat(s[0]).isEqualTo(LINK);
      assertThat(Long.parseLong(s[1])).as("window %d start", i).isEqualTo(w.startMs());
      assertThat(Long.parseLong(s[2])).as("window %d bins", i).isEqualTo(w.bins());
      assertThat(Double.parseDouble(s[3])).isCloseTo(w.meanBgBps(), within(1e-3));
      assertThat(Double.parseDouble(s[4])).isCloseTo(w.burstiness(), within(1e-9));
      assertThat(Double.parseDouble(s[5])).isCloseTo(w.utilization(), within(1e-9));
      assertThat(Double.parseDouble(s[6])).isEqualTo(CAPACITY_BPS);
      assertThat(s[7]).isEqualTo("false");
      String[] t = thresholds.get(i);
      assertThat(t[0]).isEqualTo(LINK);
      assertThat(Long.parseLong(t[1])).as("version of window %d's R", i).isEqualTo(i + 1);
      assertThat(t[2]).isEqualTo("formula");
      assertThat(Double.parseDouble(t[3])).isCloseTo(w.rateBps(), within(1e-3 * w.rateBps()));
      assertThat(Double.parseDouble(t[4])).isCloseTo(w.meanBgBps(), within(1e-3));
      assertThat(Double.parseDouble(t[5])).isCloseTo(w.burstiness(), within(1e-9));
    }
  }

  /**
   * One published rule per cheetah flow of the truth, one removal per cheetah that ended (each of a
   * rule added), rules added before the kill removed after it, and the same rules published as
   * commands.
   */
  private static void assertDecisions(
      WarehouseClient wh, long cheetahs, Set<String> addedBeforeKill, Set<String> removedBeforeKill)
      throws Exception {
    assertThat(
            wh.query(
                "SELECT count(), uniqExact(cheetah_flow_id), countIf(outcome = 'published')"
                    + " FROM redirect_decisions WHERE action != 'remove' FORMAT TSV"))
        .as("rules added: rows, cheetah flows, published")
        .isEqualTo(cheetahs + "\t" + cheetahs + "\t" + cheetahs);
    assertThat(
            wh.count(
                "SELECT count() FROM (SELECT DISTINCT flow_id FROM cheetahs WHERE source ="
                    + " 'netflow') WHERE flow_id NOT IN (SELECT cheetah_flow_id FROM"
                    + " redirect_decisions WHERE action != 'remove')"))
        .as("NetFlow cheetah flows without a rule")
        .isZero();
    // Every cheetah of the truth ended (the wait for the results counts ended cheetahs).
    long ended = ended(wh);
    assertThat(ended).as("NetFlow cheetah flows that ended").isEqualTo(cheetahs);
    assertThat(removals(wh)).as("removals, one per cheetah that ended").isEqualTo(ended);
    assertThat(
            wh.count(
                "SELECT count() FROM redirect_decisions WHERE action = 'remove' AND"
                    + " replaces_command_id NOT IN (SELECT command_id FROM redirect_decisions"
                    + " WHERE action != 'remove')"))
        .as("removals of no rule added")
        .isZero();
    long removedAfterKill =
        removedRules(wh).stream()
            .filter(id -> addedBeforeKill.contains(id) && !removedBeforeKill.contains(id))
            .count();
    EndToEnd.say(
        TEST,
        String.format(
            "decisions: %d rules added (%d before the kill), %d removed (%d added before the"
                + " kill and removed after it)",
            cheetahs, addedBeforeKill.size(), ended, removedAfterKill));
    assertThat(removedAfterKill)
        .as("rules added before the kill and removed after it (a rule book restored)")
        .isPositive();
    assertThat(rows(wh, "redirect_commands"))
        .as("commands: every decision is published (nothing refused, no dry run)")
        .isEqualTo(cheetahs + ended);
  }

  /**
   * The settings that give a child `up` ({@link #up}) ports of its own and {@code data}: the same
   * map for every run of a test, so that a later run finds the state of an earlier one.
   */
  static Map<String, String> upOnFreePorts(Path data) throws IOException {
    Map<String, String> sets = new LinkedHashMap<>();
    sets.put("kafka.port", Integer.toString(FreePorts.pick()));
    sets.put("kafka.controller-port", Integer.toString(FreePorts.pick()));
    sets.put("flink.rest-port", Integer.toString(FreePorts.pick()));
    sets.put("netflow.udp-port", Integer.toString(EndToEnd.freeUdpPort()));
    sets.put("netflow.sflow-udp-port", Integer.toString(EndToEnd.freeUdpPort()));
    sets.put("netflow.metrics-port", Integer.toString(FreePorts.pick()));
    sets.put("warehouse.http-port", Integer.toString(FreePorts.pick()));
    sets.put("data-dir", data.toString());
    return sets;
  }

  /**
   * `cheetah up` in a child JVM with {@code sets}; stopped (SIGTERM) within 3 minutes. Waits are
   * generous: on a loaded machine one start of `up` took 8 minutes.
   */
  static ChildProcess up(Tools tools, Path logs, String name, Map<String, String> sets) {
    List<String> cmd =
        new ArrayList<>(
            List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString()));
    ManagementFactory.getRuntimeMXBean().getInputArguments().stream()
        .filter(a -> a.startsWith("--add-opens"))
        .forEach(cmd::add);
    cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), Main.class.getName(), "up"));
    sets.forEach((k, v) -> cmd.addAll(List.of("--set", k + "=" + v)));
    ChildProcess c =
        new ChildProcess(
            ChildProcess.Config.of(name, logs, cmd)
                .withEnvironment(
                    Map.of(
                        "CHEETAH_HOME", tools.home().toString(),
                        "CHEETAH_PYTHON", tools.python().toString(),
                        "CHEETAH_GOFLOW2", tools.goflow2().toString()))
                .withStopTimeout(Duration.ofMinutes(3)));
    c.start();
    return c;
  }

  static Ready ready(ChildProcess up) throws Exception {
    JsonNode j =
        new ObjectMapper()
            .readTree(up.awaitLine(l -> l.contains("\"event\":\"ready\""), Duration.ofMinutes(10)));
    EndToEnd.say(TEST, up.config().name() + " ready: " + j);
    return new Ready(
        j.path("netflow_port").asInt(),
        j.path("warehouse_url").asText(),
        j.path("flink_url").asText(),
        j.path("bootstrap").asText());
  }

  static String stderr(ChildProcess up) throws Exception {
    return Files.readString(up.config().stderrLog());
  }

  private static void replay(Tools tools, Path logs, String name, Path file, int port)
      throws Exception {
    EndToEnd.generator(
        tools,
        logs,
        name,
        List.of(
            "replay",
            "--in",
            file.toString(),
            "--target",
            EndToEnd.LOOPBACK + ":" + port,
            "--rate",
            "4000",
            "--quiet"));
  }

  /** Until goflow2 has published {@code records} flow messages in all (its topic's end offsets). */
  private static void awaitPublished(String bootstrap, long records) {
    Properties p = new Properties();
    p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    try (Admin admin = Admin.create(p)) {
      long[] last = {-1};
      try {
        Wait.until(
            "goflow2 to publish " + records + " flow records to " + Topics.GOFLOW2,
            Duration.ofMinutes(4),
            () -> {
              try {
                var parts =
                    admin
                        .describeTopics(List.of(Topics.GOFLOW2))
                        .allTopicNames()
                        .get()
                        .get(Topics.GOFLOW2)
                        .partitions();
                Map<TopicPartition, OffsetSpec> ends = new java.util.HashMap<>();
                parts.forEach(
                    tp ->
                        ends.put(
                            new TopicPartition(Topics.GOFLOW2, tp.partition()),
                            OffsetSpec.latest()));
                last[0] =
                    admin.listOffsets(ends).all().get().values().stream()
                        .mapToLong(o -> o.offset())
                        .sum();
              } catch (Exception e) {
                return false;
              }
              return last[0] >= records;
            });
      } catch (RuntimeException e) {
        throw new AssertionError(e.getMessage() + "; published " + last[0], e);
      }
      assertThat(last[0]).as("flow records published by goflow2").isEqualTo(records);
    }
  }

  /** Until the warehouse holds {@code records} flow rows and has consumed every commit. */
  private static void awaitFlows(Tools tools, Ready r, long records) throws Exception {
    WarehouseClient wh = new WarehouseClient(r.warehouse());
    Wait.until(
        "the warehouse to store " + records + " flow records",
        Duration.ofMinutes(6),
        () -> {
          try {
            return EndToEnd.Progress.of(tools, wh).flows() >= records;
          } catch (Exception e) {
            return false;
          }
        });
    awaitCaughtUp(r);
    assertThat(EndToEnd.Progress.of(tools, wh).flows()).as("flow rows").isEqualTo(records);
  }

  private static void awaitCaughtUp(Ready r) throws Exception {
    Properties p = new Properties();
    p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, r.bootstrap());
    try (Admin admin = Admin.create(p)) {
      long lag =
          net.cheetah.runtime.ConsumerLag.awaitCaughtUp(
              admin, Warehouse.GROUP_PREFIX, Duration.ofSeconds(30));
      if (lag != 0) {
        EndToEnd.say(
            TEST, "warning: warehouse lag " + lag + ": " + EndToEnd.lagReport(r.bootstrap()));
      }
    }
  }

  /** numRestarts of every running job, by name, from the Flink REST API. */
  private static Map<String, Long> restarts(String flink) throws Exception {
    FlinkRest rest = new FlinkRest(flink);
    Map<String, Long> out = new TreeMap<>();
    Wait.until(
        "the REST API to report every job's restarts",
        Duration.ofSeconds(30),
        () -> {
          out.clear();
          JsonNode overview;
          try {
            overview =
                new ObjectMapper()
                    .readTree(
                        java.net.http.HttpClient.newHttpClient()
                            .send(
                                java.net.http.HttpRequest.newBuilder(
                                        java.net.URI.create(flink + "/jobs/overview"))
                                    .build(),
                                java.net.http.HttpResponse.BodyHandlers.ofString())
                            .body());
          } catch (Exception e) {
            return false;
          }
          for (JsonNode j : overview.path("jobs")) {
            if ("RUNNING".equals(j.path("state").asText())) {
              var n = rest.restarts(j.path("jid").asText());
              if (n.isEmpty()) {
                return false;
              }
              out.put(j.path("name").asText(), n.getAsLong());
            }
          }
          return out.size() == StreamJob.stack().size();
        });
    return out;
  }

  private static long records(List<RestartTest.Datagram> dgs) {
    return dgs.stream().mapToLong(RestartTest.Datagram::records).sum();
  }

  private static String command(ProcessHandle h) {
    return h.info().commandLine().orElse(h.info().command().orElse(""));
  }

  private static double secs(long t0) {
    return (System.nanoTime() - t0) / 1e9;
  }
}
