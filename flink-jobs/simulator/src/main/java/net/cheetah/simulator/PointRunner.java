package net.cheetah.simulator;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.ToDoubleFunction;

/**
 * Runs the N seeded runs of a parameter point on a pool of threads. Run i always uses the seed
 * derived from (base seed, i) alone, so results do not depend on the thread count, and every point
 * of a sweep sees the same N background realisations.
 */
public final class PointRunner implements AutoCloseable {
  private final ExecutorService pool;
  private final int threads;

  public PointRunner(int threads) {
    if (threads < 1) {
      throw new IllegalArgumentException("threads must be >= 1, got " + threads);
    }
    this.threads = threads;
    this.pool =
        Executors.newFixedThreadPool(
            threads,
            r -> {
              Thread t = new Thread(r, "simulator");
              t.setDaemon(true);
              return t;
            });
  }

  public int threads() {
    return threads;
  }

  /** The seed of run i: a SplitMix64 step of the base seed, so neighbouring runs are unrelated. */
  public static long runSeed(long baseSeed, int run) {
    long z = baseSeed + 0x9E3779B97F4A7C15L * (run + 1L);
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }

  public List<RunResult> runAll(Scenario scenario, int runs, long baseSeed) {
    if (runs < 1) {
      throw new IllegalArgumentException("runs must be >= 1, got " + runs);
    }
    List<Future<RunResult>> futures = new ArrayList<>(runs);
    for (int i = 0; i < runs; i++) {
      long seed = runSeed(baseSeed, i);
      futures.add(pool.submit(() -> PortSimulation.run(scenario, seed)));
    }
    List<RunResult> results = new ArrayList<>(runs);
    for (Future<RunResult> f : futures) {
      try {
        results.add(f.get());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while simulating", e);
      } catch (ExecutionException e) {
        throw new IllegalStateException("a simulation run failed: " + e.getCause(), e.getCause());
      }
    }
    return results;
  }

  /** Runs a point; when it is redirected, also runs its non-redirected twin for the ratio. */
  public PointResult run(Scenario scenario, int runs, long baseSeed) {
    List<RunResult> results = runAll(scenario, runs, baseSeed);
    PointResult point = aggregate(scenario, results);
    if (scenario.redirect() && scenario.cheetah().isPresent()) {
      List<RunResult> plain = runAll(scenario.withRedirect(false), runs, baseSeed);
      return point.withThroughputRatio(throughputRatio(results, plain));
    }
    return point;
  }

  /** Per seed: redirected throughput / non-redirected throughput (0 when the latter is 0). */
  public static Estimate throughputRatio(List<RunResult> redirected, List<RunResult> plain) {
    if (redirected.size() != plain.size()) {
      throw new IllegalArgumentException("ratio needs the same seeds on both sides");
    }
    double[] ratios = new double[redirected.size()];
    for (int i = 0; i < ratios.length; i++) {
      double base = plain.get(i).cheetahThroughputBps();
      ratios[i] = base > 0 ? redirected.get(i).cheetahThroughputBps() / base : 0;
    }
    return Estimate.of(ratios);
  }

  /** Aggregates runs already made (redirected or not); no throughput ratio. */
  public static PointResult aggregate(Scenario scenario, List<RunResult> results) {
    return new PointResult(
        scenario,
        results,
        estimate(results, RunResult::bgLossRate),
        estimate(results, RunResult::cheetahThroughputBps),
        estimate(results, RunResult::bgBurstiness),
        estimate(results, RunResult::bgMeanDelaySeconds),
        estimate(results, RunResult::cheetahMeanDelaySeconds),
        Optional.empty());
  }

  private static Estimate estimate(List<RunResult> runs, ToDoubleFunction<RunResult> f) {
    return Estimate.of(runs.stream().mapToDouble(f).toArray());
  }

  @Override
  public void close() {
    pool.shutdownNow();
  }
}
