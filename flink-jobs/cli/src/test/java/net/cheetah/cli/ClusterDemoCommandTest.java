package net.cheetah.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * The cluster demo's kills: which --kill-at-records each --kill gets, and the restarts check that
 * judges them (the cluster fault tests, flink-jobs/cluster-dist/test.sh, run them for real).
 */
class ClusterDemoCommandTest {
  private static ClusterDemoCommand parsed(String... args) {
    ClusterDemoCommand c = new ClusterDemoCommand();
    new CommandLine(c).parseArgs(args);
    c.faults.addAll(ClusterDemoCommand.faults(c.kill, c.killAtRecords));
    return c;
  }

  private static List<String> plan(ClusterDemoCommand c) {
    return c.faults.stream().map(f -> f.asked + "@" + f.atRecords).toList();
  }

  /** Job restarts as the stack reports them (sorted by job). */
  private static Map<String, Long> restarts(long a, long b, long c) {
    return new TreeMap<>(Map.of("a", a, "b", b, "c", c));
  }

  @Test
  void eachKillGetsItsRecordsOrTheDefaultSteps() {
    assertEquals(List.of(), plan(parsed()));
    assertEquals(List.of("kafka-2@30000"), plan(parsed("--kill", "kafka-2")));
    assertEquals(
        List.of("kafka-leader@30000", "taskmanager-2@30000"),
        plan(parsed("--kill", "kafka-leader", "--kill", "taskmanager-2")));
    assertEquals(
        List.of("kafka-leader@20000", "taskmanager-2@90000"),
        plan(
            parsed(
                "--kill",
                "kafka-leader",
                "--kill",
                "taskmanager-2",
                "--kill-at-records",
                "20000,90000")));
    assertEquals(
        List.of("taskmanager-1@50000", "kafka-3@50000"),
        plan(parsed("--kill", "taskmanager-1", "--kill-at-records", "50000", "--kill", "kafka-3")));
  }

  @Test
  void refusesKillsThatCannotHappen() {
    assertThrows(IllegalArgumentException.class, () -> parsed("--kill", "jobmanager"));
    assertThrows(
        IllegalArgumentException.class, () -> parsed("--kill", "kafka-1", "--kill", "kafka-1"));
    assertThrows(
        IllegalArgumentException.class,
        () -> parsed("--kill", "kafka-1", "--kill-at-records", "1,2"));
    assertThrows(
        IllegalArgumentException.class,
        () ->
            parsed(
                "--kill",
                "kafka-1",
                "--kill",
                "taskmanager-2",
                "--kill-at-records",
                "50000,40000"));
  }

  /** Marks the i-th fault as killed, the jobs (with their restarts then) having lost a task. */
  private static void killed(
      ClusterDemoCommand c, int i, String process, Map<String, Long> lostWithRestarts) {
    ClusterDemoCommand.Fault f = c.faults.get(i);
    f.process = process;
    f.killedAt = 1 + i;
    f.recoverySeconds = 4.5 + i;
    f.lostTasks.addAll(lostWithRestarts.keySet());
    f.restartsBefore.putAll(lostWithRestarts);
  }

  @Test
  void aTaskManagerKillMustAddARestartToEachJobThatLostATask() {
    ClusterDemoCommand c = parsed("--kill", "kafka-leader", "--kill", "taskmanager-2");
    killed(c, 0, "kafka-3", Map.of());
    // Job a restarted once before the TaskManager's kill (say, the broker's): not the
    // TaskManager's.
    killed(c, 1, "taskmanager-2", Map.of("a", 1L, "b", 0L));
    DemoChecks.Check ok = c.restartsCheck(restarts(2, 1, 0));
    assertEquals(List.of(), ok.differences(), ok.line());
    assertEquals(
        "restarts after kill -9 kafka-3, then taskmanager-2 mid-export: {a=2, b=1, c=0} (jobs"
            + " that lost a task: on taskmanager-2: a, b); all running again 4.5 s after the kill"
            + " of kafka-3, 5.5 s after the kill of taskmanager-2",
        ok.line());
    assertEquals(
        List.of(
            "a lost a task on taskmanager-2 but reports no restart since (numRestarts 1, 1 before"
                + " the kill)"),
        c.restartsCheck(restarts(1, 1, 0)).differences());
  }

  @Test
  void oneKillReadsAsBefore() {
    ClusterDemoCommand c = parsed("--kill", "taskmanager-2");
    killed(c, 0, "taskmanager-2", Map.of("a", 0L, "c", 0L));
    DemoChecks.Check ok = c.restartsCheck(restarts(1, 0, 1));
    assertEquals(List.of(), ok.differences(), ok.line());
    assertEquals(
        "restarts after kill -9 taskmanager-2 mid-export: {a=1, b=0, c=1} (jobs that lost a task:"
            + " a, c); all running again 4.5 s after the kill",
        ok.line());
  }

  @Test
  void aKillThatNeverCameFailsTheCheck() {
    ClusterDemoCommand c = parsed("--kill", "kafka-leader", "--kill", "taskmanager-2");
    killed(c, 0, "kafka-3", Map.of());
    c.faults.get(0).error =
        "the jobs did not all run again within 5 minutes of the kill of kafka-3";
    c.faults.get(0).recoverySeconds = -1;
    assertEquals(
        List.of(
            "the jobs did not all run again within 5 minutes of the kill of kafka-3",
            "nothing was killed for --kill taskmanager-2 (the kill of kafka-3 failed)"),
        c.restartsCheck(restarts(0, 0, 0)).differences());
    assertEquals(
        List.of(
            "nothing was killed for --kill taskmanager-2: goflow2 never wrote"
                + " --kill-at-records 30000 records"),
        parsed("--kill", "taskmanager-2").restartsCheck(restarts(0, 0, 0)).differences());
  }

  @Test
  void aTaskManagerWithoutTasksTestedNothing() {
    ClusterDemoCommand c = parsed("--kill", "taskmanager-1");
    killed(c, 0, "taskmanager-1", Map.of());
    assertEquals(
        List.of("no job had a task on taskmanager-1: the kill tested nothing"),
        c.restartsCheck(restarts(0, 0, 0)).differences());
  }
}
