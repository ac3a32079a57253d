package net.cheetah.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.stream.Stream;
import net.cheetah.config.CheetahConfig;
import net.cheetah.jobs.JobSettings;
import net.cheetah.jobs.RedirectJob;
import net.cheetah.jobs.StreamJob;
import net.cheetah.jobs.flink.JobEnvironment;
import net.cheetah.jobs.redirects.RedirectKeys;
import net.cheetah.runtime.EmbeddedFlink;
import net.cheetah.runtime.EmbeddedKafka;
import net.cheetah.runtime.TopicLayout;
import org.apache.flink.api.common.JobID;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * Detection-to-command latency of redirects in the embedded runtime (issue 13, item 5): an in-JVM
 * broker and a Flink MiniCluster set up as `cheetah up` sets them up (loopback, free ports, a temp
 * dir, {@link JobEnvironment}: exactly-once checkpoints every flink.checkpoint-interval-ms),
 * running the stack's jobs. It feeds, live and paced, NetFlow (goflow2 messages of {@link
 * SyntheticWorkload} on flows.goflow2.v1, so the cheetah job detects cheetahs as it goes) and probe
 * cheetahs (START events, source PROBE, on cheetahs.v1 from a plain producer with the settings of
 * the probe's cheetah-event producer: acks=all, lz4, and its linger, which run.sh reads from the
 * probe's source, ingest/probe/src/kafka_export.c CHEETAH_LINGER_MS; docs/PROBE.md, "Kafka").
 *
 * <p>Detection, per kind, is when the cheetah START was decided, on the machine's wall clock:
 *
 * <ul>
 *   <li>probe: the START record's Kafka timestamp (CreateTime: the producer stamps it when the
 *       probe hands the event over, before any linger);
 *   <li>NetFlow: the first time a read_uncommitted consumer sees the START on cheetahs.v1 (sent by
 *       the cheetah job's transactional producer, linger.ms 50, visible uncommitted once sent) or
 *       on cheetahs.control.v1 (at-least-once, linger.ms 0), whichever comes first. The Kafka
 *       timestamps of the jobs' records are event times, so they cannot serve. This is later than
 *       the operator's emission by the producer's linger and one fetch, so it understates the
 *       latency by a few ms.
 * </ul>
 *
 * The command's time is when the same consumer first sees a SCAVENGER/DSCP_MARK command for that
 * flow (cheetah_flow_id) on redirects.commands.v1. Latency = command seen - detection.
 *
 * <p>The feeds and the consumer run in a JVM of their own ({@link LatencyClients}), as the
 * collector and the probe do: the stack's JVM stopping to collect garbage must not stop the events
 * that reach it, nor the clock they are timed by.
 *
 * <p>Each phase (an input of the redirect job, {@link RedirectJob.Input}) runs on its own fresh
 * broker and cluster, one after the other in the same run: by default the input before issue 13
 * (every cheetah from cheetahs.v1, committed) and today's. Prints {@code SUMMARY latency} lines.
 */
public final class LatencyBenchmark {

  record Options(
      int seconds,
      int rate,
      long probeEveryMs,
      int probeLingerMs,
      long checkpointMs,
      int partitions,
      List<RedirectJob.Input> phases,
      boolean keep) {

    /** The options the clients' JVM needs ({@link LatencyClients#main}). */
    List<String> clientArgs() {
      return List.of(
          "--seconds",
          Integer.toString(seconds),
          "--rate",
          Integer.toString(rate),
          "--probe-every-ms",
          Long.toString(probeEveryMs),
          "--probe-linger-ms",
          Integer.toString(probeLingerMs),
          "--checkpoint-ms",
          Long.toString(checkpointMs),
          "--partitions",
          Integer.toString(partitions));
    }

    static Options parse(String[] args) {
      int seconds = 60;
      int rate = 3000;
      long probeEveryMs = 200;
      int probeLingerMs = -1;
      long checkpointMs = CheetahConfig.defaultConfig().flink().checkpointIntervalMs();
      int partitions = CheetahConfig.defaultConfig().kafka().partitions();
      List<RedirectJob.Input> phases =
          List.of(RedirectJob.Input.COMMITTED, RedirectJob.Input.AT_ONCE);
      boolean keep = false;
      for (int i = 0; i < args.length; i++) {
        String a = args[i];
        switch (a) {
          case "--seconds" -> seconds = Integer.parseInt(value(args, ++i, a));
          case "--rate" -> rate = Integer.parseInt(value(args, ++i, a));
          case "--probe-every-ms" -> probeEveryMs = Long.parseLong(value(args, ++i, a));
          case "--probe-linger-ms" -> probeLingerMs = Integer.parseInt(value(args, ++i, a));
          case "--checkpoint-ms" -> checkpointMs = Long.parseLong(value(args, ++i, a));
          case "--partitions" -> partitions = Integer.parseInt(value(args, ++i, a));
          case "--phases" -> phases = phases(value(args, ++i, a));
          case "--keep-data" -> keep = true;
          case "-h", "--help" -> {
            System.out.println(usage());
            System.exit(0);
          }
          default -> throw new IllegalArgumentException("unknown option " + a + "\n" + usage());
        }
      }
      if (seconds < 10 || rate < 100 || probeEveryMs < 10 || checkpointMs < 100 || partitions < 1) {
        throw new IllegalArgumentException(
            "need --seconds >= 10, --rate >= 100, --probe-every-ms >= 10, --checkpoint-ms >= 100,"
                + " --partitions >= 1\n"
                + usage());
      }
      if (probeLingerMs < 0) {
        throw new IllegalArgumentException(
            "need --probe-linger-ms >= 0 (flink-jobs/bench/run.sh latency passes the probe's)\n"
                + usage());
      }
      return new Options(
          seconds, rate, probeEveryMs, probeLingerMs, checkpointMs, partitions, phases, keep);
    }

    private static List<RedirectJob.Input> phases(String text) {
      List<RedirectJob.Input> l = new ArrayList<>();
      for (String p : text.split(",")) {
        switch (p.trim()) {
          case "committed" -> l.add(RedirectJob.Input.COMMITTED);
          case "at-once" -> l.add(RedirectJob.Input.AT_ONCE);
          default ->
              throw new IllegalArgumentException(
                  "--phases: '" + p + "' is neither committed nor at-once\n" + usage());
        }
      }
      return l;
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
          "usage: LatencyBenchmark --probe-linger-ms MS [--seconds S] [--rate R] [--probe-every-ms MS]",
          "                        [--checkpoint-ms MS] [--partitions P]",
          "                        [--phases committed,at-once] [--keep-data]",
          "  --seconds S          feeding time per phase (default 60)",
          "  --rate R             goflow2 messages per second (default 3000)",
          "  --probe-every-ms MS  one probe cheetah START every MS (default 200)",
          "  --probe-linger-ms MS linger.ms of the emulated probe's cheetah-event producer",
          "                       (run.sh passes the probe's own, CHEETAH_LINGER_MS of",
          "                       ingest/probe/src/kafka_export.c; 50 emulates the probe before",
          "                       cheetah events had a producer of their own)",
          "  --checkpoint-ms MS   flink.checkpoint-interval-ms (default: the stack's, 2000)",
          "  --partitions P       partitions of every topic (default: kafka.partitions, 2)",
          "  --phases LIST        the redirect job's inputs, in order (default committed,at-once):",
          "                       committed = every cheetah from cheetahs.v1, read_committed",
          "                       (before issue 13); at-once = NetFlow from cheetahs.control.v1,",
          "                       probe from cheetahs.v1 read_uncommitted (today)",
          "  --keep-data          keep the temp dirs (broker log, checkpoints)");
    }
  }

  /** Links and their devices: the generator's two exporters and the probe's link. */
  static final String PROBE_LINK = "bench-probe-link";

  static final String LINK_DEVICES = "192.0.2.1=r-a,192.0.2.2=r-b," + PROBE_LINK + "=r-p";

  private final Options o;
  private final Consumer<String> say = s -> System.err.println("latency: " + s);
  private final List<Path> dirs = new ArrayList<>();
  private EmbeddedKafka kafka;
  private EmbeddedFlink flink;
  private Process clients;

  LatencyBenchmark(Options o) {
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
    LatencyBenchmark b = new LatencyBenchmark(o);
    Thread hook = new Thread(b::stop, "latency-stop");
    Runtime.getRuntime().addShutdownHook(hook);
    int status = 0;
    try {
      List<String> summaries = new ArrayList<>();
      for (RedirectJob.Input input : o.phases()) {
        summaries.addAll(b.phase(input));
        b.stop();
      }
      summaries.forEach(System.out::println);
    } catch (Exception e) {
      System.err.println("latency: failed: " + e);
      e.printStackTrace();
      status = 1;
    } finally {
      b.stop();
      b.deleteDirs();
      try {
        Runtime.getRuntime().removeShutdownHook(hook);
      } catch (IllegalStateException e) {
        // already shutting down (Ctrl-C): the hook has stopped everything
      }
    }
    System.exit(status); // Flink and Kafka leave non-daemon threads behind after close()
  }

  List<String> phase(RedirectJob.Input input) throws Exception {
    String phase = input == RedirectJob.Input.COMMITTED ? "committed" : "at-once";
    Path dir = Files.createTempDirectory("cheetah-bench-latency-");
    dirs.add(dir);
    say.accept("phase " + phase + ": data in " + dir + "; starting Kafka (KRaft, in-JVM)");
    kafka = new EmbeddedKafka(EmbeddedKafka.Config.defaults(dir).withPorts(0, 0));
    kafka.start();
    String bootstrap = kafka.bootstrapServers();
    new TopicLayout(TopicLayout.Config.embedded().withPartitions(o.partitions(), o.partitions()))
        .createAll(kafka);
    CheetahConfig cfg =
        CheetahConfig.load(
            Optional.empty(),
            Map.of(
                "flink.checkpoint-interval-ms",
                Long.toString(o.checkpointMs()),
                "redirects.link-devices",
                LINK_DEVICES,
                // Every START becomes a command: no guardrail refuses in this benchmark.
                "redirects.max-rules-per-device",
                "1000000",
                "redirects.max-new-rules-per-minute",
                "1000000"));
    JobSettings settings = new JobSettings(bootstrap, cfg, dir);
    RedirectKeys.create(settings.redirectKeysFile(), "bench");

    say.accept("starting the Flink MiniCluster and the stack's jobs");
    flink =
        new EmbeddedFlink(
            EmbeddedFlink.Config.defaults(dir)
                .withFreePorts()
                .withTaskSlots(cfg.flink().slots())
                .withOverrides(JobEnvironment.settings(cfg, dir)));
    flink.start();
    List<StreamJob> jobs = new ArrayList<>();
    for (StreamJob j : StreamJob.stack()) {
      jobs.add(j instanceof RedirectJob ? new RedirectJob(input) : j);
    }
    List<JobID> ids = new ArrayList<>();
    for (StreamJob j : jobs) {
      StreamExecutionEnvironment env = flink.newEnvironment();
      JobEnvironment.configure(env, cfg, dir);
      j.addTo(env, settings);
      ids.add(flink.submit(env, j.name()));
    }
    for (JobID id : ids) {
      flink.awaitRunning(id, Duration.ofSeconds(120));
    }
    say.accept("jobs running; feeding " + o.seconds() + " s");

    long[] gc0 = gc();
    Map<String, LatencyClients.Seen> seen = clients(bootstrap);
    long[] gc1 = gc();
    String load = Files.readString(Path.of("/proc/loadavg")).trim().split(" ", 4)[0];
    List<String> out = new ArrayList<>();
    for (boolean isProbe : new boolean[] {false, true}) {
      String kind = isProbe ? "probe" : "netflow";
      List<LatencyClients.Seen> l =
          seen.values().stream()
              .filter(s -> !Double.isNaN(s.detectedMs) && s.probe == isProbe)
              .toList();
      long detected = l.stream().filter(s -> !Double.isNaN(s.detectedMs)).count();
      double[] lat =
          l.stream()
              .filter(s -> !Double.isNaN(s.detectedMs) && !Double.isNaN(s.commandMs))
              .mapToDouble(s -> s.commandMs - s.detectedMs)
              .sorted()
              .toArray();
      String fromTopic = "";
      if (isProbe) {
        double[] t =
            l.stream()
                .filter(s -> !Double.isNaN(s.onTopicMs) && !Double.isNaN(s.commandMs))
                .mapToDouble(s -> s.commandMs - s.onTopicMs)
                .sorted()
                .toArray();
        fromTopic =
            String.format(
                Locale.ROOT,
                " from_topic_p50_ms=%.1f from_topic_p99_ms=%.1f probe_linger_ms=%d",
                quantile(t, 0.5),
                quantile(t, 0.99),
                o.probeLingerMs());
      }
      out.add(
          String.format(
              Locale.ROOT,
              "SUMMARY latency phase=%s kind=%s starts=%d commands=%d p50_ms=%.1f p99_ms=%.1f"
                  + " max_ms=%.1f min_ms=%.1f%s checkpoint_ms=%d rate=%d gc_count=%d gc_ms=%d"
                  + " load1=%s",
              phase,
              kind,
              detected,
              lat.length,
              quantile(lat, 0.5),
              quantile(lat, 0.99),
              lat.length == 0 ? Double.NaN : lat[lat.length - 1],
              lat.length == 0 ? Double.NaN : lat[0],
              fromTopic,
              o.checkpointMs(),
              o.rate(),
              gc1[0] - gc0[0],
              gc1[1] - gc0[1],
              load));
    }
    out.forEach(say);
    // A START whose command never came within the wait: which one, and when, to look into.
    double first =
        seen.values().stream()
            .mapToDouble(s -> s.detectedMs)
            .filter(d -> !Double.isNaN(d))
            .min()
            .orElse(0);
    seen.forEach(
        (flow, s) -> {
          if (!Double.isNaN(s.detectedMs) && Double.isNaN(s.commandMs)) {
            say.accept(
                String.format(
                    Locale.ROOT,
                    "no command for %s cheetah %s, detected %.1f s into the phase",
                    s.probe ? "probe" : "NetFlow",
                    flow,
                    (s.detectedMs - first) / 1000));
          }
        });
    return out;
  }

  /** Garbage collections of this JVM (the whole stack runs in it) so far: {count, ms}. */
  private static long[] gc() {
    long n = 0;
    long ms = 0;
    for (var b : java.lang.management.ManagementFactory.getGarbageCollectorMXBeans()) {
      n += Math.max(0, b.getCollectionCount());
      ms += Math.max(0, b.getCollectionTime());
    }
    return new long[] {n, ms};
  }

  /** The q-quantile (nearest rank) of sorted values; NaN when there are none. */
  static double quantile(double[] sorted, double q) {
    if (sorted.length == 0) {
      return Double.NaN;
    }
    int rank = (int) Math.ceil(q * sorted.length);
    return sorted[Math.max(0, Math.min(sorted.length - 1, rank - 1))];
  }

  /**
   * Runs the feeds and the watcher ({@link LatencyClients}) in a JVM of their own until the phase
   * is over, and returns what the watcher saw of each flow.
   */
  private Map<String, LatencyClients.Seen> clients(String bootstrap) throws Exception {
    List<String> cmd = new ArrayList<>();
    cmd.add(ProcessHandle.current().info().command().orElse("java"));
    cmd.add("-Xmx512m");
    String log = System.getProperty("log4j2.configurationFile");
    if (log != null) {
      cmd.add("-Dlog4j2.configurationFile=" + log);
    }
    cmd.addAll(List.of("-cp", System.getProperty("java.class.path")));
    cmd.add(LatencyClients.class.getName());
    cmd.add(bootstrap);
    cmd.addAll(o.clientArgs());
    Process p;
    synchronized (this) {
      p = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.INHERIT).start();
      clients = p;
    }
    Map<String, LatencyClients.Seen> seen = new HashMap<>();
    try (var lines =
        new java.io.BufferedReader(
            new java.io.InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
      for (String line = lines.readLine(); line != null; line = lines.readLine()) {
        LatencyClients.Seen.parse(line).ifPresent(e -> seen.put(e.getKey(), e.getValue()));
      }
    }
    int status = p.waitFor();
    if (status != 0) {
      throw new IllegalStateException(
          "the feeds or the watcher failed (their JVM exited " + status + "; see above)");
    }
    return seen;
  }

  synchronized void stop() {
    if (clients != null && clients.isAlive()) {
      clients.destroyForcibly(); // our own child, by its handle
    }
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
  }

  private void deleteDirs() {
    if (o.keep()) {
      dirs.forEach(d -> say.accept("kept " + d));
      return;
    }
    for (Path dir : dirs) {
      try (Stream<Path> s = Files.walk(dir)) {
        for (Path x : s.sorted(Comparator.reverseOrder()).toList()) {
          Files.deleteIfExists(x);
        }
      } catch (IOException e) {
        say.accept("could not delete " + dir + ": " + e.getMessage());
      }
    }
  }
}
