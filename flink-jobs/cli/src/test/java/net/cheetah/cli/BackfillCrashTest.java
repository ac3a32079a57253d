package net.cheetah.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import net.cheetah.runtime.ChildProcess;
import net.cheetah.runtime.EmbeddedKafka;
import net.cheetah.runtime.FreePorts;
import net.cheetah.runtime.TopicLayout;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * `cheetah backfill` killed with SIGKILL right after a commit returned, before it did anything else
 * (the moment a progress saved after the commit would be missing), resumes after that batch: every
 * flow record of the archive is on flows.v1 exactly once (read committed, counted as records, not
 * distinct keys). A real broker, a real nfcapd archive of the generator's workload.
 */
@Tag("integration")
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class BackfillCrashTest {
  static final String TEST = "backfill-crash";
  static final String ID = "crash-test";
  static final int BATCH = 500;
  static final int KILLED_AFTER_COMMITS = 3;

  @TempDir(cleanup = CleanupMode.ON_SUCCESS)
  Path dir;

  @Test
  void killedRightAfterACommitResumesWithoutResendingTheBatch() throws Exception {
    Tools tools = EndToEnd.tools();
    Path logs = dir.resolve("logs");
    Path truth = dir.resolve("truth");
    Path archive = Files.createDirectories(dir.resolve("archive"));
    NfcapdAnalyzeReplayTest.capture(tools, EndToEnd.requireOnPath("nfcapd"), logs, truth, archive);
    long records = Long.parseLong(NfcapdAnalyzeReplayTest.totals(truth, "records"));
    assertThat(records)
        .as("records in the archive (more than the batches before the kill)")
        .isGreaterThan((long) BATCH * KILLED_AFTER_COMMITS);

    try (EmbeddedKafka kafka =
        new EmbeddedKafka(
            EmbeddedKafka.Config.defaults(dir.resolve("kafka"))
                .withPorts(FreePorts.pick(), FreePorts.pick()))) {
      kafka.start();
      new TopicLayout(TopicLayout.Config.embedded()).createAll(kafka);
      String bootstrap = kafka.bootstrapServers();
      List<String> args =
          List.of(
              "backfill",
              archive.toString(),
              "--set",
              "kafka.bootstrap=" + bootstrap,
              "--id",
              ID,
              "--batch",
              Integer.toString(BATCH));
      List<String> java =
          new ArrayList<>(
              List.of(
                  Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                  "-cp",
                  System.getProperty("java.class.path"),
                  Main.class.getName()));
      java.addAll(args);
      try (ChildProcess killed =
          EndToEnd.child(
              logs,
              "backfill-killed",
              java,
              Map.of(
                  "CHEETAH_NFDUMP",
                  "nfdump",
                  BackfillCommand.CrashPoint.ENV,
                  Integer.toString(KILLED_AFTER_COMMITS)))) {
        int rc = killed.awaitExit(Duration.ofMinutes(3));
        assertThat(String.join("\n", killed.stderrTail()))
            .as("the killed run's stderr")
            .contains("killing myself with SIGKILL");
        assertThat(rc).as("exit status of a SIGKILLed JVM").isEqualTo(128 + 9);
      }
      Map<String, Long> committed = BackfillCommand.committedProgress(bootstrap, ID);
      EndToEnd.say(TEST, "committed before the kill: " + committed);
      assertThat(committed.values().stream().mapToLong(v -> Math.max(0, v)).sum())
          .as("lines committed in %d batches of %d", KILLED_AFTER_COMMITS, BATCH)
          .isEqualTo((long) BATCH * KILLED_AFTER_COMMITS);

      ByteArrayOutputStream err = new ByteArrayOutputStream();
      PrintStream oldErr = System.err;
      int rc;
      try {
        System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
        rc =
            new CommandLine(new BackfillCommand())
                .execute(args.subList(1, args.size()).toArray(String[]::new));
      } finally {
        System.setErr(oldErr);
      }
      EndToEnd.say(TEST, "resumed run: " + err.toString(StandardCharsets.UTF_8));
      assertThat(rc).as("resumed backfill exit code").isZero();
      assertThat(err.toString(StandardCharsets.UTF_8))
          .contains("backfill: resuming " + ID + " from its progress committed on")
          .contains((BATCH * KILLED_AFTER_COMMITS) + " line(s) of the others");
      assertThat(BackfillCommand.committedProgress(bootstrap, ID).values())
          .as("every archive marked sent whole")
          .containsOnly(-1L);

      StoredOnce.Count flows =
          StoredOnce.inTopic(bootstrap, StoredOnce.Result.FLOWS, Duration.ofSeconds(60));
      EndToEnd.say(TEST, "flows.v1 (read committed): " + flows.line());
      assertThat(flows.items())
          .as("flow records on flows.v1 of %d in the archive", records)
          .isEqualTo(records);
      assertThat(flows.ok()).as(flows.line()).isTrue();
    }
  }
}
