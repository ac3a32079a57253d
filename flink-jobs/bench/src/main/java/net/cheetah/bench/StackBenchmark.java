package net.cheetah.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.DatagramSocket;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.function.Consumer;
import java.util.stream.Stream;
import net.cheetah.core.Topics;
import net.cheetah.jobs.CheetahJob;
import net.cheetah.jobs.FabricJob;
import net.cheetah.jobs.NormalizeJob;
import net.cheetah.jobs.ThroughputJob;
import net.cheetah.runtime.ChildProcess;
import net.cheetah.runtime.FlinkRest;
import net.cheetah.runtime.FreePorts;
import net.cheetah.runtime.TimeBase;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * The whole stack as users run it: {@code ./cheetah up} started as a child process (all its jobs,
 * the in-JVM broker, the warehouse fed from Kafka, goflow2) on a fresh temporary data directory and
 * free loopback ports; once it prints its {@code {"event":"ready",...}} line, the e2e workload
 * ({@link EndToEndBenchmark#preload}: N goflow2 messages of the research-site mix) is written to
 * flows.goflow2.v1 as fast as one producer can. Timed from the first message written until the
 * cheetah operator has received all N flows.v1 records (Flink REST numRecordsIn, as the e2e
 * benchmark), and until the warehouse's {@code flows} table holds exactly as many rows as flows.v1
 * has committed records (fails, exit 3, on any other count). CPU: utime + stime of the {@code up}
 * process tree from /proc (see {@link TreeCpu}). Stops {@code up} with SIGTERM (its clean stop).
 *
 * <p>Prints one line starting {@code SUMMARY stack}.
 */
public final class StackBenchmark implements BenchRun.Bench {

  /** Command-line options; see {@link #usage()}. */
  record Options(
      long records, Path cheetah, long timeoutS, boolean keep, Map<String, String> sets) {

    static Options parse(String[] args) {
      long records = 1_000_000;
      Path cheetah = null;
      long timeoutS = 900;
      boolean keep = false;
      Map<String, String> sets = new LinkedHashMap<>();
      for (int i = 0; i < args.length; i++) {
        String a = args[i];
        switch (a) {
          case "--records" -> records = number(value(args, ++i, a), a);
          case "--cheetah" -> cheetah = Path.of(value(args, ++i, a));
          case "--timeout-s" -> timeoutS = number(value(args, ++i, a), a);
          case "--keep-data" -> keep = true;
          case "--set" -> {
            String kv = value(args, ++i, a);
            int eq = kv.indexOf('=');
            if (eq < 1) {
              throw new IllegalArgumentException("--set needs KEY=VALUE, got '" + kv + "'");
            }
            String key = kv.substring(0, eq);
            if (key.equals("data-dir") || OWN_PORTS.contains(key)) {
              throw new IllegalArgumentException(
                  "--set " + key + ": the benchmark chooses it (a temp dir, free ports)");
            }
            sets.put(key, kv.substring(eq + 1));
          }
          case "-h", "--help" -> throw new Help();
          default -> throw new IllegalArgumentException("unknown option " + a + "\n" + usage());
        }
      }
      if (records < 1 || timeoutS < 10) {
        throw new IllegalArgumentException("need --records >= 1, --timeout-s >= 10\n" + usage());
      }
      if (cheetah == null) {
        throw new IllegalArgumentException(
            "need --cheetah PATH (the cheetah script; run.sh passes it)\n" + usage());
      }
      return new Options(records, cheetah, timeoutS, keep, Map.copyOf(sets));
    }

    private static long number(String v, String option) {
      try {
        return Long.parseLong(v.replace("_", "").replace(",", ""));
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException(option + " needs a whole number, got '" + v + "'");
      }
    }

    private static String value(String[] args, int i, String option) {
      if (i >= args.length) {
        throw new IllegalArgumentException(option + " needs a value\n" + usage());
      }
      return args[i];
    }

    static String usage() {
      return String.join(
          "\n",
          "usage: run.sh stack [--records N] [--timeout-s S] [--keep-data] [--set KEY=VALUE]...",
          "  ./cheetah up (the whole stack) on a temp data dir and free ports; the e2e workload",
          "  written to flows.goflow2.v1; records/s until the cheetah operator has them all,",
          "  until the warehouse stored them all (flows rows == flows.v1 records, else exit 3)",
          "  and until every job reading flows.v1 committed all of it; CPU per process of up's tree.",
          "  --records N        goflow2 messages written (default 1000000)",
          "  --timeout-s S      give up (exit 2) S seconds after the first message (default 900)",
          "  --keep-data        keep the temp data dir (logs of up, warehouse, goflow2)",
          "  --set KEY=VALUE    passed on to up (./cheetah config lists the keys); the ports and",
          "                     data-dir are the benchmark's",
          "  --cheetah PATH     run `PATH up --set ...` (run.sh: its checkout's ./cheetah)");
    }
  }

  /** --help: usage on stdout, exit 0. */
  static final class Help extends RuntimeException {
    Help() {
      super(null, null, false, false);
    }
  }

  /** The port keys of `up` (README's configuration table): each gets a free loopback port. */
  /** The jobs reading flows.v1 (FabricJob only runs with a fabric topology). */
  static final Set<String> FLOWS_READERS =
      Set.of(CheetahJob.NAME, ThroughputJob.NAME, FabricJob.NAME);

  static final List<String> OWN_PORTS =
      List.of(
          "kafka.port",
          "kafka.controller-port",
          "flink.rest-port",
          "netflow.udp-port",
          "netflow.sflow-udp-port",
          "netflow.metrics-port",
          "warehouse.http-port");

  private static final List<String> UDP_PORTS =
      List.of("netflow.udp-port", "netflow.sflow-udp-port");

  private final Options o;
  private final Consumer<String> say = s -> System.err.println("stack: " + s);
  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  private Path dir;
  private ChildProcess up;
  private volatile boolean stopped;

  @Override
  public boolean stopped() {
    return stopped;
  }

  StackBenchmark(Options o) {
    this.o = o;
  }

  public static void main(String[] args) {
    Options o;
    try {
      o = Options.parse(args);
    } catch (Help h) {
      System.out.println(Options.usage());
      System.exit(0);
      return;
    } catch (IllegalArgumentException e) {
      System.err.println("stack: " + e.getMessage());
      System.exit(64);
      return;
    }
    BenchRun.runAndExit("stack", new StackBenchmark(o));
  }

  @Override
  public int run() throws Exception {
    dir = Files.createTempDirectory("cheetah-bench-stack-");
    Map<String, String> sets = new LinkedHashMap<>(o.sets());
    for (String key : OWN_PORTS) {
      sets.put(key, Integer.toString(UDP_PORTS.contains(key) ? freeUdpPort() : FreePorts.pick()));
    }
    sets.put("data-dir", dir.resolve("data").toString());
    List<String> cmd = new ArrayList<>(List.of(o.cheetah().toString(), "up"));
    sets.forEach((k, v) -> cmd.addAll(List.of("--set", k + "=" + v)));
    say.accept("starting " + String.join(" ", cmd));
    up =
        new ChildProcess(
            ChildProcess.Config.of("up", dir, cmd)
                // up finds the checkout's tools from its working directory, as ./cheetah up run
                // there does.
                .withWorkingDirectory(o.cheetah().toAbsolutePath().getParent())
                .withStopTimeout(Duration.ofMinutes(3)));
    long u0 = System.nanoTime();
    up.start();
    JsonNode ready =
        new ObjectMapper()
            .readTree(up.awaitLine(l -> l.contains("\"event\":\"ready\""), Duration.ofMinutes(10)));
    double startS = (System.nanoTime() - u0) / 1e9;
    String bootstrap = ready.path("bootstrap").asText();
    String flinkUrl = ready.path("flink_url").asText();
    String warehouseUrl = ready.path("warehouse_url").asText();
    say.accept(f("up ready after %.1f s: %s", startS, ready));

    FlinkRest rest = new FlinkRest(flinkUrl);
    Map<String, String> jobs = new LinkedHashMap<>();
    for (FlinkRest.Job j : rest.jobs()) {
      if (j.state().equals("RUNNING")) {
        jobs.put(j.name(), j.id());
      }
    }
    String cheetah = jobs.get(CheetahJob.NAME);
    if (cheetah == null || !jobs.containsKey(NormalizeJob.NAME)) {
      throw new IllegalStateException("up is ready but does not run both jobs: " + jobs);
    }
    String vertex =
        EndToEndBenchmark.vertexNamed(
            () -> rest.progress(cheetah), EndToEndBenchmark.CHEETAH_OPERATOR);
    long before = EndToEndBenchmark.recordsIn(rest.progress(cheetah), vertex);
    if (before != 0) {
      throw new IllegalStateException(
          "the cheetah operator received " + before + " records before the benchmark wrote any");
    }

    try (Admin admin = admin(bootstrap)) {
      int partitions = partitions(admin, Topics.GOFLOW2);
      TreeCpu cpu0 = TreeCpu.of(up.pid());
      long t0 = System.nanoTime();
      SyntheticWorkload.Totals mix =
          EndToEndBenchmark.preload(bootstrap, o.records(), partitions, TimeBase.recent());
      double writtenS = (System.nanoTime() - t0) / 1e9;
      say.accept(
          f(
              "wrote %,d goflow2 messages in %.1f s (%,d mice, %,d long-flow records,"
                  + " %,d transfer records) to %d partitions",
              mix.records(),
              writtenS,
              mix.mice(),
              mix.longFlowRecords(),
              mix.transferRecords(),
              partitions));
      long deadline = t0 + Duration.ofSeconds(o.timeoutS()).toNanos();
      Map<TopicPartition, Long> goflowEnds =
          EndToEndBenchmark.endOffsets(admin, Topics.GOFLOW2, partitions, false);

      // 1. The cheetah operator has every record.
      List<long[]> samples = new ArrayList<>(); // {nanos since t0, records in}
      long in = 0;
      double normalizedS = -1;
      long nextReport = System.nanoTime() + 5_000_000_000L;
      while (in < o.records()) {
        if (System.nanoTime() > deadline) {
          say.accept(
              f(
                  "timeout after %d s: the cheetah operator received %,d of %,d records",
                  o.timeoutS(), in, o.records()));
          return 2;
        }
        up.checkAlive();
        Thread.sleep(EndToEndBenchmark.POLL.toMillis()); // polling a metric, not synchronising
        in = EndToEndBenchmark.recordsIn(rest.progress(cheetah), vertex);
        samples.add(new long[] {System.nanoTime() - t0, in});
        if (normalizedS < 0
            && EndToEndBenchmark.caughtUp(admin, NormalizeJob.NAME, goflowEnds, 0)) {
          normalizedS = (System.nanoTime() - t0) / 1e9;
        }
        if (System.nanoTime() > nextReport) {
          nextReport += 5_000_000_000L;
          say.accept(
              f(
                  "%.0f s: %,d flows.v1 records into the cheetah operator",
                  (System.nanoTime() - t0) / 1e9, in));
        }
      }
      double consumedS = (System.nanoTime() - t0) / 1e9;
      TreeCpu cpu1 = TreeCpu.of(up.pid());
      say.accept(f("%.1f s: the cheetah operator has all %,d records", consumedS, in));

      // 2. The warehouse has stored as many flows as the operator received (flows.v1's committed
      // records, which the source reads read_committed); checked against flows.v1 read back below.
      long rows = -1;
      long nextWarehouseReport = System.nanoTime() + 5_000_000_000L;
      while (rows < in) {
        if (System.nanoTime() > deadline) {
          say.accept(
              f(
                  "timeout after %d s: the warehouse stored %,d of %,d flows",
                  o.timeoutS(), rows, in));
          return 2;
        }
        up.checkAlive();
        Thread.sleep(EndToEndBenchmark.POLL.toMillis());
        rows = count(warehouseUrl, "SELECT count() FROM flows");
        if (normalizedS < 0
            && EndToEndBenchmark.caughtUp(admin, NormalizeJob.NAME, goflowEnds, 0)) {
          normalizedS = (System.nanoTime() - t0) / 1e9;
        }
        if (System.nanoTime() > nextWarehouseReport) {
          nextWarehouseReport += 5_000_000_000L;
          say.accept(f("%.0f s: %,d rows in flows", (System.nanoTime() - t0) / 1e9, rows));
        }
      }
      double storedS = (System.nanoTime() - t0) / 1e9;
      TreeCpu cpu2 = TreeCpu.of(up.pid());
      say.accept(f("%.1f s: the warehouse stored %,d flows", storedS, rows));

      // 3. Every job reading flows.v1 (the throughput job's instances and series too) has
      // committed past its end: the whole stack has processed every record, not only stored it.
      List<String> readers = jobs.keySet().stream().filter(FLOWS_READERS::contains).toList();
      Map<TopicPartition, Long> flowsEnds =
          EndToEndBenchmark.endOffsets(admin, Topics.FLOWS, partitions(admin, Topics.FLOWS), true);
      List<String> behind = new ArrayList<>(readers);
      while (true) {
        behind.removeIf(j -> caughtUpQuietly(admin, j, flowsEnds));
        if (behind.isEmpty()) {
          break;
        }
        if (System.nanoTime() > deadline) {
          say.accept(
              f("timeout after %d s: %s not past the end of flows.v1", o.timeoutS(), behind));
          return 2;
        }
        up.checkAlive();
        Thread.sleep(EndToEndBenchmark.POLL.toMillis());
      }
      double allS = (System.nanoTime() - t0) / 1e9;
      TreeCpu cpu3 = TreeCpu.of(up.pid());
      say.accept(f("%.1f s: %s committed all of flows.v1", allS, String.join(", ", readers)));
      long flowsV1 = committedRecords(bootstrap, Topics.FLOWS, deadline);

      Map<String, Long> metrics =
          EndToEndBenchmark.operatorMetrics(flinkUrl, rest.progress(cheetah), cheetah);
      double[] ckpt = EndToEndBenchmark.checkpointStats(flinkUrl, cheetah);
      String checkpoints = EndToEndBenchmark.checkpoints(flinkUrl, cheetah);
      // The other result tables once their counts stood still for 3 polls a second apart (at
      // most 30 s): what the last checkpoints committed has reached the warehouse. flows is
      // counted again then: nothing may come in twice after it first matched.
      List<Long> last = List.of();
      List<Long> now = List.of();
      int still = 0;
      for (long until = System.nanoTime() + 30_000_000_000L;
          still < 3 && System.nanoTime() < until; ) {
        Thread.sleep(1000);
        now =
            List.of(
                count(warehouseUrl, "SELECT count() FROM flows"),
                count(warehouseUrl, "SELECT count() FROM cheetahs FINAL"),
                count(warehouseUrl, "SELECT count() FROM flowsets FINAL"),
                count(warehouseUrl, "SELECT count() FROM rejected"));
        still = now.equals(last) ? still + 1 : 0;
        last = now;
      }
      long rowsAfter = now.get(0);
      long cheetahs = now.get(1);
      long flowsets = now.get(2);
      long rejected = now.get(3);
      long flowsV1After = committedRecords(bootstrap, Topics.FLOWS, deadline);

      int cores = Runtime.getRuntime().availableProcessors();
      double rate = o.records() / consumedS;
      double steady = EndToEndBenchmark.steadyRate(samples, o.records());
      double cpuConsumed = cpu1.minus(cpu0);
      double cpuStored = cpu2.minus(cpu0);
      double storedRate = (double) rows / storedS;
      String load = Files.readString(Path.of("/proc/loadavg")).trim().split(" ", 4)[0];
      List<String> lines = new ArrayList<>();
      lines.add(
          f(
              "stack: %,d flow records: producer -> flows.goflow2.v1 -> ./cheetah up (its jobs,"
                  + " the warehouse, goflow2; %d partitions); up ready %.1f s after start",
              o.records(), partitions, startS));
      lines.add(f("  jobs running: %s", String.join(", ", jobs.keySet())));
      lines.add(f("  written by one producer in %.1f s", writtenS));
      lines.add(
          f(
              "  the cheetah operator had all %,d flows.v1 records %.1f s after the first message"
                  + " written: %,.0f records/s = %,.0f per core (%d cores); steady (10%% -> 90%%)"
                  + " %,.0f records/s",
              o.records(), consumedS, rate, rate / cores, cores, steady));
      lines.add(
          f(
              "  the warehouse stored all %,d (flows rows == flows.v1 records) %.1f s after it:"
                  + " %,.0f records/s = %,.0f per core",
              flowsV1, storedS, storedRate, storedRate / cores));
      double cpuAll = cpu3.minus(cpu0);
      lines.add(
          f(
              "  every job reading flows.v1 (%s) had committed all of it %.1f s after the first"
                  + " message: %,.0f records/s = %,.0f per core, %,.0f per CPU-second of up's tree",
              String.join(", ", readers), allS, rows / allS, rows / allS / cores, rows / cpuAll));
      lines.add(
          f(
              "  CPU of up's process tree (%s: utime+stime from /proc): %.1f s until"
                  + " the operator had all (%,.0f records per CPU-second), %.1f s until stored"
                  + " (%,.0f per CPU-second); the producer (this JVM) not counted",
              cpu2.processes(),
              cpuConsumed,
              o.records() / cpuConsumed,
              cpuStored,
              rows / cpuStored));
      lines.add("  CPU per process until every job had all: " + cpu3.perProcess(cpu0));
      lines.add(
          "  normalize job committed all of flows.goflow2.v1 after "
              + (normalizedS < 0
                  ? "(not yet when the warehouse had every flow)"
                  : EndToEndBenchmark.seconds(normalizedS)));
      lines.add(
          f(
              "  warehouse: flows %,d (again once the tables stood still: %,d; flows.v1 %,d),"
                  + " cheetahs %,d,"
                  + " flowsets %,d, rejected %,d",
              rows, rowsAfter, flowsV1After, cheetahs, flowsets, rejected));
      lines.add("  operators: " + metrics);
      lines.add("  checkpoints: cheetah " + checkpoints);
      lines.add(
          f(
              "SUMMARY stack records=%d flows_v1=%d seconds=%.1f records_per_s=%.0f per_core=%.0f"
                  + " steady_per_s=%.0f per_cpu_s=%.0f stored_s=%.1f stored_per_s=%.0f"
                  + " stored_per_core=%.0f stored_per_cpu_s=%.0f all_jobs_s=%.1f"
                  + " all_jobs_per_core=%.0f all_jobs_per_cpu_s=%.0f normalized_s=%.1f written_s=%.1f"
                  + " flows_rows=%d cheetahs_rows=%d flowsets_rows=%d rejected_rows=%d"
                  + " ckpt_p50_ms=%.0f ckpt_p99_ms=%.0f state_mb=%.1f start_s=%.1f cores=%d"
                  + " load1=%s",
              o.records(),
              flowsV1,
              consumedS,
              rate,
              rate / cores,
              steady,
              o.records() / cpuConsumed,
              storedS,
              storedRate,
              storedRate / cores,
              rows / cpuStored,
              allS,
              rows / allS / cores,
              rows / cpuAll,
              normalizedS,
              writtenS,
              rowsAfter,
              cheetahs,
              flowsets,
              rejected,
              ckpt[0],
              ckpt[1],
              ckpt[2],
              startS,
              cores,
              load));
      lines.forEach(System.out::println);
      if (rows != flowsV1 || rowsAfter != flowsV1After || flowsV1After != flowsV1) {
        System.err.printf(
            Locale.ROOT,
            "stack: FAILED: the warehouse held %,d flows rows for %,d flows.v1 records, and"
                + " %,d for %,d once the tables stood still: %s%n",
            rows,
            flowsV1,
            rowsAfter,
            flowsV1After,
            rows > flowsV1 || rowsAfter > flowsV1After ? "rows doubled" : "records lost");
        return 3;
      }
      return 0;
    }
  }

  private static int partitions(Admin admin, String topic) throws Exception {
    return admin
        .describeTopics(List.of(topic))
        .allTopicNames()
        .get()
        .get(topic)
        .partitions()
        .size();
  }

  /** {@link EndToEndBenchmark#caughtUp} with the slack of a transaction marker per partition. */
  private static boolean caughtUpQuietly(Admin admin, String job, Map<TopicPartition, Long> ends) {
    try {
      return EndToEndBenchmark.caughtUp(admin, job, ends, 1);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }

  private static Admin admin(String bootstrap) {
    Properties p = new Properties();
    p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    return Admin.create(p);
  }

  /** Committed records of {@code topic} (read_committed, from the start to the end offsets). */
  static long committedRecords(String bootstrap, String topic, long deadlineNanos) {
    Properties p = new Properties();
    p.put("bootstrap.servers", bootstrap);
    p.put("isolation.level", "read_committed");
    p.put("enable.auto.commit", "false");
    p.put("max.poll.records", "10000");
    try (KafkaConsumer<byte[], byte[]> c =
        new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      List<TopicPartition> tps =
          c.partitionsFor(topic).stream()
              .map(i -> new TopicPartition(topic, i.partition()))
              .toList();
      c.assign(tps);
      c.seekToBeginning(tps);
      Map<TopicPartition, Long> ends = c.endOffsets(tps); // read_committed: the stable offsets
      Map<TopicPartition, Long> seen = new HashMap<>();
      while (tps.stream().anyMatch(tp -> c.position(tp) < ends.get(tp))) {
        if (System.nanoTime() > deadlineNanos) {
          throw new IllegalStateException("could not read " + topic + " to its end in time");
        }
        for (var r : c.poll(Duration.ofMillis(500))) {
          TopicPartition tp = new TopicPartition(r.topic(), r.partition());
          if (r.offset() < ends.get(tp)) {
            seen.merge(tp, 1L, Long::sum);
          }
        }
      }
      return seen.values().stream().mapToLong(Long::longValue).sum();
    }
  }

  /** A {@code SELECT count() ...} over the warehouse's ClickHouse HTTP front. */
  private long count(String warehouseUrl, String sql) throws IOException, InterruptedException {
    HttpResponse<String> r =
        http.send(
            HttpRequest.newBuilder(URI.create(warehouseUrl + "/?default_format=TabSeparated"))
                .timeout(Duration.ofSeconds(30))
                .POST(HttpRequest.BodyPublishers.ofString(sql, StandardCharsets.UTF_8))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    if (r.statusCode() != 200) {
      throw new IOException("the warehouse refused '" + sql + "': " + r.body().strip());
    }
    return Long.parseLong(r.body().strip());
  }

  private static int freeUdpPort() throws IOException {
    try (DatagramSocket s = new DatagramSocket(new InetSocketAddress(FreePorts.LOOPBACK, 0))) {
      return s.getLocalPort();
    }
  }

  private static String f(String format, Object... args) {
    return String.format(Locale.ROOT, format, args);
  }

  /** Stops up (SIGTERM: its clean stop) and deletes the temp dir; safe to call twice. */
  @Override
  public synchronized void stop() {
    stopped = true;
    if (up != null) {
      say.accept("stopping up (pid " + up.pid() + ", SIGTERM)");
      long s0 = System.nanoTime();
      up.stop();
      say.accept(
          f(
              "up stopped in %.1f s (exit %s)",
              (System.nanoTime() - s0) / 1e9, up.exitCode().map(String::valueOf).orElse("?")));
      up = null;
    }
    if (dir != null) {
      BenchRun.removeDir(dir, o.keep(), say);
      dir = null;
    }
  }

  /**
   * CPU time of a process and its descendants at one moment: per live process, utime + stime +
   * cutime + cstime from /proc/PID/stat (its own CPU and that of its children it has waited for).
   * Between two snapshots, a process in both counts its difference, one only in the later its whole
   * time; a process that started and exited between them counts only if its parent in the tree
   * waited for it. The JVM's threads are in its own utime/stime.
   */
  record TreeCpu(Map<Long, Long> ticks) {
    /** USER_HZ: the unit of /proc/PID/stat times on Linux (100 on every mainstream build). */
    static final double TICKS_PER_S = 100.0;

    static TreeCpu of(long pid) {
      Map<Long, Long> t = new HashMap<>();
      ProcessHandle root =
          ProcessHandle.of(pid).orElseThrow(() -> new IllegalStateException("no process " + pid));
      Stream.concat(Stream.of(root), root.descendants())
          .forEach(p -> ticksOf(p.pid()).ifPresent(v -> t.put(p.pid(), v)));
      return new TreeCpu(t);
    }

    /** The processes of the snapshot, by program name: "java 1234, python3 1240, ...". */
    String processes() {
      return String.join(
          ", ", ticks.keySet().stream().sorted().map(pid -> program(pid) + " " + pid).toList());
    }

    /** CPU seconds of each process since {@code earlier}: "java 81.2 s, python3.11 30.4 s". */
    String perProcess(TreeCpu earlier) {
      return String.join(
          ", ",
          ticks.keySet().stream()
              .sorted()
              .map(
                  pid ->
                      f(
                          "%s %.1f s",
                          program(pid),
                          (ticks.get(pid) - earlier.ticks.getOrDefault(pid, 0L)) / TICKS_PER_S))
              .toList());
    }

    private static String program(long pid) {
      return ProcessHandle.of(pid)
          .flatMap(h -> h.info().command())
          .map(c -> Path.of(c).getFileName().toString())
          .orElse("?");
    }

    /** CPU seconds of the tree since {@code earlier}. */
    double minus(TreeCpu earlier) {
      long sum = 0;
      for (Map.Entry<Long, Long> e : ticks.entrySet()) {
        sum += e.getValue() - earlier.ticks.getOrDefault(e.getKey(), 0L);
      }
      return sum / TICKS_PER_S;
    }

    private static java.util.OptionalLong ticksOf(long pid) {
      try {
        String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
        // After "pid (comm) ": state is field 3; utime, stime, cutime, cstime are 14..17.
        String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        return java.util.OptionalLong.of(
            Long.parseLong(f[11])
                + Long.parseLong(f[12])
                + Long.parseLong(f[13])
                + Long.parseLong(f[14]));
      } catch (IOException | RuntimeException e) {
        return java.util.OptionalLong.empty(); // exited meanwhile
      }
    }
  }
}
