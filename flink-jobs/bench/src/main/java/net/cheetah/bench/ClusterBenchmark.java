package net.cheetah.bench;

import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import net.cheetah.core.Topics;
import net.cheetah.jobs.CheetahJob;
import net.cheetah.jobs.NormalizeJob;
import net.cheetah.runtime.FlinkRest;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.common.TopicPartition;

/**
 * The measurements of {@code ./cheetah bench cluster} on a running {@code ./cheetah cluster} whose
 * jobs were submitted (run.sh starts, submits and stops it):
 *
 * <ul>
 *   <li>{@code throughput}: N goflow2 messages of {@link SyntheticWorkload} written to
 *       flows.goflow2.v1 (three replicas, acks=all), timed from the first write until the normalize
 *       job committed all of them and the cheetah job committed past the end of flows.v1 (its
 *       exactly-once output committed with it): end-to-end records/s through both jobs;
 *   <li>{@code recovery}: SIGKILL of one TaskManager (by the PID given), timed until every job that
 *       had a task on it has restarted (numRestarts) and runs all its tasks again.
 * </ul>
 *
 * Prints {@code FIGURE}-ready {@code RESULT key value} lines on stdout.
 */
public final class ClusterBenchmark {
  private ClusterBenchmark() {}

  public static void main(String[] args) throws Exception {
    Map<String, String> a = new java.util.HashMap<>();
    for (int i = 1; i + 1 < args.length; i += 2) {
      a.put(args[i], args[i + 1]);
    }
    int status =
        switch (args.length == 0 ? "" : args[0]) {
          case "throughput" ->
              throughput(
                  need(a, "--bootstrap"),
                  Long.parseLong(need(a, "--records")),
                  Integer.parseInt(need(a, "--partitions")),
                  Duration.ofSeconds(Long.parseLong(a.getOrDefault("--timeout-s", "900"))));
          case "recovery" ->
              recovery(
                  need(a, "--rest"),
                  need(a, "--task-manager"),
                  Long.parseLong(need(a, "--pid")),
                  Duration.ofSeconds(Long.parseLong(a.getOrDefault("--timeout-s", "300"))));
          default -> {
            System.err.println(
                "usage: ClusterBenchmark throughput --bootstrap B --records N --partitions P"
                    + " [--timeout-s S]\n"
                    + "       ClusterBenchmark recovery --rest URL --task-manager NAME --pid PID"
                    + " [--timeout-s S]");
            yield 2;
          }
        };
    System.exit(status); // Kafka clients leave non-daemon threads behind
  }

  private static String need(Map<String, String> a, String k) {
    String v = a.get(k);
    if (v == null) {
      throw new IllegalArgumentException("missing " + k);
    }
    return v;
  }

  static int throughput(String bootstrap, long records, int partitions, Duration timeout)
      throws Exception {
    long t0 = System.nanoTime();
    SyntheticWorkload.Totals mix = EndToEndBenchmark.preload(bootstrap, records, partitions);
    double written = (System.nanoTime() - t0) / 1e9;
    System.err.printf(
        Locale.ROOT,
        "cluster bench: wrote %,d goflow2 messages in %.1f s%n",
        mix.records(),
        written);
    long deadline = t0 + timeout.toNanos();
    double normalized = -1;
    Properties p = new Properties();
    p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    try (Admin admin = Admin.create(p)) {
      Map<TopicPartition, Long> goflow =
          EndToEndBenchmark.endOffsets(admin, Topics.GOFLOW2, partitions, false);
      while (System.nanoTime() < deadline) {
        if (normalized < 0 && EndToEndBenchmark.caughtUp(admin, NormalizeJob.NAME, goflow, 0)) {
          normalized = (System.nanoTime() - t0) / 1e9;
        }
        // flows.v1 is transactional: commit markers (one per transaction, some of transactions
        // without records) follow the last record, so only reading what lies after the committed
        // offset tells whether a record is left.
        if (normalized >= 0 && cheetahJobCaughtUp(admin, partitions)) {
          double done = (System.nanoTime() - t0) / 1e9;
          System.out.printf(
              Locale.ROOT,
              "RESULT records %d%nRESULT written_s %.1f%nRESULT normalized_s %.1f%n"
                  + "RESULT committed_s %.1f%nRESULT records_per_s %.0f%n",
              mix.records(),
              written,
              normalized,
              done,
              mix.records() / done);
          return 0;
        }
        Thread.sleep(200);
      }
    }
    System.err.println("cluster bench: the jobs did not commit everything within " + timeout);
    return 1;
  }

  private static boolean cheetahJobCaughtUp(Admin admin, int partitions) throws Exception {
    Map<TopicPartition, Long> ends =
        EndToEndBenchmark.endOffsets(admin, Topics.FLOWS, partitions, true);
    Map<TopicPartition, org.apache.kafka.clients.consumer.OffsetAndMetadata> committed =
        admin.listConsumerGroupOffsets(CheetahJob.NAME).partitionsToOffsetAndMetadata().get();
    Map<TopicPartition, long[]> left = new java.util.HashMap<>();
    for (Map.Entry<TopicPartition, Long> e : ends.entrySet()) {
      var c = committed.get(e.getKey());
      if (c == null) {
        return false;
      }
      if (e.getValue() > c.offset()) {
        left.put(e.getKey(), new long[] {c.offset(), e.getValue()});
      }
    }
    return left.isEmpty() || net.cheetah.runtime.ConsumerLag.committedRecords(admin, left) == 0;
  }

  static int recovery(String rest, String taskManager, long pid, Duration timeout)
      throws Exception {
    FlinkRest flink = new FlinkRest(rest);
    Set<String> lost = new TreeSet<>();
    Map<String, String> jobs = new java.util.LinkedHashMap<>();
    for (FlinkRest.Job j : flink.jobs()) {
      if (j.state().equals("RUNNING")) {
        jobs.put(j.name(), j.id());
        if (flink.taskManagersOf(j.id()).contains(taskManager)) {
          lost.add(j.name());
        }
      }
    }
    if (lost.isEmpty()) {
      System.err.println("cluster bench: no job has a task on " + taskManager);
      return 1;
    }
    ProcessHandle tm =
        ProcessHandle.of(pid)
            .orElseThrow(() -> new IllegalStateException("no process " + pid + " to kill"));
    long t0 = System.nanoTime();
    tm.destroyForcibly();
    long deadline = t0 + timeout.toNanos();
    while (System.nanoTime() < deadline) {
      Thread.sleep(100);
      boolean restarted = lost.stream().allMatch(n -> flink.restarts(jobs.get(n)).orElse(0) >= 1);
      if (restarted && jobs.values().stream().allMatch(id -> allRunning(flink, id))) {
        double s = (System.nanoTime() - t0) / 1e9;
        System.out.printf(
            Locale.ROOT,
            "RESULT jobs_that_lost_a_task %d%nRESULT recovery_s %.1f%n",
            lost.size(),
            s);
        return 0;
      }
    }
    System.err.println("cluster bench: the jobs did not all run again within " + timeout);
    return 1;
  }

  private static boolean allRunning(FlinkRest rest, String id) {
    try {
      return "RUNNING".equals(rest.state(id))
          && rest.progress(id).stream().allMatch(v -> v.status().equals("RUNNING"));
    } catch (IllegalStateException e) {
      return false;
    }
  }
}
