package net.cheetah.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.DatagramSocket;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import net.cheetah.config.CheetahConfig;
import net.cheetah.jobs.JobSettings;
import net.cheetah.jobs.StreamJob;
import net.cheetah.runtime.ChildProcess;
import net.cheetah.runtime.Wait;
import org.apache.flink.api.common.JobStatus;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * What the end-to-end tests run on: the tools `./cheetah setup` installs, the workload generator,
 * external programs as children stopped by PID, and waits on the stack's warehouse. Everything
 * listens on 127.0.0.1.
 */
final class EndToEnd {
  static final String LOOPBACK = "127.0.0.1";
  private static final long DAY_MS = 86_400_000L;

  private EndToEnd() {}

  /** The tools of this checkout (cheetah.root, set by surefire), failing clearly if missing. */
  static Tools tools() {
    String root = System.getProperty("cheetah.root");
    if (root == null || root.isBlank()) {
      throw new IllegalStateException(
          "system property cheetah.root is not set (surefire sets it to the repository root)");
    }
    Path home = Path.of(root).toAbsolutePath().normalize();
    Tools t =
        new Tools(
            home,
            home.resolve(".cheetah/venv/bin/python"),
            home.resolve(".cheetah/bin/cheetah-goflow2"),
            "nfdump");
    require(Files.isExecutable(t.python()), "the Python venv at " + t.python());
    require(Files.isExecutable(t.goflow2()), "the goflow2 collector at " + t.goflow2());
    requireOnPath("nfdump");
    return t;
  }

  /** The program on PATH (or in /usr/sbin, /sbin); fails with the setup hint when missing. */
  static Path requireOnPath(String program) {
    List<String> dirs =
        new ArrayList<>(Arrays.asList(System.getenv().getOrDefault("PATH", "").split(":")));
    dirs.addAll(List.of("/usr/sbin", "/sbin"));
    for (String d : dirs) {
      Path p = Path.of(d.isEmpty() ? "." : d, program);
      if (Files.isExecutable(p)) {
        return p;
      }
    }
    throw new IllegalStateException(program + " is not installed; run ./cheetah setup first");
  }

  private static void require(boolean ok, String what) {
    if (!ok) {
      throw new IllegalStateException(what + " is missing; run ./cheetah setup first");
    }
  }

  /** Defaults plus test-scale overrides (CheetahConfig keys). */
  static CheetahConfig config(Map<String, String> overrides) {
    return CheetahConfig.load(Optional.empty(), overrides);
  }

  /**
   * Yesterday (UTC) at {@code msOfDay}: recent enough for the warehouse TTLs and the normaliser's
   * clock checks, in the past whenever the test runs.
   */
  static long yesterdayAt(long msOfDay) {
    long today = LocalDate.now(ZoneOffset.UTC).toEpochDay() * DAY_MS;
    return today - DAY_MS + msOfDay;
  }

  /** A UDP port free on 127.0.0.1 a moment ago (for the programs that need a number). */
  static int freeUdpPort() throws IOException {
    try (DatagramSocket s = new DatagramSocket(new InetSocketAddress(LOOPBACK, 0))) {
      return s.getLocalPort();
    }
  }

  /** Runs the workload generator (python -m cheetah_generator ARGS) to completion. */
  static String generator(Tools t, Path logs, String name, List<String> args)
      throws IOException, InterruptedException {
    List<String> cmd = new ArrayList<>(List.of(t.python().toString(), "-m", "cheetah_generator"));
    cmd.addAll(args);
    return run(
        logs,
        name,
        cmd,
        Map.of("PYTHONPATH", t.home().resolve("ingest/generator").toString()),
        Duration.ofMinutes(3));
  }

  /**
   * Runs a program to completion (no shell); returns stdout+stderr. Fails with its output when it
   * exits non-zero or outlives {@code timeout} (then it is killed by PID).
   */
  static String run(
      Path logs, String name, List<String> cmd, Map<String, String> env, Duration timeout)
      throws IOException, InterruptedException {
    Files.createDirectories(logs);
    Path out = logs.resolve(name + ".log");
    ProcessBuilder pb =
        new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(out.toFile());
    pb.environment().putAll(env);
    Process p = pb.start();
    try {
      if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
        throw new AssertionError(
            name + " did not finish within " + timeout + ": " + String.join(" ", cmd));
      }
    } finally {
      if (p.isAlive()) {
        p.destroyForcibly();
        p.waitFor(5, TimeUnit.SECONDS);
      }
    }
    String text = Files.readString(out);
    if (p.exitValue() != 0) {
      throw new AssertionError(
          name + " exited " + p.exitValue() + ": " + String.join(" ", cmd) + "\n" + text);
    }
    return text;
  }

  /** A long-running program, logging to logs/NAME.*.log; stopped with SIGTERM by its PID. */
  static ChildProcess child(Path logs, String name, List<String> cmd, Map<String, String> env) {
    ChildProcess c =
        new ChildProcess(
            ChildProcess.Config.of(name, logs, cmd)
                .withEnvironment(env)
                .withStopTimeout(Duration.ofSeconds(15)));
    c.start();
    return c;
  }

  /**
   * A real nfcapd on 127.0.0.1:{@code port} writing {@code archive} (one file per hour, UTC), with
   * {@code extra} arguments; returned once it says it started. Stop it (SIGTERM) to close its file.
   */
  static ChildProcess nfcapd(Path logs, Path nfcapd, int port, Path archive, String... extra) {
    List<String> cmd =
        new ArrayList<>(
            List.of(
                nfcapd.toString(),
                "-b",
                LOOPBACK,
                "-p",
                Integer.toString(port),
                "-w",
                archive.toString(),
                "-t",
                "3600"));
    cmd.addAll(List.of(extra));
    ChildProcess capd = child(logs, "nfcapd", cmd, Map.of("TZ", "UTC"));
    try {
      capd.awaitStderrLine(l -> l.startsWith("Startup nfcapd"), Duration.ofSeconds(30));
    } catch (RuntimeException e) {
      capd.stop(); // by its PID; the caller never gets it to close
      throw e;
    }
    return capd;
  }

  /** `catch`: records every datagram sent to a free loopback port into {@code out}. */
  static final class Catcher implements AutoCloseable {
    final ChildProcess process;
    final int port;

    Catcher(Tools t, Path logs, String name, Path out, double idleSeconds) {
      process =
          child(
              logs,
              name,
              List.of(
                  t.python().toString(),
                  "-m",
                  "cheetah_generator",
                  "catch",
                  "--listen",
                  LOOPBACK + ":0",
                  "--out",
                  out.toString(),
                  "--idle",
                  Double.toString(idleSeconds),
                  "--timeout",
                  "300"),
              Map.of("PYTHONPATH", t.home().resolve("ingest/generator").toString()));
      String line =
          process.awaitStderrLine(l -> l.startsWith("listening on "), Duration.ofSeconds(30));
      Matcher m = Pattern.compile("listening on [0-9.]+:(\\d+)").matcher(line);
      assertThat(m.find()).as("catch printed its port: %s", line).isTrue();
      port = Integer.parseInt(m.group(1));
    }

    /** Waits for the catcher to stop by itself (--idle after the last datagram); its count. */
    int awaitCaught(Duration timeout) {
      int rc = process.awaitExit(timeout);
      assertThat(rc).as("catch exit code").isZero();
      String all = String.join("\n", process.stderrTail());
      Matcher m = Pattern.compile("caught (\\d+) datagrams").matcher(all);
      assertThat(m.find()).as("catch reported a count: %s", all).isTrue();
      return Integer.parseInt(m.group(1));
    }

    @Override
    public void close() {
      process.stop();
    }
  }

  /** The warehouse's progress counters (demo_progress.sql): flows, cheetahs, flowsets, rejected. */
  record Progress(long flows, long cheetahs, long flowsets, long rejected) {
    static Progress of(Tools t, WarehouseClient wh) throws IOException, InterruptedException {
      long[] v =
          Arrays.stream(wh.query(DemoCommand.query(t, "demo_progress.sql")).split("\t"))
              .mapToLong(Long::parseLong)
              .toArray();
      return new Progress(v[0], v[1], v[2], v[3]);
    }
  }

  /**
   * Waits until the warehouse holds at least the expected counts and they stopped moving (two equal
   * polls a second apart), then until it consumed every committed result record; returns the final
   * counts (the caller asserts them exactly).
   */
  static Progress awaitStored(
      Stack stack, Tools t, long flows, long cheetahs, long flowsets, Duration timeout)
      throws Exception {
    WarehouseClient wh = new WarehouseClient(stack.warehouseUrl());
    Progress[] last = new Progress[1];
    int[] stable = new int[1];
    try {
      Wait.forValue(
          "the warehouse to store "
              + flows
              + " flow records, "
              + cheetahs
              + " cheetahs and "
              + flowsets
              + " flowsets",
          timeout,
          Duration.ofSeconds(1),
          () -> {
            Progress p;
            try {
              p = Progress.of(t, wh);
            } catch (IOException | InterruptedException e) {
              return Optional.empty();
            }
            stable[0] = p.equals(last[0]) ? stable[0] + 1 : 0;
            last[0] = p;
            boolean reached = p.flows() >= flows && p.cheetahs() >= cheetahs;
            reached &= p.flowsets() >= flowsets;
            return reached && stable[0] >= 2 ? Optional.of(p) : Optional.empty();
          });
    } catch (RuntimeException e) {
      throw new AssertionError(e.getMessage() + "; last seen " + last[0], e);
    }
    // Best effort: the stored rows are compared exactly afterwards. Stack's lag counts every offset
    // below the read-committed end, so offsets the warehouse never consumes (e.g. an aborted
    // transaction at the tail of a partition) can keep it above 0: report, don't fail.
    awaitCaughtUp(stack);
    return Progress.of(t, wh);
  }

  /** Waits (30 s at most) for the warehouse to consume every committed result; reports a lag. */
  static void awaitCaughtUp(Stack stack) throws InterruptedException {
    long lag = stack.awaitWarehouseCaughtUp(Duration.ofSeconds(30));
    if (lag != 0) {
      System.err.println(
          "warning: warehouse lag " + lag + " after 30 s: " + lagReport(stack.bootstrap()));
    }
  }

  /** Per warehouse consumer group and partition: committed offset vs read-committed end. */
  static String lagReport(String bootstrap) {
    Properties p = new Properties();
    p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    StringBuilder out = new StringBuilder();
    try (Admin admin = Admin.create(p)) {
      for (var g : admin.listConsumerGroups().all().get()) {
        if (!g.groupId().startsWith(Warehouse.GROUP_PREFIX)) {
          continue;
        }
        Map<TopicPartition, OffsetAndMetadata> committed =
            admin.listConsumerGroupOffsets(g.groupId()).partitionsToOffsetAndMetadata().get();
        Map<TopicPartition, OffsetSpec> latest = new java.util.HashMap<>();
        committed.keySet().forEach(tp -> latest.put(tp, OffsetSpec.latest()));
        var ends =
            admin
                .listOffsets(latest, new ListOffsetsOptions(IsolationLevel.READ_COMMITTED))
                .all()
                .get();
        for (var e : committed.entrySet()) {
          long at = e.getValue() == null ? 0 : e.getValue().offset();
          out.append(
              String.format(
                  "%s %s committed %d end %d; ",
                  g.groupId(), e.getKey(), at, ends.get(e.getKey()).offset()));
        }
      }
    } catch (Exception e) {
      out.append("(unavailable: ").append(e.getMessage()).append(")");
    }
    return out.toString();
  }

  /** Rows of a CSV query (no header) as lines. */
  static List<String> csv(Tools t, WarehouseClient wh, String queryFile)
      throws IOException, InterruptedException {
    String s = wh.query(DemoCommand.query(t, queryFile));
    return s.isBlank() ? List.of() : Arrays.asList(s.split("\n"));
  }

  /** Asserts that every stored cheetah and flowset equals the truth (TruthCheck). */
  static void assertMatchesTruth(
      Tools t, WarehouseClient wh, List<String> truthCheetahs, List<String> truthFlowsets)
      throws IOException, InterruptedException {
    TruthCheck.Outcome c = TruthCheck.cheetahs(truthCheetahs, csv(t, wh, "demo_cheetahs.sql"));
    TruthCheck.Outcome f = TruthCheck.flowsets(truthFlowsets, csv(t, wh, "demo_flowsets.sql"));
    assertThat(c.expected())
        .as("cheetahs in the truth (an empty workload proves nothing)")
        .isPositive();
    assertThat(f.expected()).as("flowsets in the truth").isPositive();
    assertThat(c.differences()).as(c.summary("cheetah flows")).isEmpty();
    assertThat(c.ok()).as(c.summary("cheetah flows")).isTrue();
    assertThat(f.differences()).as(f.summary("flowsets")).isEmpty();
    assertThat(f.ok()).as(f.summary("flowsets")).isTrue();
  }

  /**
   * Stops the warehouse's background merges for the rest of the stack's run, so that a result
   * stored twice stays visible to {@link #assertStoredOnce}. Call right after {@code start()},
   * before any result arrives.
   */
  static void stopMerges(Stack stack, Tools t) throws IOException, InterruptedException {
    StoredOnce.stopMerges(t, new WarehouseClient(stack.warehouseUrl()));
  }

  /**
   * Asserts that each result is stored once: no key twice on its topic (read committed) nor in its
   * table without FINAL (after {@link #stopMerges}). StoredOnce explains the keys.
   */
  static void assertStoredOnce(Stack stack, Tools t, StoredOnce.Result... results)
      throws IOException, InterruptedException {
    List<StoredOnce.Count> counts =
        StoredOnce.count(
            t, new WarehouseClient(stack.warehouseUrl()), stack.bootstrap(), List.of(results));
    counts.forEach(c -> System.err.println("stored once? " + c.line()));
    assertThat(counts.stream().filter(c -> !c.ok()).map(StoredOnce.Count::line).toList())
        .as("results stored more than once")
        .isEmpty();
  }

  /** Data rows of a truth/analyze CSV file (header dropped). */
  static int dataRows(Path csv) throws IOException {
    return (int)
        Files.readAllLines(csv).stream().filter(l -> !l.isBlank() && !l.startsWith("src,")).count();
  }

  /**
   * Every job of the stack runs and never restarted (numRestarts from the Flink REST API, {@link
   * Stack#jobRestarts()}): a restart loses nothing, but it means something threw, which a test that
   * kills nothing must not hide. Call it at the end of the test, with the stack still up.
   */
  static void assertNoRestarts(Stack stack) {
    assertThat(stack.jobStatuses())
        .as("Flink jobs of the stack (a job that failed for good: see its ERROR line)")
        .containsOnlyKeys(
            net.cheetah.jobs.StreamJob.stack().stream()
                .map(net.cheetah.jobs.StreamJob::name)
                .toArray(String[]::new))
        .allSatisfy(
            (name, state) -> assertThat(state).as("state of " + name).isEqualTo(JobStatus.RUNNING));
    assertThat(stack.jobRestarts())
        .as(
            "restarts per Flink job (numRestarts, REST API %s; each restart's cause is in a"
                + " 'warning: Flink job ... restarted' line above)",
            stack.flinkUrl())
        .allSatisfy((name, restarts) -> assertThat(restarts).as("restarts of " + name).isZero());
  }

  /** Live processes started by this JVM (at any depth) whose command line contains {@code part}. */
  static List<ProcessHandle> descendants(String part) {
    return ProcessHandle.current()
        .descendants()
        .filter(ProcessHandle::isAlive)
        .filter(
            h ->
                h.info().commandLine().orElse("").contains(part)
                    || h.info().command().orElse("").contains(part))
        .toList();
  }

  /** A plain producer of bytes to {@code bootstrap}, every send acknowledged by all replicas. */
  static KafkaProducer<byte[], byte[]> producer(String bootstrap) {
    Properties p = new Properties();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ProducerConfig.ACKS_CONFIG, "all");
    return new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer());
  }

  /** Every committed record of {@code topic} so far (read_committed, up to the end offsets). */
  static List<ConsumerRecord<byte[], byte[]>> readCommitted(String bootstrap, String topic) {
    return read(bootstrap, topic, "read_committed");
  }

  /** Every record of {@code topic} so far at {@code isolation} (up to the end offsets). */
  static List<ConsumerRecord<byte[], byte[]>> read(
      String bootstrap, String topic, String isolation) {
    Properties p = new Properties();
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, isolation);
    p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    List<ConsumerRecord<byte[], byte[]>> out = new ArrayList<>();
    try (KafkaConsumer<byte[], byte[]> c =
        new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      List<TopicPartition> parts =
          c.partitionsFor(topic).stream()
              .map(i -> new TopicPartition(topic, i.partition()))
              .toList();
      c.assign(parts);
      c.seekToBeginning(parts);
      Map<TopicPartition, Long> end = c.endOffsets(parts);
      long deadline = System.currentTimeMillis() + 10_000;
      while (System.currentTimeMillis() < deadline
          && parts.stream().anyMatch(tp -> c.position(tp) < end.get(tp))) {
        c.poll(Duration.ofMillis(200)).forEach(out::add);
      }
    }
    return out;
  }

  /** One streaming job on a MiniCluster of its own (FlinkJobs), started. */
  static FlinkJobs startJob(
      StreamJob job,
      CheetahConfig cfg,
      Path data,
      String bootstrap,
      java.util.function.Consumer<String> say)
      throws Exception {
    FlinkJobs jobs =
        new FlinkJobs(
            cfg,
            data,
            true,
            say,
            List.of(
                new FlinkJobs.Job(
                    job.name(), env -> job.addTo(env, new JobSettings(bootstrap, cfg, data)))));
    jobs.start();
    return jobs;
  }

  /** Prints a progress line of a test (surefire keeps it in the report). */
  static void say(String test, String s) {
    System.err.println("[" + test + "] " + s);
  }
}
