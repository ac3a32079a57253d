package net.cheetah.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import net.cheetah.runtime.Wait;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The restart strategy and its reporting, on the stack's own job runner with a real MiniCluster: a
 * job that throws once restarts once, keeps running, and its restart is counted by the REST API and
 * reported with its cause; a job that always throws FAILS after flink.restart-attempts restarts and
 * is reported as a failure of the pipeline. How often the poison record was tried is counted by the
 * job itself in a file, independently of Flink's numbers.
 */
@Tag("integration")
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class FlinkJobsTest {
  static final Duration WAIT = Duration.ofSeconds(90);

  /** Two restarts at most, quickly: 100 ms, then 200 ms. */
  static final Map<String, String> RESTARTS =
      Map.of(
          "flink.restart-attempts", "2",
          "flink.restart-delay-ms", "100",
          "flink.restart-max-delay-ms", "200",
          "flink.checkpoint-interval-ms", "500");

  @TempDir Path dir;

  private final List<String> said = Collections.synchronizedList(new ArrayList<>());

  /**
   * Passes numbers on; each time number 5 arrives it appends a line to {@code tries}, and throws
   * while it has been tried at most {@code throwing} times.
   */
  static final class Poison implements MapFunction<Long, Long> {
    private final String tries;
    private final int throwing;

    Poison(Path tries, int throwing) {
      this.tries = tries.toString();
      this.throwing = throwing;
    }

    @Override
    public Long map(Long n) throws Exception {
      if (n == 5) {
        Path file = Path.of(tries);
        Files.writeString(
            file,
            "tried\n",
            StandardCharsets.UTF_8,
            StandardOpenOption.CREATE,
            StandardOpenOption.APPEND);
        int tried = Files.readAllLines(file).size();
        if (tried <= throwing) {
          throw new IllegalStateException("poison record 5, try " + tried);
        }
      }
      return n;
    }
  }

  /**
   * A job of numbers 0, 1, 2, ... at 50 per second (the source's rate limit: the job keeps running
   * long enough to be watched, without sleeping in an operator) through {@link Poison}.
   */
  private static void submitPoisoned(FlinkJobs jobs, String name, Path tries, int throwing)
      throws Exception {
    jobs.submit(
        name,
        env ->
            env.fromSource(
                    new DataGeneratorSource<>(
                        n -> n, Long.MAX_VALUE, RateLimiterStrategy.perSecond(50), Types.LONG),
                    WatermarkStrategy.noWatermarks(),
                    "numbers")
                .map(new Poison(tries, throwing))
                .sinkTo(new DiscardingSink<>()));
  }

  @Test
  void aJobThatThrowsOnceRestartsOnceAndTheRestartIsCountedAndReported() throws Exception {
    Path tries = dir.resolve("tries");
    try (FlinkJobs jobs = started()) {
      submitPoisoned(jobs, "throws-once", tries, 1);
      Wait.until(
          "the poison record to pass on its second try",
          WAIT,
          Duration.ofMillis(100),
          () -> lines(tries) >= 2);
      Wait.until(
          "the restart to be counted",
          WAIT,
          Duration.ofMillis(200),
          () -> restarts(jobs).equals(Optional.of(Map.of("throws-once", 1L))));
      Wait.until(
          "the job to run again",
          WAIT,
          () -> jobs.statuses().get("throws-once") == JobStatus.RUNNING);
      Wait.until(
          "the restart to be reported with its cause",
          WAIT,
          Duration.ofMillis(100),
          () -> said("warning: Flink job throws-once restarted (restart 1").isPresent());

      assertThat(lines(tries)).as("tries of the poison record: one failure, one pass").isEqualTo(2);
      assertThat(jobs.restarts()).containsExactly(Map.entry("throws-once", 1L));
      assertThat(said("warning: Flink job throws-once restarted").orElseThrow())
          .contains("IllegalStateException: poison record 5, try 1");
      assertThat(jobs.failure()).as("no failure of the pipeline").isNotDone();
    }
  }

  @Test
  void aJobThatAlwaysThrowsFailsAfterTheConfiguredAttemptsAndIsReported() throws Exception {
    Path tries = dir.resolve("tries");
    try (FlinkJobs jobs = started()) {
      submitPoisoned(jobs, "always-throws", tries, Integer.MAX_VALUE);
      String failure;
      try {
        failure = jobs.failure().get(WAIT.toSeconds(), TimeUnit.SECONDS);
      } catch (TimeoutException e) {
        throw new AssertionError(
            "the job did not fail within "
                + WAIT
                + " (restarts so far: "
                + restarts(jobs)
                + "): the restart strategy does not bound its attempts",
            e);
      }

      assertThat(failure)
          .contains("Flink job always-throws FAILED after 2 restart(s)")
          .contains("flink.restart-attempts = 2")
          .contains("poison record 5, try 3");
      assertThat(said("ERROR: Flink job always-throws FAILED")).isPresent();
      // Both restarts came and went within a second, before any poll: still each is reported.
      assertThat(said("warning: Flink job always-throws restarted (restart 1 ").orElseThrow())
          .contains("poison record 5, try 1");
      assertThat(said("warning: Flink job always-throws restarted (restart 2 ").orElseThrow())
          .contains("poison record 5, try 2");
      assertThat(jobs.statuses()).containsExactly(Map.entry("always-throws", JobStatus.FAILED));
      assertThat(jobs.restarts()).containsExactly(Map.entry("always-throws", 2L));
      assertThat(lines(tries))
          .as("tries of the poison record: the first and 2 restarts")
          .isEqualTo(3);
    }
  }

  private FlinkJobs started() throws java.io.IOException {
    FlinkJobs jobs =
        new FlinkJobs(
            EndToEnd.config(RESTARTS),
            dir.resolve("data"),
            true,
            s -> {
              said.add(s);
              System.err.println("[flink-jobs] " + s);
            });
    jobs.start();
    return jobs;
  }

  private Optional<String> said(String prefix) {
    synchronized (said) {
      return said.stream().filter(s -> s.startsWith(prefix)).findFirst();
    }
  }

  /** The REST API's counts, or empty while one is not reported yet. */
  private static Optional<Map<String, Long>> restarts(FlinkJobs jobs) {
    try {
      return Optional.of(jobs.restarts());
    } catch (IllegalStateException e) {
      return Optional.empty();
    }
  }

  private static int lines(Path file) {
    try {
      return Files.exists(file) ? Files.readAllLines(file).size() : 0;
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }
}
