package net.cheetah.jobs;

import java.util.ArrayList;
import java.util.List;
import net.cheetah.config.CheetahConfig;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * A streaming job of the stack: its name (its Flink job name and Kafka consumer group) and the
 * graph it adds to an environment. Every job takes the same settings, so the stack, the benchmarks
 * and the tests submit any of them the same way.
 */
public interface StreamJob {
  String name();

  /** Adds this job's sources, operators and sinks to {@code env}. */
  void addTo(StreamExecutionEnvironment env, JobSettings s);

  /** Every job of the stack, upstream first. */
  static List<StreamJob> stack() {
    return List.of(
        new NormalizeJob(),
        new CheetahJob(),
        new LinkStatsJob(),
        new ThresholdJob(),
        new RedirectJob(),
        new ThroughputJob());
  }

  /**
   * The jobs that run with {@code config}: the stack, and the fabric job when {@code
   * fabric.topology-file} is set (docs/FABRIC.md, "The job").
   */
  static List<StreamJob> stack(CheetahConfig config) {
    List<StreamJob> jobs = new ArrayList<>(stack());
    if (config.fabric().jobConfigured()) {
      jobs.add(new FabricJob());
    }
    return List.copyOf(jobs);
  }

  /** Every job this jar can run: the stack and the jobs that run only when configured. */
  static List<StreamJob> all() {
    List<StreamJob> jobs = new ArrayList<>(stack());
    jobs.add(new FabricJob());
    return List.copyOf(jobs);
  }
}
