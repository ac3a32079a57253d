package net.cheetah.jobs;

import java.util.List;
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
}
