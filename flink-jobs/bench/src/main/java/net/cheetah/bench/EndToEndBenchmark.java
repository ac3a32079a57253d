package net.cheetah.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.net.URLEncoder;
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
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.function.Supplier;
import net.cheetah.config.CheetahConfig;
import net.cheetah.core.Topics;
import net.cheetah.jobs.CheetahJob;
import net.cheetah.jobs.JobSettings;
import net.cheetah.jobs.NormalizeJob;
import net.cheetah.jobs.flink.RestartStrategy;
import net.cheetah.runtime.EmbeddedFlink;
import net.cheetah.runtime.EmbeddedKafka;
import net.cheetah.runtime.TopicLayout;
import org.apache.flink.api.common.JobID;
import org.apache.flink.core.execution.CheckpointingMode;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * End-to-end throughput of the streaming path in the embedded runtime, as `cheetah up` runs it: an
 * in-JVM broker and a Flink MiniCluster (loopback, free ports, a temp dir), flows.goflow2.v1
 * pre-loaded with N goflow2 messages of {@link SyntheticWorkload}, then the normalize job and the
 * cheetah job (cheetahs + flowsets) submitted as the CLI's Stack does (parallelism 1 each,
 * exactly-once checkpoints every 2 s). Measures the time from both jobs running until the cheetah
 * operator has received all N flows.v1 records (Flink's numRecordsIn of its vertex), and until the
 * cheetah job has committed its Kafka offsets past the end of flows.v1 (its exactly-once output
 * committed with it).
 *
 * <p>Prints one line starting {@code SUMMARY e2e}. Everything it starts is stopped, also on
 * failure, timeout or Ctrl-C; the temp dir is deleted unless {@code --keep-data}.
 */
public final class EndToEndBenchmark implements BenchRun.Bench {

  /** Command-line options; see {@link #usage()}. */
  record Options(
      long records,
      int partitions,
      int parallelism,
      long checkpointMs,
      long timeoutS,
      boolean keep,
      boolean checkOrder) {

    static Options parse(String[] args) {
      long records = 1_000_000;
      int partitions = 2;
      int parallelism = 1;
      long checkpointMs = CheetahConfig.defaultConfig().flink().checkpointIntervalMs();
      long timeoutS = 900;
      boolean keep = false;
      boolean checkOrder = false;
      for (int i = 0; i < args.length; i++) {
        String a = args[i];
        switch (a) {
          case "--records" -> records = Long.parseLong(value(args, ++i, a).replace("_", ""));
          case "--partitions" -> partitions = Integer.parseInt(value(args, ++i, a));
          case "--parallelism" -> parallelism = Integer.parseInt(value(args, ++i, a));
          case "--checkpoint-ms" -> checkpointMs = Long.parseLong(value(args, ++i, a));
          case "--timeout-s" -> timeoutS = Long.parseLong(value(args, ++i, a));
          case "--keep-data" -> keep = true;
          case "--check-order" -> checkOrder = true;
          case "-h", "--help" -> {
            System.out.println(usage());
            System.exit(0);
          }
          default -> throw new IllegalArgumentException("unknown option " + a + "\n" + usage());
        }
      }
      if (records < 1 || partitions < 1 || parallelism < 1 || checkpointMs < 100 || timeoutS < 10) {
        throw new IllegalArgumentException(
            "need --records >= 1, --partitions >= 1, --parallelism >= 1, --checkpoint-ms >= 100,"
                + " --timeout-s >= 10\n"
                + usage());
      }
      return new Options(
          records, partitions, parallelism, checkpointMs, timeoutS, keep, checkOrder);
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
          "usage: EndToEndBenchmark [--records N] [--partitions P] [--parallelism K]",
          "                         [--checkpoint-ms MS] [--timeout-s S] [--keep-data]",
          "                         [--check-order]",
          "  --records N        goflow2 messages pre-loaded (default 1000000)",
          "  --partitions P     partitions of every topic (default 2, as kafka.partitions)",
          "  --parallelism K    parallelism of each job (default 1, as the embedded stack)",
          "  --checkpoint-ms MS exactly-once checkpoint interval (default 2000, as the stack)",
          "  --timeout-s S      give up (exit 2) after S seconds of processing (default 900)",
          "  --keep-data        keep the temp dir (broker log, checkpoints) for inspection",
          "  --check-order      afterwards, read flows.v1 back and report how far each",
          "                     partition's event time (record end) goes backwards");
    }
  }

  /** The cheetah job's vertex whose numRecordsIn counts the flows.v1 records it received. */
  static final String CHEETAH_OPERATOR = "cheetahs: stitch";

  static final Duration POLL = Duration.ofMillis(200);
  private static final HttpClient HTTP = HttpClient.newHttpClient();
  private static final ObjectMapper JSON = new ObjectMapper();

  private final Options o;
  private final Consumer<String> say = s -> System.err.println("e2e: " + s);
  private Path dir;
  private EmbeddedKafka kafka;
  private EmbeddedFlink flink;
  private volatile boolean stopped;

  @Override
  public boolean stopped() {
    return stopped;
  }

  EndToEndBenchmark(Options o) {
    this.o = o;
  }

  public static void main(String[] args) throws Exception {
    Options o;
    try {
      o = Options.parse(args);
    } catch (IllegalArgumentException e) {
      System.err.println(e.getMessage());
      System.exit(64);
      return;
    }
    BenchRun.runAndExit("e2e", new EndToEndBenchmark(o));
  }

  @Override
  public int run() throws Exception {
    dir = Files.createTempDirectory("cheetah-bench-e2e-");
    say.accept("data in " + dir + "; starting Kafka (KRaft, in-JVM)");
    kafka = new EmbeddedKafka(EmbeddedKafka.Config.defaults(dir).withPorts(0, 0));
    kafka.start();
    String bootstrap = kafka.bootstrapServers();
    new TopicLayout(TopicLayout.Config.embedded().withPartitions(o.partitions(), o.partitions()))
        .createAll(kafka);
    awaitLeaders();

    long p0 = System.nanoTime();
    SyntheticWorkload.Totals mix = preload(bootstrap, o.records(), o.partitions());
    double preloadS = (System.nanoTime() - p0) / 1e9;
    say.accept(
        String.format(
            Locale.ROOT,
            "pre-loaded %,d goflow2 messages in %.1f s (%,d mice, %,d long-flow records,"
                + " %,d transfer records)",
            mix.records(),
            preloadS,
            mix.mice(),
            mix.longFlowRecords(),
            mix.transferRecords()));

    say.accept("starting the Flink MiniCluster");
    flink =
        new EmbeddedFlink(
            EmbeddedFlink.Config.defaults(dir)
                .withFreePorts()
                .withTaskSlots(CheetahConfig.defaultConfig().flink().slots())
                // As the stack's jobs: a job that keeps throwing fails the run, never loops.
                .withOverrides(
                    RestartStrategy.settings(CheetahConfig.defaultConfig().flink().restarts())));
    flink.start();

    Cpu cpu0 = Cpu.now();
    long s0 = System.nanoTime();
    JobSettings settings = new JobSettings(bootstrap, CheetahConfig.defaultConfig(), dir);
    JobID normalize = submit(NormalizeJob.NAME, env -> new NormalizeJob().addTo(env, settings));
    JobID cheetah = submit(CheetahJob.NAME, env -> new CheetahJob().addTo(env, settings));
    flink.awaitRunning(normalize, Duration.ofSeconds(60));
    flink.awaitRunning(cheetah, Duration.ofSeconds(60));
    long r0 = System.nanoTime();
    Cpu cpuRunning = Cpu.now();
    say.accept(String.format(Locale.ROOT, "jobs running %.1f s after submission", (r0 - s0) / 1e9));

    String vertex = vertexNamed(() -> flink.progress(cheetah), CHEETAH_OPERATOR);
    long deadline = r0 + Duration.ofSeconds(o.timeoutS()).toNanos();
    List<long[]> samples = new ArrayList<>(); // {nanos since r0, records in}
    long in = 0;
    long nextReport = System.nanoTime() + 5_000_000_000L;
    double normalizedS = -1;
    long r1;
    Cpu cpu1;
    try (Admin admin = kafka.newAdmin()) {
      Map<TopicPartition, Long> goflowEnds = endOffsets(admin, Topics.GOFLOW2, false);
      while (in < o.records()) {
        if (System.nanoTime() > deadline) {
          say.accept(
              String.format(
                  Locale.ROOT,
                  "timeout after %d s: the cheetah operator received %,d of %,d records",
                  o.timeoutS(),
                  in,
                  o.records()));
          return 2;
        }
        Thread.sleep(POLL.toMillis()); // polling a metric, not synchronising
        in = recordsIn(flink.progress(cheetah), vertex);
        samples.add(new long[] {System.nanoTime() - r0, in});
        if (normalizedS < 0 && caughtUp(admin, NormalizeJob.NAME, goflowEnds, 0)) {
          normalizedS = (System.nanoTime() - r0) / 1e9;
          say.accept(
              String.format(
                  Locale.ROOT,
                  "%.1f s: the normalize job has committed all its input",
                  normalizedS));
        }
        if (System.nanoTime() > nextReport) {
          nextReport += 5_000_000_000L;
          say.accept(
              String.format(
                  Locale.ROOT,
                  "%.0f s: %,d flows.v1 records into the cheetah operator (late so far: %s)",
                  (System.nanoTime() - r0) / 1e9,
                  in,
                  metrics(cheetah).getOrDefault("lateFlowRecords", -1L)));
        }
      }
      r1 = System.nanoTime();
      cpu1 = Cpu.now();
      // The normalize job commits its source's offsets when a checkpoint completes, which can
      // come after the transaction that showed the cheetah job its last records: wait for it.
      if (normalizedS < 0) {
        normalizedS = awaitCaughtUp(admin, NormalizeJob.NAME, () -> goflowEnds, 0, r0, deadline);
      }
    }
    double consumedS = (r1 - r0) / 1e9;
    Map<String, Long> metrics = metrics(cheetah);
    double committedS = awaitCommitted(r0, deadline);
    String normalizeCheckpoints = checkpoints(flink.restUrl(), normalize.toHexString());
    String cheetahCheckpoints = checkpoints(flink.restUrl(), cheetah.toHexString());
    double[] cheetahStats = checkpointStats(flink.restUrl(), cheetah.toHexString());

    int cores = Runtime.getRuntime().availableProcessors();
    double rate = o.records() / consumedS;
    double steady = steadyRate(samples, o.records());
    double cpuS = (cpu1.cpuNanos() - cpuRunning.cpuNanos()) / 1e9;
    double gcS = (cpu1.gcMillis() - cpuRunning.gcMillis()) / 1e3;
    String load = Files.readString(Path.of("/proc/loadavg")).trim().split(" ", 4)[0];
    List<String> lines = new ArrayList<>();
    lines.add(
        f(
            "e2e: %,d flow records: goflow2 -> normalize -> flows.v1 -> cheetahs + flowsets;"
                + " %d partitions, parallelism %d per job, exactly-once, checkpoints every %d ms",
            o.records(), o.partitions(), o.parallelism(), o.checkpointMs()));
    lines.add(
        f(
            "  jobs running %.1f s after submission (CPU during start-up %.1f s)",
            (r0 - s0) / 1e9, (cpuRunning.cpuNanos() - cpu0.cpuNanos()) / 1e9));
    lines.add(
        f(
            "  all consumed by the cheetah operator %.1f s after the jobs ran: %,.0f records/s"
                + " = %,.0f records/s per core (%d cores)",
            consumedS, rate, rate / cores, cores));
    lines.add(f("  steady state (10%% -> 90%% of the records): %,.0f records/s", steady));
    lines.add(
        f(
            "  process CPU %.1f core-seconds (%.0f %% of %d cores; GC %.1f s): %,.0f records per"
                + " CPU-second",
            cpuS, 100 * cpuS / consumedS / cores, cores, gcS, o.records() / cpuS));
    lines.add("  normalize job committed all of flows.goflow2.v1 after " + seconds(normalizedS));
    lines.add("  cheetah job committed past the end of flows.v1 after " + seconds(committedS));
    lines.add("  operators: " + metrics);
    lines.add("  checkpoints: normalize " + normalizeCheckpoints);
    lines.add("               cheetah " + cheetahCheckpoints);
    lines.add(
        f(
            "SUMMARY e2e records=%d seconds=%.1f records_per_s=%.0f per_core=%.0f"
                + " steady_per_s=%.0f per_cpu_s=%.0f normalized_s=%.1f committed_s=%.1f"
                + " late_records=%d ckpt_p50_ms=%.0f ckpt_p99_ms=%.0f state_mb=%.1f cores=%d"
                + " load1=%s",
            o.records(),
            consumedS,
            rate,
            rate / cores,
            steady,
            o.records() / cpuS,
            normalizedS,
            committedS,
            metrics.getOrDefault("lateFlowRecords", -1L),
            cheetahStats[0],
            cheetahStats[1],
            cheetahStats[2],
            cores,
            load));
    lines.forEach(System.out::println);
    if (o.checkOrder()) {
      System.out.println(OrderCheck.describe(kafka.bootstrapServers(), Topics.FLOWS, 20_000));
    }
    return 0;
  }

  private static String f(String format, Object... args) {
    return String.format(Locale.ROOT, format, args);
  }

  /** Until every partition of the topics this benchmark writes or reads has a leader. */
  private void awaitLeaders() throws InterruptedException {
    List<String> topics =
        List.of(Topics.GOFLOW2, Topics.FLOWS, Topics.REJECTED, Topics.CHEETAHS, Topics.FLOWSETS);
    long until = System.nanoTime() + 30_000_000_000L;
    try (Admin admin = kafka.newAdmin()) {
      while (true) {
        try {
          boolean ready =
              admin.describeTopics(topics).allTopicNames().get().values().stream()
                  .allMatch(
                      d ->
                          d.partitions().size() == o.partitions()
                              && d.partitions().stream().allMatch(pi -> pi.leader() != null));
          if (ready) {
            return;
          }
        } catch (java.util.concurrent.ExecutionException e) {
          // not known yet
        }
        if (System.nanoTime() > until) {
          throw new IllegalStateException("topics " + topics + " have no leaders after 30 s");
        }
        Thread.sleep(100);
      }
    }
  }

  /** N messages in export order; each exporter's messages on its own partition, keyed by it. */
  static SyntheticWorkload.Totals preload(String bootstrap, long records, int partitions) {
    return preload(bootstrap, records, partitions, SyntheticWorkload.T0_MS);
  }

  /** The same, virtual time starting at {@code t0Ms}. */
  static SyntheticWorkload.Totals preload(
      String bootstrap, long records, int partitions, long t0Ms) {
    Properties p = new Properties();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ProducerConfig.ACKS_CONFIG, "all");
    p.put(ProducerConfig.LINGER_MS_CONFIG, "20");
    p.put(ProducerConfig.BATCH_SIZE_CONFIG, String.valueOf(512 * 1024));
    // Order per partition without the idempotent producer: right after topic creation its
    // sequence numbers went out of step with the fresh broker (OutOfOrderSequenceException
    // retried forever). One request in flight keeps retries in order.
    p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "false");
    p.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, "1");
    SyntheticWorkload w = new SyntheticWorkload(SyntheticWorkload.Params.researchSite(1), t0Ms);
    AtomicReference<Exception> failed = new AtomicReference<>();
    try (KafkaProducer<byte[], byte[]> producer =
        new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer())) {
      w.generate(
          records,
          m ->
              producer.send(
                  new ProducerRecord<>(
                      Topics.GOFLOW2, m.exporter() % partitions, m.key(), m.value()),
                  (md, e) -> {
                    if (e != null) {
                      failed.compareAndSet(null, e);
                    }
                  }));
      producer.flush();
    }
    if (failed.get() != null) {
      throw new IllegalStateException(
          "pre-loading flows.goflow2.v1 failed: " + failed.get().getMessage(), failed.get());
    }
    return w.totals();
  }

  private JobID submit(String name, Consumer<StreamExecutionEnvironment> build) {
    StreamExecutionEnvironment env = flink.newEnvironment();
    env.enableCheckpointing(o.checkpointMs(), CheckpointingMode.EXACTLY_ONCE);
    env.setParallelism(o.parallelism());
    build.accept(env);
    return flink.submit(env, name);
  }

  /** The id of the job's vertex whose name contains {@code name}; waits up to 30 s for it. */
  static String vertexNamed(Supplier<List<EmbeddedFlink.VertexProgress>> progress, String name)
      throws InterruptedException {
    long until = System.nanoTime() + 30_000_000_000L;
    while (System.nanoTime() < until) {
      for (EmbeddedFlink.VertexProgress v : progress.get()) {
        if (v.name().contains(name)) {
          return v.id();
        }
      }
      Thread.sleep(200);
    }
    throw new IllegalStateException(
        "the job has no vertex named '" + name + "': " + progress.get());
  }

  /** The records the vertex received so far (0 before its count is first reported). */
  static long recordsIn(List<EmbeddedFlink.VertexProgress> progress, String vertex) {
    for (EmbeddedFlink.VertexProgress v : progress) {
      if (v.id().equals(vertex)) {
        return v.recordsIn();
      }
    }
    return 0;
  }

  /** Records/s between the samples where 10 % and 90 % of the records had arrived. */
  static double steadyRate(List<long[]> samples, long n) {
    long[] a = null;
    long[] b = null;
    for (long[] s : samples) {
      if (a == null && s[1] >= n / 10) {
        a = s;
      }
      if (b == null && s[1] >= n * 9 / 10) {
        b = s;
      }
    }
    if (a == null || b == null || b[0] <= a[0]) {
      return Double.NaN;
    }
    return (b[1] - a[1]) / ((b[0] - a[0]) / 1e9);
  }

  /**
   * Seconds after {@code r0} at which the cheetah job's committed offsets reached the end of
   * flows.v1; -1 when the deadline passes first.
   */
  private double awaitCommitted(long r0, long deadline) throws InterruptedException {
    try (Admin admin = kafka.newAdmin()) {
      // flows.v1 is transactional: the last transaction's commit marker takes one offset that
      // a reader never commits past, so one short of the end is the end.
      return awaitCaughtUp(
          admin, CheetahJob.NAME, () -> endOffsets(admin, Topics.FLOWS, true), 1, r0, deadline);
    }
  }

  /** The end offsets a group must reach, read again at each poll. */
  private interface Ends {
    Map<TopicPartition, Long> get() throws InterruptedException;
  }

  /**
   * Seconds from {@code r0} until {@code group} has committed up to {@code ends} (less {@code
   * slack}), polled every {@link #POLL}; -1 if that is not so by {@code deadline}.
   */
  private static double awaitCaughtUp(
      Admin admin, String group, Ends ends, long slack, long r0, long deadline)
      throws InterruptedException {
    while (System.nanoTime() < deadline) {
      if (caughtUp(admin, group, ends.get(), slack)) {
        return (System.nanoTime() - r0) / 1e9;
      }
      Thread.sleep(POLL.toMillis());
    }
    return -1;
  }

  private Map<TopicPartition, Long> endOffsets(Admin admin, String topic, boolean committed)
      throws InterruptedException {
    return endOffsets(admin, topic, o.partitions(), committed);
  }

  static Map<TopicPartition, Long> endOffsets(
      Admin admin, String topic, int partitions, boolean committed) throws InterruptedException {
    Map<TopicPartition, OffsetSpec> latest = new LinkedHashMap<>();
    for (int i = 0; i < partitions; i++) {
      latest.put(new TopicPartition(topic, i), OffsetSpec.latest());
    }
    Map<TopicPartition, Long> ends = new HashMap<>();
    try {
      admin
          .listOffsets(
              latest,
              new ListOffsetsOptions(
                  committed ? IsolationLevel.READ_COMMITTED : IsolationLevel.READ_UNCOMMITTED))
          .all()
          .get()
          .forEach((tp, info) -> ends.put(tp, info.offset()));
    } catch (java.util.concurrent.ExecutionException e) {
      throw new IllegalStateException("cannot list the end offsets of " + topic, e);
    }
    return ends;
  }

  /** Whether {@code group} has committed to within {@code slack} of every end offset. */
  static boolean caughtUp(Admin admin, String group, Map<TopicPartition, Long> ends, long slack)
      throws InterruptedException {
    Map<TopicPartition, OffsetAndMetadata> committed;
    try {
      committed = admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get();
    } catch (java.util.concurrent.ExecutionException e) {
      return false; // the group is not known yet
    }
    for (Map.Entry<TopicPartition, Long> e : ends.entrySet()) {
      OffsetAndMetadata c = committed.get(e.getKey());
      if (c == null || e.getValue() - c.offset() > slack) {
        return false;
      }
    }
    return true;
  }

  /** Completed checkpoints, their duration (mean, p50, p99, max) and the last one's size (REST). */
  static String checkpoints(String restUrl, String job) {
    try {
      JsonNode c = restGet(restUrl, "/jobs/" + job + "/checkpoints");
      JsonNode summary = c.path("summary");
      return String.format(
          Locale.ROOT,
          "%d completed, end-to-end mean %.0f ms / p50 %.0f ms / p99 %.0f ms / max %.0f ms,"
              + " last %.1f MB of state",
          c.path("counts").path("completed").asLong(),
          summary.path("end_to_end_duration").path("avg").asDouble(),
          summary.path("end_to_end_duration").path("p50").asDouble(),
          summary.path("end_to_end_duration").path("p99").asDouble(),
          summary.path("end_to_end_duration").path("max").asDouble(),
          c.path("latest").path("completed").path("state_size").asDouble() / 1e6);
    } catch (IOException | RuntimeException e) {
      return "unavailable: " + e.getMessage();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return "interrupted";
    }
  }

  /** The cheetah job's checkpoints: p50 and p99 end-to-end duration (ms), last size (MB). */
  static double[] checkpointStats(String restUrl, String job) {
    try {
      JsonNode c = restGet(restUrl, "/jobs/" + job + "/checkpoints");
      JsonNode d = c.path("summary").path("end_to_end_duration");
      return new double[] {
        d.path("p50").asDouble(-1),
        d.path("p99").asDouble(-1),
        c.path("latest").path("completed").path("state_size").asDouble(-1e6) / 1e6
      };
    } catch (IOException | RuntimeException e) {
      return new double[] {-1, -1, -1};
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return new double[] {-1, -1, -1};
    }
  }

  static String seconds(double s) {
    return s < 0 ? "(not within the timeout)" : String.format(Locale.ROOT, "%.1f s", s);
  }

  private Map<String, Long> metrics(JobID job) {
    return operatorMetrics(flink.restUrl(), flink.progress(job), job.toHexString());
  }

  /**
   * The Cheetah counters of the job's operators ({@code vertices}), summed over subtasks (name
   * without scope).
   */
  static Map<String, Long> operatorMetrics(
      String restUrl, List<EmbeddedFlink.VertexProgress> vertices, String job) {
    Map<String, Long> out = new java.util.TreeMap<>();
    List<String> wanted =
        List.of(
            "flowRecordsIn",
            "lateFlowRecords",
            "cheetahsStarted",
            "cheetahsEnded",
            "flowsetsClosed",
            "lateFlowsetMembers");
    try {
      for (EmbeddedFlink.VertexProgress v : vertices) {
        String base = "/jobs/" + job + "/vertices/" + v.id() + "/subtasks/metrics";
        List<String> ids = new ArrayList<>();
        for (JsonNode m : restGet(restUrl, base)) {
          String id = m.path("id").asText();
          if (wanted.stream().anyMatch(w -> id.endsWith("." + w))) {
            ids.add(id);
          }
        }
        if (ids.isEmpty()) {
          continue;
        }
        String q = URLEncoder.encode(String.join(",", ids), StandardCharsets.UTF_8);
        for (JsonNode m : restGet(restUrl, base + "?agg=sum&get=" + q)) {
          String id = m.path("id").asText();
          out.merge(
              id.substring(id.lastIndexOf('.') + 1), (long) m.path("sum").asDouble(), Long::sum);
        }
      }
    } catch (IOException | RuntimeException e) {
      out.put("unavailable: " + e.getMessage(), 0L);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    return out;
  }

  static JsonNode restGet(String restUrl, String path) throws IOException, InterruptedException {
    HttpResponse<String> r =
        HTTP.send(
            HttpRequest.newBuilder(URI.create(restUrl + path))
                .timeout(Duration.ofSeconds(10))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    if (r.statusCode() != 200) {
      throw new IOException("Flink REST " + path + " answered " + r.statusCode());
    }
    return JSON.readTree(r.body());
  }

  /** Stops what run() started, in reverse order; safe to call twice (finally and the hook). */
  @Override
  public synchronized void stop() {
    stopped = true;
    if (flink != null) {
      try {
        flink.close();
      } catch (RuntimeException e) {
        say.accept("stopping Flink: " + e.getMessage());
      }
      flink = null;
    }
    if (kafka != null) {
      try {
        kafka.close();
      } catch (RuntimeException e) {
        say.accept("stopping Kafka: " + e.getMessage());
      }
      kafka = null;
    }
    if (dir != null) {
      BenchRun.removeDir(dir, o.keep(), say);
      dir = null;
    }
  }

  /** Process CPU time and GC time so far. */
  record Cpu(long cpuNanos, long gcMillis) {
    static Cpu now() {
      long gc = 0;
      for (GarbageCollectorMXBean b : ManagementFactory.getGarbageCollectorMXBeans()) {
        gc += Math.max(0, b.getCollectionTime());
      }
      var os =
          (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
      return new Cpu(os.getProcessCpuTime(), gc);
    }
  }
}
