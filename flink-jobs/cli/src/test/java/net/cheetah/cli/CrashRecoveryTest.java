package net.cheetah.cli;

import static net.cheetah.cli.StoredOnce.Result.CHEETAHS;
import static net.cheetah.cli.StoredOnce.Result.FLOWS;
import static net.cheetah.cli.StoredOnce.Result.FLOWSETS;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import net.cheetah.core.Topics;
import net.cheetah.jobs.StreamJob;
import net.cheetah.runtime.ChildProcess;
import net.cheetah.runtime.FlinkRest;
import net.cheetah.runtime.FreePorts;
import net.cheetah.runtime.Wait;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;

/**
 * kill -9 of `cheetah up` mid-stream, then `up` again on the same data directory and ports: every
 * job resumes from its newest retained checkpoint, not from the older savepoint of the clean stop
 * before (which would repeat what was committed since), and every flow record, cheetah and flowset
 * is stored exactly once, rows counted.
 *
 * <p>Three runs of `up` in child JVMs, as the user runs it, each fed a third of one NetFlow v9
 * workload: run 1 stops cleanly (SIGTERM: savepoints); run 2 resumes from them, gets its third, and
 * is killed with SIGKILL in the middle of the longest cheetah flow, once goflow2 has published
 * every datagram sent to it (UDP sent to a dead collector is lost by design, so the truth is what
 * the collector took) and the warehouse has stored the committed results; the collector and the
 * warehouse, children of the killed JVM, must then exit by themselves. Run 3 gets the rest.
 */
@Tag("integration")
@Timeout(value = 30, unit = TimeUnit.MINUTES)
class CrashRecoveryTest {
  static final String TEST = "crash";

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

    Map<String, String> sets = new LinkedHashMap<>(RestartTest.DETECTION);
    sets.put("flink.checkpoint-interval-ms", "1000");
    sets.put("kafka.port", Integer.toString(FreePorts.pick()));
    sets.put("kafka.controller-port", Integer.toString(FreePorts.pick()));
    sets.put("flink.rest-port", Integer.toString(FreePorts.pick()));
    sets.put("netflow.udp-port", Integer.toString(EndToEnd.freeUdpPort()));
    sets.put("netflow.metrics-port", Integer.toString(FreePorts.pick()));
    sets.put("warehouse.http-port", Integer.toString(FreePorts.pick()));
    sets.put("data-dir", dir.resolve("data").toString());

    // Run 1: a third of the workload, then a clean stop (savepoints).
    try (ChildProcess up = up(tools, logs, "up-1", sets)) {
      Ready r = ready(up);
      StoredOnce.stopMerges(tools, new WarehouseClient(r.warehouse()));
      replay(tools, logs, "replay-1", parts[0], r.netflowPort());
      awaitPublished(r.bootstrap(), upTo[0]);
      awaitFlows(tools, r, upTo[0]);
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
    try (ChildProcess up = up(tools, logs, "up-2", sets)) {
      Ready r = ready(up);
      assertThat(stderr(up))
          .contains("resuming " + StreamJob.stack().get(0).name() + " from savepoint");
      StoredOnce.stopMerges(tools, new WarehouseClient(r.warehouse()));
      replay(tools, logs, "replay-2", parts[1], r.netflowPort());
      awaitPublished(r.bootstrap(), upTo[1]);
      // Everything normalised is committed (so checkpoints newer than the savepoints exist), and
      // the warehouse is not in the middle of a batch when the JVM dies.
      awaitFlows(tools, r, upTo[1]);
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
      replay(tools, logs, "replay-3", parts[2], r.netflowPort());
      awaitPublished(r.bootstrap(), upTo[2]);
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
                      ? java.util.Optional.of(now)
                      : java.util.Optional.empty();
                } catch (Exception e) {
                  return java.util.Optional.empty();
                }
              });
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
      List<StoredOnce.Count> counts =
          StoredOnce.count(tools, wh, r.bootstrap(), List.of(FLOWS, CHEETAHS, FLOWSETS));
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
   * `cheetah up` in a child JVM with {@code sets}; stopped (SIGTERM) within 3 minutes. Waits are
   * generous: on a loaded machine one start of `up` took 8 minutes.
   */
  private static ChildProcess up(Tools tools, Path logs, String name, Map<String, String> sets) {
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

  private static Ready ready(ChildProcess up) throws Exception {
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

  private static String stderr(ChildProcess up) throws Exception {
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
