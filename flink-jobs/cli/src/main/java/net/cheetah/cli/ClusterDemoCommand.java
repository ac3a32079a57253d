package net.cheetah.cli;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
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
 * {@code ./cheetah cluster}; optionally with one of its processes killed with SIGKILL while the
 * NetFlow export runs, after which the jobs must recover and the stored results still equal the
 * truth, each row once.
 */
@Command(
    name = "demo",
    mixinStandardHelpOptions = true,
    description = {
      "The demo's workload and ground-truth check (./cheetah demo --help) on the running cluster:",
      "submits the jobs with the demo's settings (the cluster must have no jobs and an empty",
      "warehouse: ./cheetah cluster down --wipe && ./cheetah cluster up), exports the workload",
      "to the cluster's goflow2, checks what the warehouse stored. The cluster keeps running.",
      "--kill PROCESS kills one process with SIGKILL mid-export (--kill-at-records; fault test):",
      "a killed TaskManager must cost every job that had a task on it at least one restart",
      "(numRestarts, REST API), and everything must still match the truth, each row once."
    })
final class ClusterDemoCommand extends DemoCommand {
  @Option(
      names = "--kill",
      paramLabel = "PROCESS",
      description =
          "taskmanager-1|2, kafka-1|2|3, or kafka-leader (the broker leading the"
              + " flows.goflow2.v1 partition goflow2 writes most to, chosen at the kill):"
              + " SIGKILL it while NetFlow flows.")
  String kill;

  @Option(
      names = "--kill-at-records",
      defaultValue = "30000",
      description =
          "Kill once goflow2 has written this many NetFlow records to Kafka (default"
              + " ${DEFAULT-VALUE}, about a fifth of the workload): NetFlow is flowing.")
  long killAtRecords;

  @Mixin JobJarOptions jobJar;

  private volatile Cluster cluster;
  private volatile ClusterStack stack;
  private final Set<String> lostTasks = new TreeSet<>();
  private volatile long killedAt;
  private volatile long exportEnded;
  private volatile String killError = "";
  private volatile double recoverySeconds = -1;

  @Override
  public Integer call() throws Exception {
    Map<String, String> defaults = demoDefaults();
    CheetahConfig cfg = config.load(defaults);
    Tools tools = Tools.fromEnvironment();
    if (kill != null && !kill.matches("taskmanager-[1-9]|kafka-[1-9]|kafka-leader")) {
      throw new IllegalArgumentException(
          "--kill "
              + kill
              + ": a TaskManager (taskmanager-1, -2) or a broker (kafka-1, -2, -3, kafka-leader)");
    }
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

  @Override
  void exportStarting(RunningStack running) {
    if (kill == null) {
      return;
    }
    Thread t = new Thread(this::killLater, "cluster-fault");
    t.setDaemon(true);
    t.start();
  }

  @Override
  void exportDone() {
    exportEnded = System.nanoTime();
  }

  /** Until goflow2 has written {@link #killAtRecords} records to flows.goflow2.v1. */
  private void awaitRecords(ClusterState.Data bootstrap) throws Exception {
    long deadline = System.nanoTime() + Duration.ofMinutes(10).toNanos();
    try (Admin admin = Cluster.admin(bootstrap)) {
      while (System.nanoTime() < deadline) {
        try {
          if (records(admin, Topics.GOFLOW2) >= killAtRecords) {
            return;
          }
        } catch (java.util.concurrent.ExecutionException e) {
          // A busy broker may not answer in time: ask again, until the deadline.
        }
        Thread.sleep(200);
      }
    }
    throw new IllegalStateException(
        "goflow2 had not written " + killAtRecords + " records within 10 minutes");
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

  /** Kills the process, then measures how long until every job runs all its tasks again. */
  private void killLater() {
    try {
      ClusterState s = cluster.requireUp();
      awaitRecords(s.data());
      if (kill.equals("kafka-leader")) {
        kill = flowsLeaderRetried(s.data());
      }
      FlinkRest rest = new FlinkRest(s.data().restUrl());
      Map<String, String> jobs = s.data().jobs();
      if (kill.startsWith("taskmanager-")) {
        jobs.forEach(
            (name, id) -> {
              if (rest.taskManagersOf(id).contains(kill)) {
                lostTasks.add(name);
              }
            });
      }
      killedAt = System.nanoTime();
      cluster.kill(kill);
      // Recovered: every job has restarted where it lost a task and runs all its tasks again.
      long deadline = System.nanoTime() + Duration.ofMinutes(5).toNanos();
      while (System.nanoTime() < deadline) {
        Thread.sleep(250);
        boolean restarted;
        try {
          restarted = lostTasks.stream().allMatch(n -> rest.restarts(jobs.get(n)).orElse(0) >= 1);
        } catch (IllegalStateException e) {
          continue; // the REST API did not answer in time: ask again
        }
        if (restarted && jobs.values().stream().allMatch(id -> Cluster.allRunning(rest, id))) {
          recoverySeconds = (System.nanoTime() - killedAt) / 1e9;
          say(
              String.format(
                  Locale.ROOT,
                  "after kill -9 %s: every job runs all its tasks again %.1f s later",
                  kill,
                  recoverySeconds));
          return;
        }
      }
      killError = "the jobs did not all run again within 5 minutes of the kill";
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (Exception e) {
      killError = e.toString();
      say("the fault injection failed: " + killError);
    }
  }

  /**
   * Where nothing was killed: no restarts. After a TaskManager's kill: every job that had a task on
   * it restarted at least once (each count reported). After a broker's kill: the counts reported; a
   * job may ride it out on the other two brokers without a restart.
   */
  @Override
  DemoChecks.Check restartsCheck(Map<String, Long> restarts) {
    if (kill == null) {
      return noRestarts(restarts);
    }
    List<String> diffs = new ArrayList<>();
    if (killedAt == 0) {
      diffs.add(
          "nothing was killed"
              + (killError.isEmpty()
                  ? ": goflow2 never wrote --kill-at-records " + killAtRecords + " records"
                  : " (" + killError + ")"));
    } else if (exportEnded != 0 && exportEnded < killedAt) {
      diffs.add(
          "the kill came after the export ended: NetFlow was not flowing (lower"
              + " --kill-at-records)");
    }
    if (!killError.isEmpty() && killedAt != 0) {
      diffs.add(killError);
    }
    if (kill.startsWith("taskmanager-") && lostTasks.isEmpty() && killedAt != 0) {
      diffs.add("no job had a task on " + kill + ": the kill tested nothing");
    }
    for (String job : lostTasks) {
      if (restarts.getOrDefault(job, 0L) < 1) {
        diffs.add(job + " lost a task on " + kill + " but reports no restart (numRestarts 0)");
      }
    }
    if (restarts.isEmpty()) {
      diffs.add("no job's restart count could be read from the Flink REST API");
    }
    return new DemoChecks.Check(
        String.format(
            Locale.ROOT,
            "restarts after kill -9 %s mid-export: %s (jobs that lost a task: %s)%s",
            kill,
            restarts,
            lostTasks.isEmpty() ? "none" : String.join(", ", lostTasks),
            recoverySeconds < 0
                ? ""
                : String.format(
                    Locale.ROOT, "; all running again %.1f s after the kill", recoverySeconds)),
        diffs);
  }
}
