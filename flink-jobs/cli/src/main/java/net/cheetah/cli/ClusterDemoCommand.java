package net.cheetah.cli;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListSet;
import net.cheetah.config.CheetahConfig;
import net.cheetah.core.Topics;
import net.cheetah.runtime.FlinkRest;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * The demo ({@link DemoCommand}: the same workload, waits and truth check, not a copy) on a running
 * {@code ./cheetah cluster}; optionally with processes killed with SIGKILL, one after the other,
 * while the NetFlow export runs, after which the jobs must recover and the stored results still
 * equal the truth, each row once.
 */
@Command(
    name = "demo",
    mixinStandardHelpOptions = true,
    description = {
      "The demo's workload and ground-truth check (./cheetah demo --help) on the running cluster:",
      "submits the jobs with the demo's settings (the cluster must have no jobs and an empty",
      "warehouse: ./cheetah cluster down --wipe && ./cheetah cluster up), exports the workload",
      "to the cluster's goflow2, checks what the warehouse stored. The cluster keeps running.",
      "--kill PROCESS kills a process with SIGKILL mid-export (--kill-at-records; fault test);",
      "repeated, it kills each in turn, the next once the jobs run again after the one before.",
      "A killed TaskManager must cost every job that had a task on it at least one restart more",
      "(numRestarts, REST API), and everything must still match the truth, each row once."
    })
final class ClusterDemoCommand extends DemoCommand {
  /**
   * Records goflow2 has written before the first kill, by default: about a fifth of the workload.
   */
  static final long FIRST_KILL_RECORDS = 30_000;

  @Option(
      names = "--kill",
      paramLabel = "PROCESS",
      description =
          "taskmanager-1|2, kafka-1|2|3, or kafka-leader (the broker leading the"
              + " flows.goflow2.v1 partition goflow2 writes most to, chosen at the kill):"
              + " SIGKILL it while NetFlow flows. Repeatable: e.g. --kill kafka-leader --kill"
              + " taskmanager-2 kills the broker, then, as soon as every job runs all its tasks"
              + " again, the TaskManager.")
  List<String> kill = new ArrayList<>();

  @Option(
      names = "--kill-at-records",
      paramLabel = "RECORDS",
      split = ",",
      description =
          "Kill the Nth --kill once goflow2 has written the Nth of these many NetFlow records"
              + " to Kafka (comma-separated or repeated; a kill without one: "
              + FIRST_KILL_RECORDS
              + " for the first, about a fifth of the workload, and the kill before's for each"
              + " further one, which then comes as soon as the jobs run again): NetFlow is"
              + " flowing. While a killed broker's partitions wait for a new leader, goflow2's"
              + " records reach Kafka late: a later kill with more records may miss the export.")
  List<Long> killAtRecords = new ArrayList<>();

  @Mixin JobJarOptions jobJar;

  /** One --kill: what was asked, what was killed, and what it cost the jobs. */
  static final class Fault {
    final String asked;
    final long atRecords;

    /** The process killed: as asked, or the broker kafka-leader named at the kill. */
    volatile String process;

    /** The jobs that had a task on the process when it was killed (TaskManagers only). */
    final Set<String> lostTasks = new ConcurrentSkipListSet<>();

    /** Each of those jobs' restarts just before the kill: the kill must add to them. */
    final Map<String, Long> restartsBefore = new ConcurrentHashMap<>();

    volatile long killedAt;
    volatile double recoverySeconds = -1;
    volatile String error = "";

    Fault(String asked, long atRecords) {
      this.asked = asked;
      this.atRecords = atRecords;
      this.process = asked;
    }
  }

  final List<Fault> faults = new ArrayList<>();
  private volatile Cluster cluster;
  private volatile ClusterStack stack;
  private volatile long exportEnded;

  /** The most records goflow2 was seen to have written (a kill's wait needs no more). */
  private volatile long recordsReached;

  @Override
  public Integer call() throws Exception {
    Map<String, String> defaults = demoDefaults();
    CheetahConfig cfg = config.load(defaults);
    Tools tools = Tools.fromEnvironment();
    faults.addAll(faults(kill, killAtRecords));
    cluster = new Cluster(cfg, tools, ClusterCommand::say);
    ClusterState state = cluster.requireUp();
    WarehouseClient wh = new WarehouseClient(state.data().warehouseUrl());
    long stored = Long.parseLong(wh.query("SELECT count() FROM flows").trim());
    if (stored != 0) {
      throw new IllegalStateException(
          "the cluster's warehouse already holds "
              + stored
              + " flow records; the truth check needs a fresh cluster: ./cheetah cluster down"
              + " --wipe && ./cheetah cluster up");
    }
    Path data = cluster.dir().resolve("demo");
    wipe(data);
    long t0 = System.nanoTime();
    Map<String, String> jobs =
        cluster.submit(config.keys(defaults), jobJar.jar(tools), jobJar.parallelism);
    stack = new ClusterStack(cluster.requireUp(), jobs);
    return run(cfg, tools, data, stack, t0);
  }

  /** The --kill options paired with their --kill-at-records, checked. */
  static List<Fault> faults(List<String> kills, List<Long> atRecords) {
    if (atRecords.size() > kills.size()) {
      throw new IllegalArgumentException(
          "--kill-at-records "
              + atRecords
              + ": "
              + atRecords.size()
              + " values for "
              + kills.size()
              + " --kill");
    }
    List<Fault> faults = new ArrayList<>();
    long previous = 0;
    for (int i = 0; i < kills.size(); i++) {
      String k = kills.get(i);
      if (!k.matches("taskmanager-[1-9]|kafka-[1-9]|kafka-leader")) {
        throw new IllegalArgumentException(
            "--kill "
                + k
                + ": a TaskManager (taskmanager-1, -2) or a broker (kafka-1, -2, -3, kafka-leader)");
      }
      if (kills.subList(0, i).contains(k)) {
        throw new IllegalArgumentException(
            "--kill " + k + " given twice: it is dead after the first");
      }
      long at = i < atRecords.size() ? atRecords.get(i) : i == 0 ? FIRST_KILL_RECORDS : previous;
      if (at < previous) {
        throw new IllegalArgumentException(
            "--kill-at-records " + atRecords + ": each kill comes after the one before");
      }
      faults.add(new Fault(k, at));
      previous = at;
    }
    return faults;
  }

  @Override
  void exportStarting(RunningStack running) {
    if (faults.isEmpty()) {
      return;
    }
    Thread t = new Thread(this::killInTurn, "cluster-fault");
    t.setDaemon(true);
    t.start();
  }

  @Override
  void exportDone() {
    exportEnded = System.nanoTime();
  }

  /** Until goflow2 has written {@code atRecords} records to flows.goflow2.v1; how many then. */
  private static long awaitRecords(ClusterState.Data bootstrap, long atRecords) throws Exception {
    long deadline = System.nanoTime() + Duration.ofMinutes(10).toNanos();
    try (Admin admin = Cluster.admin(bootstrap)) {
      while (System.nanoTime() < deadline) {
        try {
          long written = records(admin, Topics.GOFLOW2);
          if (written >= atRecords) {
            return written;
          }
        } catch (java.util.concurrent.ExecutionException e) {
          // A busy broker may not answer in time: ask again, until the deadline.
        }
        Thread.sleep(200);
      }
    }
    throw new IllegalStateException(
        "goflow2 had not written " + atRecords + " records within 10 minutes");
  }

  /** Messages on a topic (its partitions' end offsets): goflow2 writes one per flow record. */
  private static long records(Admin admin, String topic) throws Exception {
    Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
    for (TopicPartitionInfo p :
        admin.describeTopics(List.of(topic)).allTopicNames().get().get(topic).partitions()) {
      latest.put(new TopicPartition(topic, p.partition()), OffsetSpec.latest());
    }
    return admin.listOffsets(latest).all().get().values().stream()
        .mapToLong(ListOffsetsResult.ListOffsetsResultInfo::offset)
        .sum();
  }

  /** {@link #flowsLeader}, asked again for up to a minute while the brokers do not answer. */
  private static String flowsLeaderRetried(ClusterState.Data bootstrap) throws Exception {
    long deadline = System.nanoTime() + Duration.ofMinutes(1).toNanos();
    while (true) {
      try {
        return flowsLeader(bootstrap);
      } catch (java.util.concurrent.ExecutionException | IllegalStateException e) {
        if (System.nanoTime() > deadline) {
          throw e;
        }
        Thread.sleep(500);
      }
    }
  }

  /**
   * The broker (kafka-N, node id N) leading the flows.goflow2.v1 partition with the most records:
   * the one goflow2 is writing to (it keys by exporter), so its death makes goflow2's producer ride
   * through a leader election.
   */
  private static String flowsLeader(ClusterState.Data bootstrap) throws Exception {
    try (Admin admin = Cluster.admin(bootstrap)) {
      String topic = Topics.GOFLOW2;
      Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
      Map<Integer, Integer> leaders = new HashMap<>();
      for (TopicPartitionInfo p :
          admin.describeTopics(List.of(topic)).allTopicNames().get().get(topic).partitions()) {
        latest.put(new TopicPartition(topic, p.partition()), OffsetSpec.latest());
        leaders.put(p.partition(), p.leader() == null ? -1 : p.leader().id());
      }
      TopicPartition busiest =
          admin.listOffsets(latest).all().get().entrySet().stream()
              .max(
                  Map.Entry.comparingByValue(
                      java.util.Comparator.comparingLong(
                          ListOffsetsResult.ListOffsetsResultInfo::offset)))
              .orElseThrow()
              .getKey();
      int leader = leaders.get(busiest.partition());
      if (leader < 1) {
        throw new IllegalStateException(
            topic + " partition " + busiest.partition() + " has no leader");
      }
      say(
          String.format(
              Locale.ROOT,
              "--kill kafka-leader: kafka-%d leads %s partition %d (goflow2 writes most there)",
              leader,
              topic,
              busiest.partition()));
      return "kafka-" + leader;
    }
  }

  /** Each fault in turn; after a failed one, none of the rest (each then reports why). */
  private void killInTurn() {
    for (Fault f : faults) {
      if (!killLater(f)) {
        return;
      }
    }
  }

  /**
   * Kills the fault's process once goflow2 has written its records, then measures how long until
   * every job runs all its tasks again, each that lost a task having restarted since; false if that
   * failed.
   */
  private boolean killLater(Fault f) {
    try {
      // A fault before this one may have left a process dead.
      ClusterState s = cluster.requireState();
      // Not asked again when an earlier kill's wait saw enough: with a broker just killed, the
      // question itself can wait for its partitions' new leaders.
      if (f.atRecords > recordsReached) {
        recordsReached = awaitRecords(s.data(), f.atRecords);
      }
      if (f.asked.equals("kafka-leader")) {
        f.process = flowsLeaderRetried(s.data());
      }
      String kill = f.process;
      FlinkRest rest = new FlinkRest(s.data().restUrl());
      Map<String, String> jobs = s.data().jobs();
      jobs.forEach(
          (name, id) -> {
            if (kill.startsWith("taskmanager-") && rest.taskManagersOf(id).contains(kill)) {
              f.restartsBefore.put(name, rest.restarts(id).orElse(0));
              f.lostTasks.add(name);
            }
          });
      f.killedAt = System.nanoTime();
      cluster.kill(kill);
      // Recovered: every job has restarted where it lost a task and runs all its tasks again.
      long deadline = System.nanoTime() + Duration.ofMinutes(5).toNanos();
      while (System.nanoTime() < deadline) {
        Thread.sleep(250);
        boolean restarted;
        try {
          restarted =
              f.lostTasks.stream()
                  .allMatch(n -> rest.restarts(jobs.get(n)).orElse(0) > f.restartsBefore.get(n));
        } catch (IllegalStateException e) {
          continue; // the REST API did not answer in time: ask again
        }
        if (restarted && jobs.values().stream().allMatch(id -> Cluster.allRunning(rest, id))) {
          f.recoverySeconds = (System.nanoTime() - f.killedAt) / 1e9;
          say(
              String.format(
                  Locale.ROOT,
                  "after kill -9 %s: every job runs all its tasks again %.1f s later",
                  kill,
                  f.recoverySeconds));
          return true;
        }
      }
      f.error = "the jobs did not all run again within 5 minutes of the kill of " + kill;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      f.error = "interrupted";
    } catch (Exception e) {
      f.error = e.toString();
      say("the fault injection failed: " + f.error);
    }
    return false;
  }

  /**
   * Where nothing was killed: no restarts. After a TaskManager's kill: every job that had a task on
   * it restarted at least once more than it had before the kill (each count reported). After a
   * broker's kill: the counts reported; a job may ride it out on the other two brokers without a
   * restart.
   */
  @Override
  DemoChecks.Check restartsCheck(Map<String, Long> restarts) {
    if (faults.isEmpty()) {
      return noRestarts(restarts);
    }
    List<String> diffs = new ArrayList<>();
    Fault failed = null;
    for (Fault f : faults) {
      if (f.killedAt == 0) {
        diffs.add(
            "nothing was killed for --kill "
                + f.asked
                + (!f.error.isEmpty()
                    ? " (" + f.error + ")"
                    : failed != null
                        ? " (the kill of " + failed.process + " failed)"
                        : ": goflow2 never wrote --kill-at-records " + f.atRecords + " records"));
      } else if (exportEnded != 0 && exportEnded < f.killedAt) {
        diffs.add(
            "the kill of "
                + f.process
                + " came after the export ended: NetFlow was not flowing (lower"
                + " --kill-at-records)");
      }
      if (!f.error.isEmpty() && f.killedAt != 0) {
        diffs.add(f.error);
      }
      if (failed == null && (!f.error.isEmpty() || f.killedAt == 0)) {
        failed = f;
      }
      if (f.process.startsWith("taskmanager-") && f.lostTasks.isEmpty() && f.killedAt != 0) {
        diffs.add("no job had a task on " + f.process + ": the kill tested nothing");
      }
      for (String job : f.lostTasks) {
        long before = f.restartsBefore.getOrDefault(job, 0L);
        if (restarts.getOrDefault(job, 0L) <= before) {
          diffs.add(
              String.format(
                  Locale.ROOT,
                  "%s lost a task on %s but reports no restart since (numRestarts %d, %d before"
                      + " the kill)",
                  job,
                  f.process,
                  restarts.getOrDefault(job, 0L),
                  before));
        }
      }
    }
    if (restarts.isEmpty()) {
      diffs.add("no job's restart count could be read from the Flink REST API");
    }
    List<String> lost = new ArrayList<>();
    List<String> recovered = new ArrayList<>();
    for (Fault f : faults) {
      if (!f.lostTasks.isEmpty()) {
        lost.add(
            (faults.size() == 1 ? "" : "on " + f.process + ": ") + String.join(", ", f.lostTasks));
      }
      if (f.recoverySeconds >= 0) {
        recovered.add(
            String.format(
                Locale.ROOT,
                "%.1f s after the kill%s",
                f.recoverySeconds,
                faults.size() == 1 ? "" : " of " + f.process));
      }
    }
    return new DemoChecks.Check(
        String.format(
            Locale.ROOT,
            "restarts after kill -9 %s mid-export: %s (jobs that lost a task: %s)%s",
            String.join(", then ", faults.stream().map(f -> f.process).toList()),
            restarts,
            lost.isEmpty() ? "none" : String.join("; ", lost),
            recovered.isEmpty() ? "" : "; all running again " + String.join(", ", recovered)),
        diffs);
  }
}
