package net.cheetah.cli;

import static net.cheetah.runtime.Components.named;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import net.cheetah.config.CheetahConfig;
import net.cheetah.jobs.JobSettings;
import net.cheetah.jobs.StreamJob;
import net.cheetah.jobs.redirects.RedirectKeys;
import net.cheetah.runtime.Components;
import org.apache.flink.api.common.JobStatus;

/**
 * The embedded stack (docs/ARCHITECTURE.md, "Embedded"), composed of its components in dependency
 * order: the broker ({@link Broker}), the Flink jobs ({@link FlinkJobs}), the warehouse ({@link
 * Warehouse}) and the goflow2 collector ({@link Collector}); {@link #close} stops them in reverse,
 * also after a failed start. {@link #stopCleanly} stops input first, then takes job savepoints
 * (committing their output) and lets the warehouse catch up, so that the next start loses nothing.
 */
final class Stack implements AutoCloseable, RunningStack {
  private final CheetahConfig cfg;
  private final Path data;
  private final Consumer<String> say;
  private final Broker broker;
  private final FlinkJobs jobs;
  private final Warehouse warehouse;
  private final Collector collector;
  private final Components components;

  /**
   * @param freePorts pick free loopback ports instead of the configured ones (the demo)
   */
  Stack(CheetahConfig cfg, Tools tools, Path data, boolean freePorts, Consumer<String> say) {
    this.cfg = cfg;
    this.data = data.toAbsolutePath();
    this.say = say;
    broker = new Broker(cfg.kafka(), this.data, freePorts, say);
    jobs = new FlinkJobs(cfg, this.data, freePorts, say, pipeline());
    warehouse = new Warehouse(cfg.warehouse(), tools, this.data, freePorts, broker::bootstrap, say);
    Path logs = this.data.resolve("logs");
    collector = new Collector(cfg.netflow(), tools, logs, freePorts, broker::bootstrap, say);
    components =
        new Components(
            List.of(
                named("Kafka", broker),
                named("Flink", jobs),
                named("the warehouse", warehouse),
                named("goflow2", collector)),
            (name, e) -> say.accept("while stopping " + name + ": " + e.getMessage()));
    // Said when it happens, as FlinkJobs says a job's end: nobody may be waiting on failure().
    warehouse.endedByItself().thenAccept(m -> say.accept("ERROR: " + m));
    collector.endedByItself().thenAccept(m -> say.accept("ERROR: " + m));
  }

  /** Cheetah's jobs in pipeline order; each is built when submitted, once the broker runs. */
  private List<FlinkJobs.Job> pipeline() {
    return StreamJob.stack(cfg).stream()
        .map(job -> new FlinkJobs.Job(job.name(), env -> job.addTo(env, settings())))
        .toList();
  }

  private JobSettings settings() {
    try {
      redirectKeys(); // the redirect job's signing key, created on first start
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return new JobSettings(broker.bootstrap(), cfg, data);
  }

  /** Starts every component in order; on failure, stops the ones started and throws. */
  void start() throws Exception {
    Files.createDirectories(data.resolve("logs"));
    components.start();
  }

  /** Every component is up and no job has ended by itself. */
  boolean running() {
    return components.running();
  }

  /**
   * Stops input, then each job with a savepoint (in pipeline order, committing what it wrote), then
   * waits for the warehouse to store everything committed, then stops the rest.
   */
  void stopCleanly(Duration warehouseCatchUp) throws Exception {
    if (collector.running()) {
      say.accept("stopping goflow2 (flushing flows and refused datagrams to Kafka)");
    }
    collector.stop();
    jobs.stopWithSavepoints();
    if (warehouse.running()) {
      say.accept("waiting for the warehouse to store everything committed");
      long lag = warehouse.awaitCaughtUp(warehouseCatchUp);
      if (lag != 0) {
        say.accept(
            "warning: the warehouse had not confirmed "
                + (lag < 0 ? "its position" : lag + " committed records")
                + " after "
                + warehouseCatchUp.toSeconds()
                + " s; it resumes from its committed offsets at the next start");
      }
    }
    close();
  }

  /** Stops cleanly ({@link #stopCleanly}). */
  @Override
  public void finish(Duration warehouseCatchUp) throws Exception {
    stopCleanly(warehouseCatchUp);
  }

  /** Stops every component in reverse order (running jobs end without a savepoint). */
  @Override
  public void close() {
    components.stop();
  }

  /**
   * The redirect signing keys: redirects.keys-file, or DATA/keys/redirects.json, created with a
   * fresh random key the first time (docs/REDIRECTS.md; give adapters the same file).
   */
  Path redirectKeys() throws IOException {
    return redirectKeys(cfg, data, say);
  }

  /** {@link #redirectKeys()} of any stack (the cluster's jobs read the same file). */
  static Path redirectKeys(CheetahConfig cfg, Path data, Consumer<String> say) throws IOException {
    Path file = JobSettings.redirectKeysFile(cfg, data);
    if (cfg.redirects().keysFile().isBlank() && !Files.exists(file)) {
      RedirectKeys.create(file, "k" + LocalDate.now(ZoneOffset.UTC));
      say.accept("created redirect signing key " + file);
    }
    return file;
  }

  @Override
  public String bootstrap() {
    return broker.bootstrap();
  }

  @Override
  public String warehouseUrl() {
    return warehouse.url();
  }

  @Override
  public int netflowPort() {
    return collector.udpPort();
  }

  @Override
  public int sflowPort() {
    return collector.sflowPort();
  }

  @Override
  public String collectorMetricsUrl() {
    return collector.metricsUrl();
  }

  String flinkUrl() {
    return jobs.restUrl();
  }

  /** Datagrams goflow2 refused (each is on flows.rejected.v1, published by goflow2). */
  long rejectedDatagrams() {
    return collector.rejectedDatagrams();
  }

  /** See {@link Warehouse#awaitCaughtUp}. */
  @Override
  public long awaitWarehouseCaughtUp(Duration timeout) throws InterruptedException {
    return warehouse.awaitCaughtUp(timeout);
  }

  /**
   * How often each job restarted, by name (Flink's {@code numRestarts}); 0 is the only healthy
   * value. See {@link FlinkJobs#restarts}.
   */
  @Override
  public Map<String, Long> jobRestarts() {
    return jobs.restarts();
  }

  /** The state of each job, by name (RUNNING while healthy). */
  Map<String, JobStatus> jobStatuses() {
    return jobs.statuses();
  }

  /**
   * Completes, with what to tell the user, once a job has ended by itself (see {@link
   * FlinkJobs#failure}) or the warehouse or goflow2 exited without being asked to: whoever waits on
   * the stack should stop and exit non-zero, since the stack no longer delivers.
   */
  CompletableFuture<String> failure() {
    return CompletableFuture.anyOf(
            jobs.failure(), warehouse.endedByItself(), collector.endedByItself())
        .thenApply(String::valueOf);
  }

  /** Throws with the failure's description if a job or a process of this stack ended by itself. */
  @Override
  public void requireJobsRunning() {
    CompletableFuture<String> failure = failure();
    if (failure.isDone()) {
      throw new IllegalStateException(failure.join());
    }
  }
}
