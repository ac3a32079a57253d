package net.cheetah.jobs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import net.cheetah.jobs.redirects.RedirectKeys;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.core.execution.CheckpointingMode;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.graph.StreamGraph;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * JobMain's arguments: every job of the stack builds from them, with the environment every job gets
 * (JobEnvironment), and anything it cannot run is refused naming what to fix. Running the jar on a
 * real cluster is flink-jobs/job-jar's JobJarClusterTest.
 */
class JobMainTest {
  @TempDir Path dir;

  private static String[] args(String... a) {
    return a;
  }

  @Test
  void everyJobOfTheStackBuildsFromTheArgumentsWithTheSharedEnvironment() throws Exception {
    Path keys = dir.resolve("redirects.json");
    RedirectKeys.create(keys, "k1");
    for (StreamJob job : StreamJob.stack()) {
      JobMain.Plan plan =
          JobMain.plan(
                  args(
                      "--job",
                      job.name(),
                      "--set",
                      "kafka.bootstrap=127.0.0.1:1",
                      "--set",
                      "redirects.keys-file=" + keys,
                      "--set",
                      "flink.checkpoint-interval-ms=750",
                      "--set",
                      "throughput.checkpoint-interval-ms=4000",
                      "--set",
                      "flink.checkpoint-dir=file:///var/cheetah/chk",
                      "--set",
                      "flink.parallelism=2"),
                  System.out)
              .orElseThrow();
      assertThat(plan.job().name()).isEqualTo(job.name());
      assertThat(plan.settings().bootstrap()).isEqualTo("127.0.0.1:1");
      StreamExecutionEnvironment env = new StreamExecutionEnvironment();
      JobMain.build(plan, env);
      StreamGraph graph = env.getStreamGraph();
      assertThat(graph.getStreamNodes()).as(job.name()).isNotEmpty();
      // The throughput job checkpoints at its own interval (its state holds every pair's series).
      assertThat(graph.getCheckpointConfig().getCheckpointInterval())
          .as(job.name())
          .isEqualTo(job.name().equals(ThroughputJob.NAME) ? 4000 : 750);
      assertThat(graph.getCheckpointConfig().getCheckpointingConsistencyMode())
          .isEqualTo(CheckpointingMode.EXACTLY_ONCE);
      assertThat(graph.getJobConfiguration().get(CheckpointingOptions.CHECKPOINTS_DIRECTORY))
          .isEqualTo("file:///var/cheetah/chk");
      assertThat(env.getParallelism()).isEqualTo(2);
    }
  }

  @Test
  void helpListsEveryJob() {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    assertThat(JobMain.plan(args("--help"), new PrintStream(out, true, StandardCharsets.UTF_8)))
        .isEmpty();
    List<String> names = new ArrayList<>();
    StreamJob.stack().forEach(j -> names.add("  " + j.name()));
    assertThat(out.toString(StandardCharsets.UTF_8)).contains(names).contains("--config", "--set");
  }

  @Test
  void whatCannotRunIsRefusedNamingTheFix() {
    assertThatThrownBy(() -> JobMain.plan(args("--job", "cheetah-nope"), System.out))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("unknown job 'cheetah-nope'; jobs: cheetah-normalize, ");
    assertThatThrownBy(() -> JobMain.plan(args(), System.out))
        .hasMessageContaining("--job NAME is required");
    assertThatThrownBy(() -> JobMain.plan(args("--job", "cheetah-normalize"), System.out))
        .hasMessageContaining("kafka.bootstrap is empty")
        .hasMessageContaining("--set kafka.bootstrap=HOST:PORT");
    assertThatThrownBy(
            () ->
                JobMain.plan(
                    args("--job", "cheetah-normalize", "--set", "flink.checkpoint-dir=/no/scheme"),
                    System.out))
        .hasMessageContaining("flink.checkpoint-dir");
    assertThatThrownBy(
            () -> JobMain.plan(args("--job", "cheetah-normalize", "--set", "nope=1"), System.out))
        .hasMessageContaining("unknown configuration key 'nope'");
  }
}
