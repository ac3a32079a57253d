package net.cheetah.simulator;

import java.util.List;

/**
 * The runs of one parameter point and their aggregates. When the point was run redirected, the same
 * seeds were also run without redirection, and the throughput ratio is per seed (redirected / not
 * redirected).
 */
public record PointResult(
    Scenario scenario,
    List<RunResult> runs,
    Estimate bgLossRate,
    Estimate cheetahThroughputBps,
    Estimate bgBurstiness,
    Estimate bgMeanDelaySeconds,
    Estimate cheetahMeanDelaySeconds,
    java.util.Optional<Estimate> throughputRatio) {

  public PointResult withThroughputRatio(Estimate ratio) {
    return new PointResult(
        scenario,
        runs,
        bgLossRate,
        cheetahThroughputBps,
        bgBurstiness,
        bgMeanDelaySeconds,
        cheetahMeanDelaySeconds,
        java.util.Optional.of(ratio));
  }

  public long events() {
    return runs.stream().mapToLong(RunResult::events).sum();
  }
}
