package net.cheetah.jobs.flink;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import net.cheetah.config.CheetahConfig;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.CoreOptions;
import org.apache.flink.configuration.ExternalizedCheckpointRetention;
import org.apache.flink.core.execution.CheckpointingMode;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * How every Cheetah job's environment is set up, wherever it runs: the embedded stack (the cli's
 * FlinkJobs), the job jar on a session cluster or in the Kubernetes operator's application mode
 * ({@link net.cheetah.jobs.JobMain}). One place, so that a job is the same graph with the same
 * checkpointing everywhere (README, "The job jar"):
 *
 * <ul>
 *   <li>exactly-once checkpoints every flink.checkpoint-interval-ms (the Kafka sinks commit their
 *       transactions at each checkpoint), into flink.checkpoint-dir;
 *   <li>the newest flink.checkpoints-retained of them kept when the job is cancelled or fails, so
 *       that it can resume from the newest after a crash;
 *   <li>savepoints into flink.savepoint-dir when no directory is named;
 *   <li>flink.parallelism;
 *   <li>the restart strategy of flink.restart-* ({@link RestartStrategy}).
 * </ul>
 *
 * <p>The settings travel with the job (its job configuration), so a cluster's own defaults do not
 * change them.
 */
public final class JobEnvironment {
  private JobEnvironment() {}

  /**
   * The Flink configuration keys and values of every job, given the data directory the empty
   * flink.checkpoint-dir / flink.savepoint-dir default under.
   */
  public static Map<String, String> settings(CheetahConfig cfg, Path dataDir) {
    CheetahConfig.Flink f = cfg.flink();
    Map<String, String> s = new LinkedHashMap<>();
    s.put(CheckpointingOptions.CHECKPOINTING_INTERVAL.key(), f.checkpointIntervalMs() + " ms");
    s.put(
        CheckpointingOptions.CHECKPOINTING_CONSISTENCY_MODE.key(),
        CheckpointingMode.EXACTLY_ONCE.name());
    s.put(
        CheckpointingOptions.EXTERNALIZED_CHECKPOINT_RETENTION.key(),
        ExternalizedCheckpointRetention.RETAIN_ON_CANCELLATION.name());
    s.put(
        CheckpointingOptions.MAX_RETAINED_CHECKPOINTS.key(),
        Integer.toString(f.checkpointsRetained()));
    s.put(CheckpointingOptions.CHECKPOINT_STORAGE.key(), "filesystem");
    s.put(CheckpointingOptions.CHECKPOINTS_DIRECTORY.key(), f.checkpointDirectory(dataDir));
    s.put(CheckpointingOptions.SAVEPOINT_DIRECTORY.key(), f.savepointDirectory(dataDir));
    s.put(CoreOptions.DEFAULT_PARALLELISM.key(), Integer.toString(f.parallelism()));
    s.putAll(RestartStrategy.settings(f.restarts()));
    return s;
  }

  /** Applies {@link #settings} to a fresh environment, before the job's graph is added. */
  public static void configure(StreamExecutionEnvironment env, CheetahConfig cfg, Path dataDir) {
    env.configure(Configuration.fromMap(settings(cfg, dataDir)));
  }
}
