package net.cheetah.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Random;
import java.util.TreeMap;
import net.cheetah.config.CheetahConfig;
import net.cheetah.core.Topics;
import net.cheetah.runtime.FlinkRest;
import net.cheetah.schemas.v1.AckStatus;
import net.cheetah.schemas.v1.RedirectAck;
import net.cheetah.schemas.v1.RedirectAction;
import net.cheetah.schemas.v1.RedirectCommand;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * The chaos soak: the cluster demo ({@link DemoCommand}'s workload, waits and truth check, not a
 * copy), its export paced over {@code --minutes}, while a seeded schedule kills with SIGKILL and
 * starts again a broker, a TaskManager, the JobManager, goflow2, the warehouse and a tc redirect
 * adapter driving a real interface (docs/BENCHMARKS.md, "Chaos soak"). At the end the demo's checks
 * (results equal the truth row for row, each stored once) and the adapter's (each command applied
 * once: acks and the interface's filters agree); a summary table printed and written.
 */
@Command(
    name = "chaos",
    mixinStandardHelpOptions = true,
    description = {
      "The chaos soak (./cheetah bench chaos): the demo's workload on the running cluster (fresh:",
      "no jobs, empty warehouse), paced over --minutes, while a seeded schedule kills with SIGKILL",
      "and starts again a broker, a TaskManager, the JobManager (jobs submitted again from their",
      "latest retained checkpoint), goflow2, the warehouse and a tc redirect adapter. Then the",
      "demo's truth check and the adapter's exactly-once check; a summary table on stdout and in",
      "--summary. Exit 0 only if nothing was lost or doubled and every kill recovered."
    })
final class ClusterChaosCommand extends DemoCommand {
  /** Records of the demo's workload (seed 42, 40 transfers): paces the export over --minutes. */
  static final long WORKLOAD_RECORDS = 150_000;

  static final List<String> COMPONENTS =
      List.of("broker", "taskmanager", "jobmanager", "goflow2", "warehouse", "adapter");

  @Option(
      names = "--minutes",
      defaultValue = "15",
      description = "How long the export (and the kills) last (default ${DEFAULT-VALUE}).")
  double minutes;

  @Option(
      names = "--chaos-seed",
      paramLabel = "SEED",
      description = "Seed of the kill schedule (default: from the clock; printed).")
  Long chaosSeed;

  @Option(
      names = "--gap-s",
      defaultValue = "20",
      description =
          "Seconds between one recovery and the next kill: uniform in [GAP, 2*GAP] (default"
              + " ${DEFAULT-VALUE}).")
  int gapS;

  @Option(
      names = "--summary",
      paramLabel = "FILE",
      description = "Where the summary table goes (default DATA/cluster/chaos/summary.txt).")
  Path summaryFile;

  @Mixin JobJarOptions jobJarOptions;

  /** One kill: what, when, and how long until it served again. */
  record Kill(
      int n,
      double atS,
      String component,
      String process,
      double recoveryS,
      String recoveredWhen,
      boolean ok,
      String note) {}

  private final List<Kill> kills = Collections.synchronizedList(new ArrayList<>());
  private volatile boolean exportEnded;
  private volatile boolean waiting;
  private volatile Thread chaos;
  private volatile String chaosError = "";
  private Cluster cluster;
  private ClusterStack stack;
  private CheetahConfig cfg;
  private Map<String, String> jobKeys;
  private Path jobJar;
  private Path chaosDir;
  private Adapter adapter;
  private Random random;
  private long t0;
  private final Map<String, String> lastRestore = new HashMap<>();

  @Override
  public Integer call() throws Exception {
    Map<String, String> defaults = demoDefaults();
    cfg = config.load(defaults);
    Tools tools = Tools.fromEnvironment();
    long seedUsed = chaosSeed != null ? chaosSeed : System.currentTimeMillis() % 1_000_000;
    random = new Random(seedUsed);
    // The export lasts about --minutes at this pace (the generator's pacing, a token bucket).
    rate = Math.max(50, WORKLOAD_RECORDS / (minutes * 60));
    say(
        String.format(
            Locale.ROOT,
            "chaos soak: seed %d, %.1f minutes, export paced at %.0f records/s, kills of %s",
            seedUsed,
            minutes,
            rate,
            String.join(", ", COMPONENTS)));
    cluster = new Cluster(cfg, tools, ClusterCommand::say);
    ClusterState state = cluster.requireUp();
    WarehouseClient wh = new WarehouseClient(state.data().warehouseUrl());
    long stored = Long.parseLong(wh.query("SELECT count() FROM flows").trim());
    if (stored != 0) {
      throw new IllegalStateException(
          "the cluster's warehouse already holds "
              + stored
              + " flow records; the soak needs a fresh cluster: ./cheetah cluster down --wipe &&"
              + " ./cheetah cluster up");
    }
    Path data = cluster.dir().resolve("demo");
    wipe(data);
    chaosDir = cluster.dir().resolve("chaos");
    wipe(chaosDir);
    Files.createDirectories(chaosDir);
    Path summary = summaryFile != null ? summaryFile : chaosDir.resolve("summary.txt");
    t0 = System.nanoTime();
    jobKeys = config.keys(defaults);
    jobJar = jobJarOptions.jar(tools);
    Map<String, String> jobs = cluster.submit(jobKeys, jobJar, jobJarOptions.parallelism);
    stack = new ClusterStack(cluster.requireUp(), jobs);
    adapter =
        new Adapter(
            tools,
            state.data().bootstrap(),
            Stack.redirectKeys(cfg, cfg.dataDir().toAbsolutePath(), DemoCommand::say),
            chaosDir);
    int demo;
    AdapterOutcome commands;
    try {
      adapter.start();
      try {
        demo = run(cfg, tools, data, stack, t0);
      } catch (Exception e) {
        // Still the summary: what was killed, and what is stored.
        say("the demo's run failed: " + e);
        demo = 2;
      }
      commands = adapterOutcome(state.data());
    } finally {
      adapter.close();
    }
    List<String> table = summary(seedUsed, demo, commands, tools, wh, data);
    Files.createDirectories(summary.toAbsolutePath().getParent());
    Files.write(summary, table);
    System.out.println();
    table.forEach(System.out::println);
    say("summary written to " + summary);
    boolean allRecovered = kills.stream().allMatch(Kill::ok) && chaosError.isEmpty();
    return demo == 0 && commands.ok() && allRecovered && !kills.isEmpty() ? 0 : 1;
  }

  @Override
  List<String> generatorArgs() {
    // Templates in every datagram: a goflow2 started again decodes the first datagram it gets
    // (NetFlow v9 and IPFIX records are undecodable until their template arrives).
    return List.of("--template-every", "1");
  }

  @Override
  void exportStarting(RunningStack running) {
    Thread t = new Thread(this::chaosLoop, "chaos");
    t.setDaemon(true);
    chaos = t;
    t.start();
  }

  /** The export ended: no further kill; waits until the last one recovered. */
  @Override
  void exportDone() {
    exportEnded = true;
    Thread t = chaos;
    if (t != null) {
      synchronized (this) {
        if (waiting) {
          t.interrupt(); // wakes it from the wait before a kill; a recovery under way finishes
        }
      }
      try {
        t.join(Duration.ofMinutes(10).toMillis());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    say(
        String.format(
            Locale.ROOT, "chaos: the export ended; %d kills, no more from here", kills.size()));
  }

  private double since() {
    return (System.nanoTime() - t0) / 1e9;
  }

  private void chaosLoop() {
    try {
      FlinkRest rest = new FlinkRest(cluster.requireUp().data().restUrl());
      // A JobManager killed before a job's first checkpoint would leave nothing to resume from.
      long deadline = System.nanoTime() + Duration.ofMinutes(5).toNanos();
      for (Map.Entry<String, String> j : stack.jobs().entrySet()) {
        while (completed(rest, j.getValue()) < 1) {
          if (System.nanoTime() > deadline) {
            throw new IllegalStateException(j.getKey() + " completed no checkpoint in 5 minutes");
          }
          Thread.sleep(500);
        }
      }
      List<String> order = new ArrayList<>();
      int n = 0;
      while (!exportEnded) {
        if (order.isEmpty()) {
          order.addAll(COMPONENTS);
          Collections.shuffle(order, random);
        }
        String component = order.remove(0);
        long waitMs = (gapS + random.nextInt(gapS + 1)) * 1000L;
        say(
            String.format(
                Locale.ROOT,
                "chaos: [%6.1f s] next: %s in %d s",
                since(),
                component,
                waitMs / 1000));
        try {
          synchronized (this) {
            waiting = true;
          }
          Thread.sleep(waitMs);
        } catch (InterruptedException e) {
          return; // the export ended while waiting
        } finally {
          synchronized (this) {
            waiting = false;
            Thread.interrupted();
          }
        }
        if (exportEnded) {
          return;
        }
        kills.add(killAndRecover(++n, component, rest));
        Kill k = kills.get(kills.size() - 1);
        say(
            String.format(
                Locale.ROOT,
                "chaos: [%6.1f s] #%d %s (%s): %s after %.1f s (%s)%s",
                since(),
                k.n(),
                k.component(),
                k.process(),
                k.ok() ? "recovered" : "NOT RECOVERED",
                k.recoveryS(),
                k.recoveredWhen(),
                k.note().isEmpty() ? "" : "; " + k.note()));
        Thread.interrupted(); // an interrupt during the recovery must not skip the next wait
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (Exception e) {
      chaosError = e.toString();
      say("chaos: the schedule failed: " + chaosError);
    }
  }

  private static long completed(FlinkRest rest, String id) {
    try {
      return rest.completedCheckpoints(id);
    } catch (IllegalStateException e) {
      return 0;
    }
  }

  private Kill killAndRecover(int n, String component, FlinkRest restNow) {
    String process =
        switch (component) {
          case "broker" -> "kafka-" + (1 + random.nextInt(Cluster.BROKERS));
          case "taskmanager" -> "taskmanager-" + (1 + random.nextInt(Cluster.TASK_MANAGERS));
          default -> component;
        };
    double at = since();
    long killed = 0;
    try {
      say(String.format(Locale.ROOT, "chaos: [%6.1f s] #%d kill -9 %s", at, n, process));
      String when;
      String note = "";
      switch (component) {
        case "broker" -> {
          killed = System.nanoTime();
          cluster.kill(process);
          cluster.up(false, 10, Cluster.TASK_MANAGERS, false);
          awaitInSync(cluster.requireUp().data(), Duration.ofMinutes(5));
          when = "the broker is back in the ISR of every partition";
        }
        case "taskmanager" -> {
          FlinkRest rest = new FlinkRest(cluster.requireUp().data().restUrl());
          Map<String, String> jobs = stack.jobs();
          Map<String, Long> before = new TreeMap<>();
          for (Map.Entry<String, String> j : jobs.entrySet()) {
            if (rest.taskManagersOf(j.getValue()).contains(process)) {
              before.put(j.getKey(), rest.restarts(j.getValue()).orElse(0));
            }
          }
          killed = System.nanoTime();
          cluster.kill(process);
          cluster.up(false, 10, Cluster.TASK_MANAGERS, false);
          awaitJobs(
              rest,
              jobs,
              before,
              Duration.ofMinutes(5),
              "jobs that lost a task restarted: " + before.keySet());
          when = "every job RUNNING all its tasks, each that lost a task restarted";
          note = before.keySet().size() + " jobs had a task on it";
        }
        case "jobmanager" -> {
          killed = System.nanoTime();
          note = recoverJobManager();
          when = "the JobManager back, every job resubmitted from its latest checkpoint, RUNNING";
        }
        case "goflow2" -> {
          long paused = pauseExporter();
          killed = System.nanoTime();
          cluster.kill(process);
          cluster.up(false, 10, Cluster.TASK_MANAGERS, false);
          resumeExporter(paused);
          awaitPublishing(Duration.ofMinutes(3), paused != 0);
          when = "goflow2 publishing flow records to Kafka again";
          note =
              paused != 0
                  ? "exporter paused from before the kill until goflow2 was ready (UDP has no"
                      + " redelivery)"
                  : "the export had ended";
        }
        case "warehouse" -> {
          ClusterState.Data d = cluster.requireUp().data();
          WarehouseClient wh = new WarehouseClient(d.warehouseUrl());
          long before = flowsStored(wh);
          killed = System.nanoTime();
          cluster.kill(process);
          cluster.up(false, 10, Cluster.TASK_MANAGERS, false);
          WarehouseClient again = new WarehouseClient(cluster.requireUp().data().warehouseUrl());
          // Copies of a result must stay visible to the stored-once check (StoredOnce).
          StoredOnce.stopMerges(Tools.fromEnvironment(), again);
          awaitStoring(again, before, Duration.ofMinutes(5));
          when = "the warehouse answers and stores new flow rows";
        }
        case "adapter" -> {
          killed = System.nanoTime();
          adapter.kill();
          adapter.start();
          when = "the adapter reconciled its device and follows commands again (ready)";
        }
        default -> throw new IllegalArgumentException(component);
      }
      return new Kill(
          n, at, component, process, (System.nanoTime() - killed) / 1e9, when, true, note);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return new Kill(n, at, component, process, -1, "interrupted", false, "");
    } catch (Exception e) {
      double s = killed == 0 ? -1 : (System.nanoTime() - killed) / 1e9;
      say("chaos: recovery of " + process + " failed: " + e);
      return new Kill(n, at, component, process, s, "never", false, e.toString());
    }
  }

  // --- the JobManager ---------------------------------------------------------------------

  /**
   * The cluster has no JobManager high availability: a JobManager killed takes its jobs with it. It
   * is started again with its recorded command, and every job submitted again from its latest
   * retained checkpoint (checkpoints under DATA/cluster/flink/checkpoints/JOB_ID/chk-N, kept when a
   * job is not finished normally): exactly what an operator does after such a crash.
   */
  private String recoverJobManager() throws IOException {
    Map<String, String> jobs = stack.jobs();
    cluster.kill("jobmanager");
    cluster.up(false, 10, Cluster.TASK_MANAGERS, false);
    Map<String, String> from = new LinkedHashMap<>();
    for (Map.Entry<String, String> j : jobs.entrySet()) {
      Optional<String> latest =
          latestCheckpoint(cluster.dir().resolve("flink/checkpoints"), j.getValue());
      String point = latest.orElse(lastRestore.get(j.getKey()));
      if (point == null) {
        throw new IllegalStateException(
            j.getKey() + " has no retained checkpoint to resume from: its state is lost");
      }
      from.put(j.getKey(), point);
    }
    lastRestore.putAll(from);
    cluster.requireUp().setSavepoints(from);
    Map<String, String> again = cluster.submit(jobKeys, jobJar, jobJarOptions.parallelism);
    stack.resubmitted(again);
    List<String> points = new ArrayList<>();
    from.forEach((k, v) -> points.add(k + " <- " + v.replaceAll(".*/([^/]+/chk-\\d+)/?$", "$1")));
    return "resumed " + String.join(", ", points);
  }

  /** The job's newest completed checkpoint: the chk-N with the highest N that has _metadata. */
  static Optional<String> latestCheckpoint(Path checkpoints, String jobId) throws IOException {
    Path dir = checkpoints.resolve(jobId);
    if (!Files.isDirectory(dir)) {
      return Optional.empty();
    }
    try (var s = Files.list(dir)) {
      return s.filter(p -> p.getFileName().toString().matches("chk-\\d+"))
          .filter(p -> Files.isRegularFile(p.resolve("_metadata")))
          .max(
              java.util.Comparator.comparingLong(
                  p -> Long.parseLong(p.getFileName().toString().substring(4))))
          .map(p -> p.toUri().toString());
    }
  }

  private static void awaitJobs(
      FlinkRest rest,
      Map<String, String> jobs,
      Map<String, Long> restartsBefore,
      Duration timeout,
      String what)
      throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (System.nanoTime() < deadline) {
      Thread.sleep(250);
      try {
        boolean restarted =
            restartsBefore.entrySet().stream()
                .allMatch(e -> rest.restarts(jobs.get(e.getKey())).orElse(0) > e.getValue());
        if (restarted && jobs.values().stream().allMatch(id -> Cluster.allRunning(rest, id))) {
          return;
        }
        for (Map.Entry<String, String> j : jobs.entrySet()) {
          String s = rest.state(j.getValue());
          if (FlinkRest.ENDED.contains(s)) {
            throw new IllegalStateException(
                "job " + j.getKey() + " ended " + s + ": failed for good");
          }
        }
      } catch (IllegalStateException e) {
        if (e.getMessage() != null && e.getMessage().contains("for good")) {
          throw e;
        }
      }
    }
    throw new IllegalStateException("not recovered within " + timeout + ": " + what);
  }

  // --- brokers ----------------------------------------------------------------------------

  private static void awaitInSync(ClusterState.Data d, Duration timeout) throws Exception {
    long deadline = System.nanoTime() + timeout.toNanos();
    try (Admin admin = Cluster.admin(d)) {
      while (System.nanoTime() < deadline) {
        try {
          var names = admin.listTopics().names().get();
          Map<String, TopicDescription> t = admin.describeTopics(names).allTopicNames().get();
          boolean inSync = true;
          for (TopicDescription td : t.values()) {
            for (TopicPartitionInfo p : td.partitions()) {
              if (p.leader() == null || p.isr().size() < p.replicas().size()) {
                inSync = false;
              }
            }
          }
          if (inSync) {
            return;
          }
        } catch (java.util.concurrent.ExecutionException e) {
          // A broker busy with its elections may not answer in time: ask again.
        }
        Thread.sleep(500);
      }
    }
    throw new IllegalStateException("partitions still under-replicated after " + timeout);
  }

  // --- goflow2 and its exporter -------------------------------------------------------------

  /**
   * Stops the generator (SIGSTOP) and waits until goflow2 published everything it received: NetFlow
   * over UDP has no redelivery, so datagrams in a killed collector's socket are lost to any
   * collector; the soak tests what Cheetah can keep, not UDP. Returns the generator's pid, 0 when
   * the export already ended.
   */
  private long pauseExporter() throws Exception {
    Optional<ProcessHandle> gen =
        ProcessHandle.current()
            .descendants()
            .filter(
                p -> p.info().commandLine().map(c -> c.contains("cheetah_generator")).orElse(false))
            .findFirst();
    if (gen.isEmpty()) {
      return 0;
    }
    signal("STOP", gen.get().pid());
    String metrics = stack.collectorMetricsUrl();
    long deadline = System.nanoTime() + Duration.ofMinutes(2).toNanos();
    long last = -1;
    int stable = 0;
    while (stable < 3) {
      if (System.nanoTime() > deadline) {
        signal("CONT", gen.get().pid());
        throw new IllegalStateException("goflow2 did not drain within 2 minutes");
      }
      Thread.sleep(1000);
      long queued =
          CollectorMetrics.read(metrics, "cheetah_goflow2_socket_queued_bytes").orElse(-1);
      long published =
          CollectorMetrics.read(metrics, "cheetah_goflow2_flows_published_total").orElse(-2);
      stable = queued == 0 && published == last ? stable + 1 : 0;
      last = published;
    }
    return gen.get().pid();
  }

  private static void resumeExporter(long pid) throws Exception {
    if (pid != 0) {
      signal("CONT", pid);
    }
  }

  private static void signal(String sig, long pid) throws Exception {
    int rc =
        new ProcessBuilder("kill", "-" + sig, Long.toString(pid)).inheritIO().start().waitFor();
    if (rc != 0) {
      throw new IllegalStateException("kill -" + sig + " " + pid + " failed (exit " + rc + ")");
    }
  }

  private void awaitPublishing(Duration timeout, boolean exporting) throws InterruptedException {
    if (!exporting) {
      return;
    }
    String metrics = stack.collectorMetricsUrl();
    long deadline = System.nanoTime() + timeout.toNanos();
    while (System.nanoTime() < deadline) {
      OptionalLong n = CollectorMetrics.read(metrics, "cheetah_goflow2_flows_published_total");
      if (n.isPresent() && n.getAsLong() > 0) {
        return;
      }
      Thread.sleep(200);
    }
    throw new IllegalStateException("goflow2 published nothing within " + timeout);
  }

  // --- the warehouse ------------------------------------------------------------------------

  private static long flowsStored(WarehouseClient wh) {
    try {
      return Long.parseLong(wh.query("SELECT count() FROM flows").trim());
    } catch (Exception e) {
      return -1;
    }
  }

  private void awaitStoring(WarehouseClient wh, long before, Duration timeout)
      throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (System.nanoTime() < deadline) {
      if (flowsStored(wh) > before) {
        return;
      }
      if (exportEnded && flowsStored(wh) >= before && before >= 0) {
        return; // nothing new to store
      }
      Thread.sleep(250);
    }
    throw new IllegalStateException(
        "the warehouse stored no new flow row within " + timeout + " (" + before + " before)");
  }

  // --- the redirect adapter -----------------------------------------------------------------

  /**
   * The tc adapter (adapters/, docs/ADAPTERS.md) for the demo's device, on a veth interface in a
   * network namespace of its own: its filters are the device state read back at the end.
   */
  static final class Adapter implements AutoCloseable {
    final String netns = "cheetah-chaos-" + ProcessHandle.current().pid();
    final String dev = "chaos0";
    private final Tools tools;
    private final String bootstrap;
    private final Path keys;
    private final Path dir;
    private Process process;
    private boolean nsMade;

    Adapter(Tools tools, String bootstrap, Path keys, Path dir) {
      this.tools = tools;
      this.bootstrap = bootstrap;
      this.keys = keys;
      this.dir = dir;
    }

    void start() throws Exception {
      if (!nsMade) {
        sh("ip", "netns", "add", netns);
        nsMade = true;
        // A veth pair inside the namespace (this kernel has no dummy driver); tc shapes one end.
        sh("ip", "-n", netns, "link", "add", dev, "type", "veth", "peer", "name", dev + "p");
        sh("ip", "-n", netns, "link", "set", dev + "p", "up");
        sh("ip", "-n", netns, "link", "set", dev, "up");
      }
      Path events = dir.resolve("adapter-events.jsonl");
      long offset = Files.exists(events) ? Files.size(events) : 0;
      ProcessBuilder pb =
          new ProcessBuilder(
                  tools.python().toString(),
                  "-m",
                  "cheetah_adapters",
                  "--target",
                  "tc",
                  "--device",
                  DEVICE,
                  "--bootstrap",
                  bootstrap,
                  "--keys",
                  keys.toString(),
                  "--state-dir",
                  dir.resolve("adapter-state").toString(),
                  "--interface",
                  dev,
                  "--netns",
                  netns)
              .directory(tools.home().resolve("adapters").toFile())
              .redirectOutput(ProcessBuilder.Redirect.appendTo(events.toFile()))
              .redirectError(ProcessBuilder.Redirect.appendTo(dir.resolve("adapter.log").toFile()));
      pb.environment().put("PYTHONPATH", tools.home().resolve("adapters").toString());
      process = pb.start();
      long deadline = System.nanoTime() + Duration.ofMinutes(2).toNanos();
      while (true) {
        String text = Files.exists(events) ? Files.readString(events) : "";
        if (text.length() > offset && text.substring((int) offset).contains("\"ready\"")) {
          return;
        }
        if (!process.isAlive()) {
          throw new IllegalStateException(
              "the adapter exited " + process.exitValue() + "; see " + dir.resolve("adapter.log"));
        }
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("the adapter was not ready within 2 minutes");
        }
        Thread.sleep(100);
      }
    }

    void kill() throws InterruptedException {
      if (process != null && process.isAlive()) {
        process.destroyForcibly(); // SIGKILL
        process.waitFor();
      }
    }

    /** Filters the adapter installed on the interface (u32 filters into the scavenger class). */
    int filters() throws Exception {
      String out = sh("tc", "-n", netns, "filter", "show", "dev", dev, "parent", "1:");
      return (int) out.lines().filter(l -> l.contains("flowid 1:20")).count();
    }

    @Override
    public void close() throws Exception {
      kill();
      if (nsMade) {
        sh("ip", "netns", "del", netns);
      }
    }

    private static String sh(String... cmd) throws Exception {
      Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
      String out = new String(p.getInputStream().readAllBytes());
      if (p.waitFor() != 0) {
        throw new IllegalStateException(String.join(" ", cmd) + " failed: " + out.strip());
      }
      return out;
    }
  }

  /** What the adapter did with each command, and what its device holds. */
  record AdapterOutcome(
      int commands,
      int applied,
      int duplicateAcks,
      Map<String, Integer> otherAcks,
      int expectedInForce,
      int filters,
      List<String> problems) {
    boolean ok() {
      return problems.isEmpty();
    }
  }

  /**
   * Once the adapter acked every command on redirects.commands.v1 for its device: each command id
   * applied exactly once (one APPLIED ack; a redelivery acked DUPLICATE is not an application), and
   * the interface holds exactly the rules those acks leave in force (added, not removed, not
   * expired).
   */
  private AdapterOutcome adapterOutcome(ClusterState.Data d) throws Exception {
    Map<String, String> security = d.clientSecurity(KafkaPrincipals.ADMIN);
    long deadline = System.nanoTime() + Duration.ofMinutes(3).toNanos();
    Map<String, RedirectCommand> commands;
    List<RedirectAck> acks;
    while (true) {
      commands = new LinkedHashMap<>();
      for (byte[] v : readAll(d.bootstrap(), security, Topics.REDIRECTS_COMMANDS)) {
        RedirectCommand c = RedirectCommand.parseFrom(v);
        if (c.getDeviceId().equals(DEVICE)) {
          commands.putIfAbsent(c.getCommandId(), c);
        }
      }
      acks = new ArrayList<>();
      for (byte[] v : readAll(d.bootstrap(), security, Topics.REDIRECTS_ACKS)) {
        RedirectAck a = RedirectAck.parseFrom(v);
        if (a.getDeviceId().equals(DEVICE)) {
          acks.add(a);
        }
      }
      java.util.Set<String> acked = new java.util.HashSet<>();
      acks.forEach(a -> acked.add(a.getCommandId()));
      if (acked.containsAll(commands.keySet()) || System.nanoTime() > deadline) {
        break;
      }
      Thread.sleep(1000);
    }
    List<String> problems = new ArrayList<>();
    Map<String, Integer> applied = new HashMap<>();
    Map<String, Integer> other = new TreeMap<>();
    int duplicates = 0;
    for (RedirectAck a : acks) {
      if (a.getStatus() == AckStatus.ACK_STATUS_APPLIED) {
        applied.merge(a.getCommandId(), 1, Integer::sum);
      } else if (a.getStatus() == AckStatus.ACK_STATUS_DUPLICATE) {
        duplicates++;
      } else {
        other.merge(a.getStatus().name().replace("ACK_STATUS_", ""), 1, Integer::sum);
      }
    }
    java.util.Set<String> ackedIds = new java.util.HashSet<>();
    acks.forEach(a -> ackedIds.add(a.getCommandId()));
    for (RedirectCommand c : commands.values()) {
      int n = applied.getOrDefault(c.getCommandId(), 0);
      if (n > 1) {
        problems.add(c.getCommandId() + " applied " + n + " times (doubled)");
      }
      if (!ackedIds.contains(c.getCommandId())) {
        problems.add(c.getCommandId() + " never acked (lost)");
      }
    }
    Map<String, RedirectCommand> onTopic = commands;
    applied.keySet().stream()
        .filter(id -> !onTopic.containsKey(id))
        .forEach(id -> problems.add(id + " applied but not on " + Topics.REDIRECTS_COMMANDS));
    long now = System.currentTimeMillis();
    java.util.Set<String> removed = new java.util.HashSet<>();
    for (RedirectCommand c : commands.values()) {
      if (c.getAction() == RedirectAction.REDIRECT_ACTION_REMOVE
          && applied.containsKey(c.getCommandId())) {
        removed.add(c.getReplacesCommandId());
      }
    }
    int inForce = 0;
    for (RedirectCommand c : commands.values()) {
      if (c.getAction() != RedirectAction.REDIRECT_ACTION_REMOVE
          && applied.containsKey(c.getCommandId())
          && !removed.contains(c.getCommandId())
          && c.getExpiresMs() > now + 5000) {
        inForce++;
      }
    }
    int filters = adapter.filters();
    if (filters != inForce) {
      problems.add(
          "the interface holds "
              + filters
              + " filters, the acks leave "
              + inForce
              + " rules in force");
    }
    if (commands.isEmpty()) {
      problems.add("no command for " + DEVICE + ": the adapter check tested nothing");
    }
    return new AdapterOutcome(
        commands.size(),
        applied.values().stream().mapToInt(Integer::intValue).sum(),
        duplicates,
        other,
        inForce,
        filters,
        problems);
  }

  /** Every committed message's value on a topic, from the beginning to its current end. */
  private static List<byte[]> readAll(
      String bootstrap, Map<String, String> security, String topic) {
    Map<String, Object> props = new HashMap<>(security);
    props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    List<byte[]> out = new ArrayList<>();
    try (KafkaConsumer<byte[], byte[]> c =
        new KafkaConsumer<>(props, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      List<TopicPartition> parts =
          c.partitionsFor(topic, Duration.ofSeconds(30)).stream()
              .map(p -> new TopicPartition(topic, p.partition()))
              .toList();
      c.assign(parts);
      c.seekToBeginning(parts);
      Map<TopicPartition, Long> end = c.endOffsets(parts, Duration.ofSeconds(30));
      long deadline = System.nanoTime() + Duration.ofMinutes(1).toNanos();
      while (parts.stream().anyMatch(p -> c.position(p) < end.get(p))) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("could not read " + topic + " to its end in a minute");
        }
        for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(500))) {
          out.add(r.value());
        }
      }
    }
    return out;
  }

  // --- the summary --------------------------------------------------------------------------

  /** Each job's restarts, and every kill's recovery: part of the demo's checks. */
  @Override
  DemoChecks.Check restartsCheck(Map<String, Long> restarts) {
    List<String> diffs = new ArrayList<>();
    kills.stream()
        .filter(k -> !k.ok())
        .forEach(k -> diffs.add("kill #" + k.n() + " of " + k.process() + ": " + k.note()));
    if (!chaosError.isEmpty()) {
      diffs.add("the kill schedule failed: " + chaosError);
    }
    if (kills.isEmpty()) {
      diffs.add("nothing was killed: the export ended first (--minutes)");
    }
    return new DemoChecks.Check(
        String.format(
            Locale.ROOT,
            "chaos: %d kills, %d recovered; restarts of the jobs now running: %s",
            kills.size(),
            kills.stream().filter(Kill::ok).count(),
            restarts),
        diffs);
  }

  private List<String> summary(
      long seedUsed,
      int demo,
      AdapterOutcome commands,
      Tools tools,
      WarehouseClient ignored,
      Path data)
      throws Exception {
    List<String> t = new ArrayList<>();
    ClusterState.Data d = cluster.requireUp().data();
    WarehouseClient wh = new WarehouseClient(d.warehouseUrl());
    t.add("Chaos soak summary");
    t.add(
        String.format(
            Locale.ROOT,
            "seed %d; %.1f minutes of export at %.0f records/s; kills every %d-%d s after the"
                + " last recovery; %s",
            seedUsed,
            minutes,
            rate,
            gapS,
            2 * gapS,
            java.time.Instant.now()));
    t.add("");
    t.add(
        String.format(
            Locale.ROOT,
            "%-12s %6s %9s %12s %12s %12s",
            "component",
            "kills",
            "survived",
            "recovery min",
            "median s",
            "max s"));
    for (String c : COMPONENTS) {
      List<Kill> ks = kills.stream().filter(k -> k.component().equals(c)).toList();
      List<Double> r = ks.stream().filter(Kill::ok).map(Kill::recoveryS).sorted().toList();
      t.add(
          String.format(
              Locale.ROOT,
              "%-12s %6d %9d %12s %12s %12s",
              c,
              ks.size(),
              r.size(),
              r.isEmpty() ? "-" : String.format(Locale.ROOT, "%.1f", r.get(0)),
              r.isEmpty() ? "-" : String.format(Locale.ROOT, "%.1f", r.get(r.size() / 2)),
              r.isEmpty() ? "-" : String.format(Locale.ROOT, "%.1f", r.get(r.size() - 1))));
    }
    t.add("");
    t.add("kills (time since start, process, recovery: until when):");
    for (Kill k : kills) {
      t.add(
          String.format(
              Locale.ROOT,
              "  #%-2d %7.1f s  %-13s %s %6.1f s  until %s%s",
              k.n(),
              k.atS(),
              k.process(),
              k.ok() ? "recovered" : "FAILED   ",
              k.recoveryS(),
              k.recoveredWhen(),
              k.note().isEmpty() ? "" : " [" + k.note() + "]"));
    }
    t.add("");
    // Lost or doubled, counted by rows (StoredOnce, TruthCheck: the demo's own checks).
    long sent =
        new com.fasterxml.jackson.databind.ObjectMapper()
            .readTree(data.resolve("truth/truth.json").toFile())
            .path("totals")
            .path("records")
            .asLong();
    List<StoredOnce.Count> once =
        StoredOnce.count(
            tools,
            wh,
            d.bootstrap(),
            d.clientSecurity(KafkaPrincipals.ADMIN),
            List.of(
                StoredOnce.Result.FLOWS, StoredOnce.Result.CHEETAHS, StoredOnce.Result.FLOWSETS));
    t.add("lost or doubled (rows, not distinct keys):");
    t.add(String.format(Locale.ROOT, "  %-40s %10s %10s %10s", "where", "rows", "keys", "doubled"));
    for (StoredOnce.Count c : once) {
      t.add(
          String.format(
              Locale.ROOT,
              "  %-40s %,10d %,10d %,10d",
              c.where(),
              c.items(),
              c.keys(),
              c.items() - c.keys()));
    }
    long flowRows = Long.parseLong(wh.query("SELECT count() FROM flows").trim());
    t.add(
        String.format(
            Locale.ROOT,
            "  flow records: %,d sent, %,d rows stored: %,d lost, %,d extra",
            sent,
            flowRows,
            Math.max(0, sent - flowRows),
            Math.max(0, flowRows - sent)));
    Path truth = data.resolve("truth");
    TruthCheck.Outcome ch =
        TruthCheck.cheetahs(
            TruthCheck.read(truth.resolve("cheetahs.csv")),
            lines(wh.query(query(tools, "demo_cheetahs.sql"))));
    TruthCheck.Outcome fs =
        TruthCheck.flowsets(
            TruthCheck.read(truth.resolve("flowsets.csv")),
            lines(wh.query(query(tools, "demo_flowsets.sql"))));
    t.add(
        String.format(
            Locale.ROOT,
            "  cheetah flows: %d in the truth, %d stored, %d match; flowsets: %d, %d, %d",
            ch.expected(),
            ch.actual(),
            ch.matched(),
            fs.expected(),
            fs.actual(),
            fs.matched()));
    t.add(
        String.format(
            Locale.ROOT,
            "  redirect commands for %s: %d, applied %d times (%d redeliveries acked DUPLICATE,"
                + " other acks %s); %d rules in force per the acks, %d filters on the interface",
            DEVICE,
            commands.commands(),
            commands.applied(),
            commands.duplicateAcks(),
            commands.otherAcks(),
            commands.expectedInForce(),
            commands.filters()));
    commands.problems().forEach(p -> t.add("    FAILED: " + p));
    t.add("");
    boolean recovered = kills.stream().allMatch(Kill::ok) && chaosError.isEmpty();
    t.add(
        "verdict: "
            + (demo == 0 && commands.ok() && recovered && !kills.isEmpty()
                ? "PASSED: every kill recovered, nothing lost, nothing doubled"
                : "FAILED:"
                    + (demo != 0 ? " the demo's truth check failed (above);" : "")
                    + (commands.ok() ? "" : " redirect commands lost or doubled;")
                    + (recovered ? "" : " a kill did not recover;")
                    + (kills.isEmpty() ? " nothing was killed;" : "")));
    return t;
  }

  private static List<String> lines(String s) {
    return s.isBlank() ? List.of() : java.util.Arrays.asList(s.split("\n"));
  }
}
