package net.cheetah.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import net.cheetah.config.CheetahConfig;
import net.cheetah.jobs.flink.JobEnvironment;
import net.cheetah.jobs.flink.RestartStrategy;
import net.cheetah.runtime.Component;
import net.cheetah.runtime.EmbeddedFlink;
import net.cheetah.runtime.JobWatch;
import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * The stack's Flink jobs on the embedded MiniCluster: submitted with exactly-once checkpoints and
 * the configured restart strategy (flink.restart-*; {@link RestartStrategy}), stopped with
 * savepoints, resumed from the newest state each left (its savepoint, or after a crash a newer
 * retained checkpoint: {@link ResumePoint}), and watched: every restart is reported as a warning
 * with its cause, and a job that ends by itself (FAILED once its attempts are used up) is reported
 * loudly and completes {@link #failure()}, so that nothing waits on a dead pipeline.
 */
final class FlinkJobs implements Component {
  /** A job {@link #start} submits: its name and what builds it on a fresh environment. */
  record Job(String name, Consumer<StreamExecutionEnvironment> build) {}

  private final CheetahConfig cfg;
  private final List<Job> pipeline;
  private final Path data;
  private final boolean freePorts;
  private final Consumer<String> say;
  private final Map<String, JobID> jobs = new LinkedHashMap<>(); // guarded by this
  private final CompletableFuture<String> failure = new CompletableFuture<>();
  private EmbeddedFlink flink;
  private JobWatch watch;

  /**
   * @param data the data directory (checkpoints and savepoints under {@code data/flink})
   * @param freePorts a free REST port instead of flink.rest-port
   */
  FlinkJobs(CheetahConfig cfg, Path data, boolean freePorts, Consumer<String> say) {
    this(cfg, data, freePorts, say, List.of());
  }

  /**
   * @param pipeline the jobs {@link #start} submits, in pipeline order (each after the ones it
   *     reads from), built when submitted
   */
  FlinkJobs(
      CheetahConfig cfg, Path data, boolean freePorts, Consumer<String> say, List<Job> pipeline) {
    this.cfg = cfg;
    this.pipeline = List.copyOf(pipeline);
    this.data = data.toAbsolutePath();
    this.freePorts = freePorts;
    this.say = say;
  }

  /**
   * Starts the MiniCluster (with the restart strategy for every job) and the watch, then submits
   * the pipeline's jobs and waits until they run.
   */
  @Override
  public void start() throws IOException {
    if (!pipeline.isEmpty()) {
      say.accept(
          "starting the Flink MiniCluster and the jobs ("
              + String.join("; ", pipeline.stream().map(Job::name).toList())
              + ")");
    }
    EmbeddedFlink.Config fc =
        EmbeddedFlink.Config.defaults(data)
            .withTaskSlots(cfg.flink().slots())
            .withOverrides(JobEnvironment.settings(cfg, data));
    flink =
        new EmbeddedFlink(freePorts ? fc.withFreePorts() : fc.withRestPort(cfg.flink().restPort()));
    flink.start();
    watch = new JobWatch(flink, Duration.ofSeconds(1), new Reporter());
    watch.start();
    for (Job job : pipeline) {
      submit(job.name(), job.build());
    }
    if (!pipeline.isEmpty()) {
      awaitRunning(Duration.ofSeconds(60));
      say.accept("Flink jobs running; dashboard " + flink.restUrl());
    }
  }

  /** The cluster is up and no job has ended by itself. */
  @Override
  public boolean running() {
    return flink != null && flink.isRunning() && !failure.isDone();
  }

  String restUrl() {
    return flink.restUrl();
  }

  /**
   * Builds a job on a fresh environment set up as on any cluster ({@link JobEnvironment}:
   * exactly-once checkpoints, retained checkpoints, parallelism, restart strategy), resumes it from
   * the newest savepoint or retained checkpoint it left ({@link #resumePoint}), submits and watches
   * it.
   */
  void submit(String name, Consumer<StreamExecutionEnvironment> build) throws IOException {
    StreamExecutionEnvironment env = flink.newEnvironment();
    JobEnvironment.configure(env, cfg, data);
    build.accept(env);
    Optional<EmbeddedFlink.SavepointRestore> restore = resumePoint(name);
    JobID id = flink.submit(env, name, restore);
    ResumePoint.recordRun(checkpoints(), name, id.toHexString());
    synchronized (this) {
      jobs.put(name, id);
    }
    watch.watch(name, id);
  }

  /**
   * The newest state the job left ({@link ResumePoint}): its last clean stop's savepoint, or a
   * checkpoint retained by a later run that crashed (kill -9, power loss), never an older one. Says
   * which, and what it passed over.
   */
  private Optional<EmbeddedFlink.SavepointRestore> resumePoint(String name) throws IOException {
    List<ResumePoint.Retained> found = ResumePoint.scan(checkpoints(), name, savepointMarker(name));
    Optional<ResumePoint.Retained> newest = ResumePoint.choose(found);
    if (newest.isEmpty()) {
      say.accept("starting " + name + " fresh: it left no checkpoint or savepoint");
      return Optional.empty();
    }
    List<String> older =
        found.stream().filter(r -> r != newest.get()).map(ResumePoint.Retained::describe).toList();
    ResumePoint.prune(checkpoints(), name, newest);
    say.accept(
        "resuming "
            + name
            + " from "
            + newest.get().describe()
            + (older.isEmpty() ? "" : "; older, not used: " + String.join(", ", older)));
    return Optional.of(EmbeddedFlink.SavepointRestore.of(newest.get().path()));
  }

  private Path checkpoints() {
    return flink.config().checkpointDirectory().toAbsolutePath();
  }

  /** Waits until every submitted job runs all its tasks. */
  void awaitRunning(Duration timeout) {
    for (JobID id : ids().values()) {
      flink.awaitRunning(id, timeout);
    }
  }

  /**
   * How often each job restarted, from the Flink REST API ({@code numRestarts}), by name. A
   * restarted job lost nothing (exactly-once), but something threw: 0 is the only healthy value.
   * Fails when a job's count is not reported (yet: about a second after its start).
   */
  Map<String, Long> restarts() {
    Map<String, Long> restarts = new TreeMap<>();
    for (Map.Entry<String, JobID> j : ids().entrySet()) {
      restarts.put(
          j.getKey(),
          flink
              .restarts(j.getValue())
              .orElseThrow(
                  () ->
                      new IllegalStateException(
                          "the Flink REST API reports no restart count (numRestarts) for job "
                              + j.getKey()
                              + " ("
                              + j.getValue()
                              + ") yet; ask again a second after the job started")));
    }
    return restarts;
  }

  /** The state of each job, by name (RUNNING while healthy). */
  Map<String, JobStatus> statuses() {
    Map<String, JobStatus> statuses = new TreeMap<>();
    ids().forEach((name, id) -> statuses.put(name, flink.status(id)));
    return statuses;
  }

  /**
   * Completes, with what to tell the user, once a job has ended by itself: FAILED after its restart
   * attempts (flink.restart-attempts) were used up, or cancelled from outside. The pipeline cannot
   * produce complete results after that: whoever waits on it should stop and exit non-zero.
   */
  CompletableFuture<String> failure() {
    return failure;
  }

  /**
   * Stops each running job with a savepoint, in submission order (pipeline order: each commits its
   * output before the next stops), and records it for the next {@link #submit}. A job that already
   * ended has no savepoint to take; it resumes from its previous one.
   */
  void stopWithSavepoints() throws IOException {
    for (Map.Entry<String, JobID> j : ids().entrySet()) {
      watch.forget(j.getKey());
      JobStatus status = flink.status(j.getValue());
      if (status.isGloballyTerminalState()) {
        say.accept("not stopping " + j.getKey() + ": it already ended " + status);
      } else {
        say.accept("stopping " + j.getKey() + " with a savepoint");
        Path dir = savepointMarker(j.getKey()).getParent();
        Files.createDirectories(dir);
        String path = flink.stopWithSavepoint(j.getValue(), Duration.ofSeconds(120));
        Files.writeString(savepointMarker(j.getKey()), path + "\n");
      }
      synchronized (this) {
        jobs.remove(j.getKey());
      }
    }
  }

  /** Stops the watch, then the cluster (running jobs end without a savepoint). */
  @Override
  public void stop() {
    if (watch != null) {
      watch.close();
      watch = null;
    }
    if (flink != null) {
      flink.close();
      flink = null;
    }
  }

  @Override
  public void close() {
    stop();
  }

  private synchronized Map<String, JobID> ids() {
    return new LinkedHashMap<>(jobs);
  }

  private Path savepointMarker(String job) {
    return data.resolve("flink").resolve("savepoints").resolve(job + ".latest");
  }

  /** A restart is a warning; a job's end is an error that fails the pipeline. */
  private final class Reporter implements JobWatch.Listener {
    @Override
    public void restarted(String job, long restarts, String cause) {
      say.accept(
          "warning: Flink job "
              + job
              + " restarted (restart "
              + restarts
              + " of at most "
              + cfg.flink().restarts().attempts()
              + " in a row): "
              + cause);
    }

    @Override
    public void ended(String job, JobStatus status, long restarts, String cause) {
      String message =
          "Flink job "
              + job
              + " "
              + status
              + (status == JobStatus.FAILED
                  ? " after "
                      + restarts
                      + " restart(s) (flink.restart-attempts = "
                      + cfg.flink().restarts().attempts()
                      + ")"
                  : "")
              + ": "
              + cause
              + ". The pipeline is broken: nothing passes this job any more. Details in the Flink"
              + " web UI "
              + flink.restUrl()
              + " and the logs in "
              + data.resolve("logs");
      say.accept("ERROR: " + message);
      failure.complete(message);
    }
  }
}
