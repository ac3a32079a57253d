package net.cheetah.runtime;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.configuration.BlobServerOptions;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.CoreOptions;
import org.apache.flink.configuration.DeploymentOptions;
import org.apache.flink.configuration.ExternalizedCheckpointRetention;
import org.apache.flink.configuration.JobManagerOptions;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.configuration.MetricOptions;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.configuration.TaskManagerOptions;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.runtime.client.JobStatusMessage;
import org.apache.flink.runtime.execution.ExecutionState;
import org.apache.flink.runtime.executiongraph.AccessExecutionGraph;
import org.apache.flink.runtime.executiongraph.AccessExecutionVertex;
import org.apache.flink.runtime.jobgraph.JobGraph;
import org.apache.flink.runtime.jobgraph.SavepointRestoreSettings;
import org.apache.flink.runtime.jobmaster.JobResult;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.minicluster.MiniClusterConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.graph.StreamGraph;
import org.apache.flink.util.SerializedThrowable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A Flink MiniCluster inside this JVM that runs several independent jobs, listening on 127.0.0.1
 * only, with checkpoints and savepoints under {@code <dataDirectory>/flink} unless its overrides
 * name other (local) directories.
 *
 * <p>Jobs are built on a {@link StreamExecutionEnvironment} (ideally from {@link
 * #newEnvironment()}) and handed to {@link #submit}, which compiles the StreamGraph to a JobGraph
 * and submits it to the MiniCluster. {@link #stopWithSavepoint} and a later {@code submit} with
 * {@link SavepointRestore} resume a job without loss; stateful operators need stable {@code uid}s
 * for that.
 */
public final class EmbeddedFlink implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(EmbeddedFlink.class);
  private static final Duration CLIENT_TIMEOUT = Duration.ofSeconds(30);

  /**
   * MiniCluster settings.
   *
   * @param dataDirectory the Cheetah data directory; Flink uses {@code <it>/flink}
   * @param restPort REST API and web UI port on 127.0.0.1 (0 = a free one)
   * @param blobServerPorts {@code blob.server.port}: a port, a range {@code "a-b"}, or "0"
   * @param taskSlots slots of the single TaskManager (every job's parallelism counts)
   * @param managedMemory managed memory of the TaskManager (RocksDB, batch operators)
   * @param metricsRefresh how old the REST API's job metrics may be ({@link #progress})
   * @param overrides Flink settings applied last; {@code execution.checkpointing.dir} and {@code
   *     execution.checkpointing.savepoint-dir}, when set, must be file: URIs and replace the
   *     directories under {@code <dataDirectory>/flink}
   */
  public record Config(
      Path dataDirectory,
      int restPort,
      String blobServerPorts,
      int taskSlots,
      MemorySize managedMemory,
      Duration metricsRefresh,
      Map<String, String> overrides) {

    /** Next to, not on, a real Flink's 8081. */
    public static final int DEFAULT_REST_PORT = 18081;

    public static final String DEFAULT_BLOB_SERVER_PORTS = "18082-18089";
    public static final int DEFAULT_TASK_SLOTS = 8;
    public static final MemorySize DEFAULT_MANAGED_MEMORY = MemorySize.parse("128m");

    public Config {
      if (taskSlots < 1) {
        throw new IllegalArgumentException("Flink task slots must be >= 1, got " + taskSlots);
      }
      if (restPort < 0 || restPort > 65535) {
        throw new IllegalArgumentException("Flink REST port " + restPort + " outside 0..65535");
      }
      overrides = Map.copyOf(overrides);
      localDirectory(overrides, CheckpointingOptions.CHECKPOINTS_DIRECTORY.key()); // fail early
      localDirectory(overrides, CheckpointingOptions.SAVEPOINT_DIRECTORY.key());
    }

    public static Config defaults(Path dataDirectory) {
      return new Config(
          dataDirectory,
          DEFAULT_REST_PORT,
          DEFAULT_BLOB_SERVER_PORTS,
          DEFAULT_TASK_SLOTS,
          DEFAULT_MANAGED_MEMORY,
          Duration.ofSeconds(1),
          Map.of());
    }

    /** REST and blob server on free ports (tests, several instances on one machine). */
    public Config withFreePorts() {
      return new Config(dataDirectory, 0, "0", taskSlots, managedMemory, metricsRefresh, overrides);
    }

    public Config withRestPort(int port) {
      return new Config(
          dataDirectory,
          port,
          blobServerPorts,
          taskSlots,
          managedMemory,
          metricsRefresh,
          overrides);
    }

    public Config withTaskSlots(int slots) {
      return new Config(
          dataDirectory,
          restPort,
          blobServerPorts,
          slots,
          managedMemory,
          metricsRefresh,
          overrides);
    }

    public Config withOverrides(Map<String, String> settings) {
      return new Config(
          dataDirectory,
          restPort,
          blobServerPorts,
          taskSlots,
          managedMemory,
          metricsRefresh,
          settings);
    }

    public Path flinkDirectory() {
      return dataDirectory.resolve("flink");
    }

    /**
     * Where jobs' checkpoints go: the override of execution.checkpointing.dir, or
     * flink/checkpoints.
     */
    public Path checkpointDirectory() {
      return localDirectory(overrides, CheckpointingOptions.CHECKPOINTS_DIRECTORY.key())
          .orElse(flinkDirectory().resolve("checkpoints"));
    }

    /**
     * Where savepoints go: the override of execution.checkpointing.savepoint-dir, or
     * flink/savepoints.
     */
    public Path savepointDirectory() {
      return localDirectory(overrides, CheckpointingOptions.SAVEPOINT_DIRECTORY.key())
          .orElse(flinkDirectory().resolve("savepoints"));
    }

    /** The directory an override names, if it names one: the MiniCluster's disk is local. */
    private static Optional<Path> localDirectory(Map<String, String> overrides, String key) {
      String value = overrides.getOrDefault(key, "").strip();
      if (value.isEmpty()) {
        return Optional.empty();
      }
      URI uri = URI.create(value);
      if (!"file".equals(uri.getScheme())) {
        throw new IllegalArgumentException(
            "The embedded Flink cluster keeps checkpoints and savepoints on this machine: "
                + key
                + " must be a file: URI (e.g. file:///var/lib/cheetah/checkpoints), got "
                + value
                + ". Remote storage (s3://) is for jobs on a cluster with its file system plugin.");
      }
      return Optional.of(Path.of(uri));
    }
  }

  /** Where a job resumes from; {@code allowNonRestoredState} skips state of removed operators. */
  public record SavepointRestore(String path, boolean allowNonRestoredState) {
    public static SavepointRestore of(String path) {
      return new SavepointRestore(path, false);
    }
  }

  /** A job known to the cluster. */
  public record JobSummary(JobID id, String name, JobStatus status) {}

  /**
   * Progress of one job vertex (a chain of operators), as the REST API reports it: records received
   * from and sent to other vertices, summed over subtasks. Chained operators exchange records
   * inside the vertex; those are not counted here.
   */
  public record VertexProgress(
      String id, String name, int parallelism, String status, long recordsIn, long recordsOut) {}

  private final Config config;
  private MiniCluster miniCluster; // guarded by this
  private URI restUri;
  private FlinkRest rest; // guarded by this
  private Duration startDuration = Duration.ZERO;

  /** Inert: nothing is written or bound until {@link #start()}. */
  public EmbeddedFlink(Config config) {
    this.config = config;
  }

  public Config config() {
    return config;
  }

  /** Starts the MiniCluster; fails, leaving nothing running, with what to do. */
  public synchronized void start() {
    if (miniCluster != null) {
      throw new IllegalStateException("The embedded Flink cluster is already running");
    }
    long begin = System.nanoTime();
    if (config.restPort() != 0) {
      FreePorts.requireFree(config.restPort(), "Flink REST API / web UI", "the Flink REST port");
    }
    Configuration configuration = clusterConfiguration();
    MiniCluster starting =
        new MiniCluster(
            new MiniClusterConfiguration.Builder()
                .setConfiguration(configuration)
                .setNumTaskManagers(1)
                .setNumSlotsPerTaskManager(config.taskSlots())
                .setCommonBindAddress(FreePorts.LOOPBACK)
                .build());
    try {
      starting.start();
      restUri = starting.getRestAddress().get(CLIENT_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
    } catch (Exception e) {
      closeQuietly(starting);
      throw new IllegalStateException(
          "The embedded Flink cluster did not start (REST port "
              + config.restPort()
              + ", blob ports "
              + config.blobServerPorts()
              + ", data "
              + config.flinkDirectory()
              + "): "
              + rootMessage(e)
              + ". If a port is taken, stop its owner or choose another (0 picks a free one).",
          e);
    }
    miniCluster = starting;
    rest = new FlinkRest(restUrl());
    startDuration = Duration.ofNanos(System.nanoTime() - begin);
    LOG.info("Embedded Flink ready in {}, web UI {}", Durations.describe(startDuration), restUrl());
  }

  /** The REST API and web UI, e.g. {@code http://127.0.0.1:18081}. */
  public synchronized String restUrl() {
    requireRunning();
    String url = restUri.toString();
    return url.endsWith("/") ? url.substring(0, url.length() - 1) : url;
  }

  public synchronized int restPort() {
    requireRunning();
    return restUri.getPort();
  }

  /** Wall time of the last {@link #start()}. */
  public synchronized Duration startDuration() {
    return startDuration;
  }

  public synchronized boolean isRunning() {
    return miniCluster != null;
  }

  /**
   * A fresh environment for one job. Use it with {@link #submit}; should a job call {@code
   * execute()} on it instead, it is submitted to this cluster through its REST API too, never to a
   * new local cluster.
   */
  public StreamExecutionEnvironment newEnvironment() {
    Configuration configuration = new Configuration();
    configuration.set(DeploymentOptions.TARGET, "remote");
    configuration.set(RestOptions.ADDRESS, FreePorts.LOOPBACK);
    configuration.set(RestOptions.PORT, restPort());
    // Keep the last checkpoint of a cancelled or failed job, so that after a crash the job can
    // resume from latestCheckpoint() (a clean stop uses stopWithSavepoint instead).
    configuration.set(
        CheckpointingOptions.EXTERNALIZED_CHECKPOINT_RETENTION,
        ExternalizedCheckpointRetention.RETAIN_ON_CANCELLATION);
    return new StreamExecutionEnvironment(configuration);
  }

  /**
   * The newest complete checkpoint a job left under {@link Config#checkpointDirectory()}, as a path
   * for {@link SavepointRestore}: how a job resumes after a crash or a cancel. Kept for jobs built
   * on {@link #newEnvironment()} that were cancelled or failed; a finished job's are deleted.
   */
  public Optional<String> latestCheckpoint(JobID jobId) {
    Path jobDirectory = config.checkpointDirectory().resolve(jobId.toHexString());
    if (!Files.isDirectory(jobDirectory)) {
      return Optional.empty();
    }
    try (java.util.stream.Stream<Path> entries = Files.list(jobDirectory)) {
      return entries
          .filter(dir -> dir.getFileName().toString().matches("chk-\\d+"))
          .filter(dir -> Files.isRegularFile(dir.resolve("_metadata")))
          .max(
              java.util.Comparator.comparingLong(
                  dir -> Long.parseLong(dir.getFileName().toString().substring(4))))
          .map(dir -> dir.toAbsolutePath().toUri().toString());
    } catch (IOException e) {
      throw new IllegalStateException(
          "Cannot list the checkpoints in " + jobDirectory + ": " + e.getMessage(), e);
    }
  }

  /**
   * Submits the job defined on {@code environment}; see {@link #submit(StreamExecutionEnvironment,
   * String, Optional)}.
   */
  public JobID submit(StreamExecutionEnvironment environment, String jobName) {
    return submit(environment, jobName, Optional.empty());
  }

  /**
   * Submits the job defined on {@code environment} under {@code jobName}, restoring from a
   * savepoint or retained checkpoint when given, and returns once the cluster has accepted it. The
   * environment's operators are consumed: build a new environment for the next job.
   */
  public JobID submit(
      StreamExecutionEnvironment environment,
      String jobName,
      Optional<SavepointRestore> restoreFrom) {
    MiniCluster cluster = running();
    JobGraph jobGraph;
    try {
      StreamGraph streamGraph = environment.getStreamGraph();
      streamGraph.setJobName(jobName);
      jobGraph = streamGraph.getJobGraph(Thread.currentThread().getContextClassLoader(), null);
    } catch (RuntimeException e) {
      throw new IllegalArgumentException(
          "Job " + jobName + " cannot be compiled: " + e.getMessage(), e);
    }
    restoreFrom.ifPresent(
        restore ->
            jobGraph.setSavepointRestoreSettings(
                SavepointRestoreSettings.forPath(restore.path(), restore.allowNonRestoredState())));
    JobID jobId =
        await(
                cluster.submitJob(jobGraph),
                "submitting job " + jobName,
                "Check the job's configuration and the cluster's free slots ("
                    + config.taskSlots()
                    + ").")
            .getJobID();
    LOG.info(
        "Submitted job {} as {}{}",
        jobName,
        jobId,
        restoreFrom.map(r -> ", restoring " + r.path()).orElse(""));
    return jobId;
  }

  /** The jobs the cluster knows, running or terminated. */
  public List<JobSummary> jobs() {
    List<JobSummary> jobs = new ArrayList<>();
    for (JobStatusMessage message :
        await(running().listJobs(), "listing jobs", "Is the cluster overloaded?")) {
      jobs.add(new JobSummary(message.getJobId(), message.getJobName(), message.getJobState()));
    }
    return jobs;
  }

  public JobStatus status(JobID jobId) {
    return await(running().getJobStatus(jobId), "reading the status of job " + jobId, "");
  }

  /** Waits until the job has at least started all its tasks. */
  public void awaitRunning(JobID jobId, Duration timeout) {
    Wait.until(
        "job " + jobId + " to run",
        timeout,
        Duration.ofMillis(50),
        () -> {
          JobStatus status = status(jobId);
          if (status.isGloballyTerminalState()) {
            throw new IllegalStateException(
                "Job " + jobId + " ended (" + status + ") instead of running" + failureOf(jobId));
          }
          return status == JobStatus.RUNNING && allTasksRunning(jobId);
        });
  }

  /**
   * Waits for the job to end and returns its result; {@link JobResult#isSuccess()} tells whether it
   * finished, {@link JobResult#getSerializedThrowable()} why it did not.
   */
  public JobResult awaitResult(JobID jobId, Duration timeout) {
    MiniCluster cluster = running();
    try {
      return cluster.requestJobResult(jobId).get(timeout.toNanos(), TimeUnit.NANOSECONDS);
    } catch (TimeoutException e) {
      throw new WaitTimeoutException(
          "Job " + jobId + " did not end within " + Durations.describe(timeout));
    } catch (ExecutionException e) {
      throw new IllegalStateException(
          "Reading the result of job " + jobId + " failed", e.getCause());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("Interrupted waiting for job " + jobId, e);
    }
  }

  /** Waits for the job to finish successfully; throws with the job's failure otherwise. */
  public void awaitFinished(JobID jobId, Duration timeout) {
    JobResult result = awaitResult(jobId, timeout);
    if (!result.isSuccess()) {
      throw new IllegalStateException(
          "Job " + jobId + " ended with " + result.getApplicationStatus() + failureOf(result),
          result.getSerializedThrowable().orElse(null));
    }
  }

  /**
   * Takes a savepoint into {@code directory} and stops the job without draining it (timers stay
   * pending, sources resume where they stopped). Returns the savepoint path to pass to {@link
   * #submit} with {@link SavepointRestore}. If this fails, the job keeps running.
   */
  public String stopWithSavepoint(JobID jobId, Path directory, Duration timeout) {
    MiniCluster cluster = running();
    long begin = System.nanoTime();
    String path;
    try {
      path =
          cluster
              .stopWithSavepoint(
                  jobId,
                  directory.toAbsolutePath().toUri().toString(),
                  false,
                  SavepointFormatType.CANONICAL)
              .get(timeout.toNanos(), TimeUnit.NANOSECONDS);
    } catch (TimeoutException e) {
      throw new IllegalStateException(
          "Job "
              + jobId
              + " did not complete a savepoint within "
              + Durations.describe(timeout)
              + "; it keeps running. Check for backpressure or a stuck sink, then retry or cancel.",
          e);
    } catch (ExecutionException e) {
      throw new IllegalStateException(
          "Stopping job "
              + jobId
              + " with a savepoint into "
              + directory
              + " failed: "
              + rootMessage(e)
              + ". The job keeps running; retry, or cancel it (losing its in-flight state).",
          e.getCause());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("Interrupted stopping job " + jobId, e);
    }
    long remaining = timeout.toNanos() - (System.nanoTime() - begin);
    awaitResult(jobId, Duration.ofNanos(Math.max(remaining, TimeUnit.SECONDS.toNanos(5))));
    LOG.info("Stopped job {} with savepoint {}", jobId, path);
    return path;
  }

  /** {@link #stopWithSavepoint(JobID, Path, Duration)} into the configured savepoint directory. */
  public String stopWithSavepoint(JobID jobId, Duration timeout) {
    return stopWithSavepoint(jobId, config.savepointDirectory(), timeout);
  }

  /** Cancels the job (no savepoint) and waits until it has ended. */
  public void cancel(JobID jobId, Duration timeout) {
    await(running().cancelJob(jobId), "cancelling job " + jobId, "");
    awaitResult(jobId, timeout);
  }

  /**
   * Per-vertex record counts of a running job, from the REST API (refreshed every {@link
   * Config#metricsRefresh()}). Empty before the job's vertices are known.
   */
  public List<VertexProgress> progress(JobID jobId) {
    return rest().progress(jobId.toHexString());
  }

  /**
   * How often the job restarted, from the REST API ({@link FlinkRest#restarts}): empty until the
   * count is first reported, about {@link Config#metricsRefresh()} after the job started.
   */
  public OptionalLong restarts(JobID jobId) {
    return rest().restarts(jobId.toHexString());
  }

  /** The job's state as the REST API shows it (cached there for a few seconds). */
  String shownState(JobID jobId) {
    return rest().state(jobId.toHexString());
  }

  /** The job's failures, newest first, with their causes (the REST API's exception history). */
  public List<FlinkRest.Failure> failures(JobID jobId) {
    return rest().failures(jobId.toHexString());
  }

  /**
   * A task or operator metric of one vertex summed over its subtasks, e.g. {@code numRecordsIn} or
   * {@code <operator>.numRecordsOut}; empty while the metric is not reported yet.
   */
  public OptionalLong vertexMetricSum(JobID jobId, String vertexId, String metric) {
    JsonNode values =
        getJson(
            "/jobs/"
                + jobId
                + "/vertices/"
                + vertexId
                + "/subtasks/metrics?get="
                + java.net.URLEncoder.encode(metric, StandardCharsets.UTF_8)
                + "&agg=sum");
    for (JsonNode value : values) {
      if (metric.equals(value.path("id").asText()) && value.has("sum")) {
        return OptionalLong.of((long) value.path("sum").asDouble());
      }
    }
    return OptionalLong.empty();
  }

  /**
   * Stops the cluster. Running jobs end without a savepoint: {@link #stopWithSavepoint} them first
   * to resume them later. Safe to call twice.
   */
  @Override
  public synchronized void close() {
    if (miniCluster == null) {
      return;
    }
    long begin = System.nanoTime();
    MiniCluster stopping = miniCluster;
    miniCluster = null;
    closeQuietly(stopping);
    LOG.info(
        "Embedded Flink stopped in {}",
        Durations.describe(Duration.ofNanos(System.nanoTime() - begin)));
  }

  private Configuration clusterConfiguration() {
    Configuration c = new Configuration();
    // Everything on loopback: a MiniCluster binds all interfaces otherwise
    // (docs/ENVIRONMENT.md, "Flink MiniCluster").
    c.set(JobManagerOptions.ADDRESS, FreePorts.LOOPBACK);
    c.set(JobManagerOptions.BIND_HOST, FreePorts.LOOPBACK);
    c.set(TaskManagerOptions.HOST, FreePorts.LOOPBACK);
    c.set(TaskManagerOptions.BIND_HOST, FreePorts.LOOPBACK);
    c.set(RestOptions.ADDRESS, FreePorts.LOOPBACK);
    c.set(RestOptions.BIND_ADDRESS, FreePorts.LOOPBACK);
    c.set(RestOptions.BIND_PORT, String.valueOf(config.restPort()));
    c.set(BlobServerOptions.PORT, config.blobServerPorts());
    c.set(TaskManagerOptions.NUM_TASK_SLOTS, config.taskSlots());
    c.set(TaskManagerOptions.MANAGED_MEMORY_SIZE, config.managedMemory());
    c.set(MetricOptions.METRIC_FETCHER_UPDATE_INTERVAL, config.metricsRefresh());
    Path flink = config.flinkDirectory().toAbsolutePath();
    Path tmp = flink.resolve("tmp");
    try {
      Files.createDirectories(tmp);
    } catch (IOException e) {
      throw new IllegalStateException(
          "Cannot create " + tmp + ": " + e.getMessage() + ". Check the data directory.", e);
    }
    c.set(CoreOptions.TMP_DIRS, tmp.toString());
    c.set(
        CheckpointingOptions.CHECKPOINTS_DIRECTORY,
        config.checkpointDirectory().toAbsolutePath().toUri().toString());
    c.set(
        CheckpointingOptions.SAVEPOINT_DIRECTORY,
        config.savepointDirectory().toAbsolutePath().toUri().toString());
    config.overrides().forEach(c::setString);
    return c;
  }

  private boolean allTasksRunning(JobID jobId) {
    AccessExecutionGraph graph;
    try {
      graph = running().getExecutionGraph(jobId).get(CLIENT_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("Interrupted reading job " + jobId, e);
    } catch (ExecutionException | TimeoutException e) {
      return false; // not known yet
    }
    boolean any = false;
    for (AccessExecutionVertex vertex : graph.getAllExecutionVertices()) {
      any = true;
      if (vertex.getExecutionState() != ExecutionState.RUNNING) {
        return false;
      }
    }
    return any;
  }

  private String failureOf(JobID jobId) {
    try {
      return failureOf(running().requestJobResult(jobId).get(5, TimeUnit.SECONDS));
    } catch (Exception e) {
      return "";
    }
  }

  private static String failureOf(JobResult result) {
    return result
        .getSerializedThrowable()
        .map(SerializedThrowable::getFullStringifiedStackTrace)
        .map(trace -> ": " + trace)
        .orElse("");
  }

  private synchronized FlinkRest rest() {
    running();
    return rest;
  }

  private JsonNode getJson(String path) {
    return rest().get(path);
  }

  private static <T> T await(CompletableFuture<T> future, String what, String advice) {
    try {
      return future.get(CLIENT_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      throw new IllegalStateException(
          what + " failed: " + rootMessage(e) + (advice.isEmpty() ? "" : ". " + advice),
          e.getCause());
    } catch (TimeoutException e) {
      throw new IllegalStateException(
          what + " got no answer within " + Durations.describe(CLIENT_TIMEOUT), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("Interrupted " + what, e);
    }
  }

  private static String rootMessage(Throwable e) {
    Throwable root = e;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    return root == e ? String.valueOf(e.getMessage()) : e.getMessage() + " (cause: " + root + ")";
  }

  private static void closeQuietly(MiniCluster cluster) {
    try {
      cluster.close();
    } catch (Exception e) {
      LOG.warn("Closing the Flink MiniCluster failed", e);
    }
  }

  private synchronized MiniCluster running() {
    requireRunning();
    return miniCluster;
  }

  private void requireRunning() {
    if (miniCluster == null) {
      throw new IllegalStateException("The embedded Flink cluster is not running: call start()");
    }
  }
}
