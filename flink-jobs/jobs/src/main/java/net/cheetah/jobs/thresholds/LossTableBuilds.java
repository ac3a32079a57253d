package net.cheetah.jobs.thresholds;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.FutureTask;
import net.cheetah.config.CheetahConfig;
import net.cheetah.simulator.CongestionControl;
import net.cheetah.simulator.LossTableBuilder;
import net.cheetah.simulator.PointRunner;
import net.cheetah.simulator.PortConfig;
import net.cheetah.simulator.TcpCheetah;
import net.cheetah.threshold.LossTable;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.ThreadSafeSimpleCounter;
import org.apache.flink.streaming.api.functions.async.ResultFuture;
import org.apache.flink.streaming.api.functions.async.RichAsyncFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Table mode, off the hot path: simulates the loss table a {@link TableRequest} asks for, one table
 * at a time on its own thread (the simulator's runs on {@code thresholds.table-threads} more), so
 * the threshold operator never waits for it (Flink async I/O; the requests in flight are in this
 * operator's checkpoints and are simulated again after a restore). A build that throws or outlasts
 * {@code thresholds.table-timeout-ms} yields a failed {@link BuiltTable} saying why, never a job
 * failure.
 */
public final class LossTableBuilds extends RichAsyncFunction<TableRequest, BuiltTable> {
  private static final Logger LOG = LoggerFactory.getLogger(LossTableBuilds.class);
  // The study's background shape (Hurst 0.5, 100 ms bursts): the tag fixes r_bg and b, and the
  // builder calibrates the burst arrival rate to them.
  static final double HURST = 0.5;
  static final double MEAN_BURST_SECONDS = 0.1;

  private final CheetahConfig.Table cfg;
  private transient ExecutorService builds;
  private transient PointRunner runner;
  private transient Map<TableRequest, Future<?>> running;
  private transient volatile boolean closing;
  private transient Counter built;
  private transient Counter failed;

  public LossTableBuilds(CheetahConfig.Table cfg) {
    this.cfg = cfg;
  }

  /** How a table is simulated for a link of capacity C: the configured plan on C's port. */
  public static LossTableBuilder.Plan plan(CheetahConfig.Table t, double capacityBps) {
    return new LossTableBuilder.Plan(
        new PortConfig(capacityBps, t.bufferBytes(), t.bufferBytes()),
        HURST,
        MEAN_BURST_SECONDS,
        t.rateFractions().stream().map(f -> f * capacityBps).toList(),
        TcpCheetah.study(0, t.rttMs() / 1000, CongestionControl.HTCP),
        t.runs(),
        t.seed(),
        t.seconds(),
        t.seconds() / 10,
        t.binMs() / 1000.0);
  }

  @Override
  public void open(OpenContext context) {
    builds =
        Executors.newSingleThreadExecutor(
            r -> {
              Thread t = new Thread(r, "loss-table-builds");
              t.setDaemon(true);
              return t;
            });
    runner = new PointRunner(cfg.threads());
    running = new ConcurrentHashMap<>();
    built =
        getRuntimeContext()
            .getMetricGroup()
            .counter("lossTablesBuilt", new ThreadSafeSimpleCounter());
    failed =
        getRuntimeContext()
            .getMetricGroup()
            .counter("lossTableBuildsFailed", new ThreadSafeSimpleCounter());
  }

  @Override
  public void asyncInvoke(TableRequest request, ResultFuture<BuiltTable> result) {
    // Registered before it can run, so that a fast build always finds its own entry to remove.
    FutureTask<Void> task = new FutureTask<>(() -> complete(request, result), null);
    running.put(request, task);
    builds.execute(task);
  }

  private void complete(TableRequest request, ResultFuture<BuiltTable> result) {
    long begin = System.nanoTime();
    BuiltTable outcome;
    try {
      LossTable t =
          new LossTableBuilder(plan(cfg, request.capacityBps()), runner).build(request.tag());
      outcome = BuiltTable.of(request, t, elapsedMs(begin));
      built.inc();
      LOG.info(
          "built the loss table of {} for {} in {} ms",
          request.linkId(),
          request.tag(),
          outcome.buildMs());
    } catch (RuntimeException e) {
      if (closing || Thread.currentThread().isInterrupted()) {
        // Stopped: the checkpointed request is simulated again after a restore. Timed out:
        // timeout() has already answered it.
        return;
      }
      outcome = BuiltTable.failed(request, cfg.rttMs() / 1000, e.toString(), elapsedMs(begin));
      failed.inc();
      LOG.warn(
          "could not build the loss table of {} for {}: {}",
          request.linkId(),
          request.tag(),
          e.toString());
    } finally {
      running.remove(request);
    }
    result.complete(List.of(outcome));
  }

  @Override
  public void timeout(TableRequest request, ResultFuture<BuiltTable> result) {
    Future<?> f = running.remove(request);
    if (f != null) {
      f.cancel(true);
    }
    failed.inc();
    String why =
        "gave up after "
            + cfg.timeoutMs()
            + " ms (thresholds.table-timeout-ms); raise it, or make tables cheaper"
            + " (thresholds.table-runs, table-seconds, table-rates)";
    LOG.warn("loss table of {} for {}: {}", request.linkId(), request.tag(), why);
    result.complete(List.of(BuiltTable.failed(request, cfg.rttMs() / 1000, why, cfg.timeoutMs())));
  }

  @Override
  public void close() {
    closing = true;
    if (builds != null) {
      builds.shutdownNow();
    }
    if (runner != null) {
      runner.close();
    }
  }

  private static long elapsedMs(long beginNanos) {
    return (System.nanoTime() - beginNanos) / 1_000_000;
  }
}
