package net.cheetah.jobjar;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import net.cheetah.runtime.ChildProcess;
import net.cheetah.runtime.FreePorts;
import net.cheetah.runtime.Wait;

/**
 * A real Flink standalone session cluster on 127.0.0.1: a JobManager
 * (StandaloneSessionClusterEntrypoint, with the REST API and its jar submission) and one
 * TaskManager (TaskManagerRunner), each its own JVM on {@link #classpath()}: Flink and its logging
 * only (flink-jobs/job-jar's main dependencies), as a Flink distribution's lib/ would hold. Its
 * REST API is driven as any client would: upload a jar, run it, read jobs and checkpoints, cancel.
 */
final class SessionCluster implements AutoCloseable {
  static final ObjectMapper JSON = new ObjectMapper();

  private final Path conf;
  private final int restPort;
  private final List<ChildProcess> processes = new ArrayList<>();
  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

  /** The repository root (surefire sets cheetah.root). */
  static Path root() {
    String root = System.getProperty("cheetah.root");
    if (root == null || root.isBlank()) {
      throw new IllegalStateException("system property cheetah.root is not set (surefire sets it)");
    }
    return Path.of(root).toAbsolutePath().normalize();
  }

  /** The job jar as flink-jobs/build.sh builds it. */
  static Path jobJar() {
    Path jar = root().resolve("flink-jobs/jobs/target/cheetah-jobs.jar");
    if (!Files.isRegularFile(jar)) {
      throw new IllegalStateException(
          jar + " is missing: build it with flink-jobs/build.sh (or ./mvnw package)");
    }
    return jar;
  }

  /** Flink's own classpath, written by this module's build (maven-dependency-plugin). */
  static String classpath() throws IOException {
    Path file = root().resolve("flink-jobs/job-jar/target/flink-classpath.txt");
    if (!Files.isRegularFile(file)) {
      throw new IllegalStateException(
          file + " is missing: run ./mvnw verify -pl flink-jobs/job-jar");
    }
    return Files.readString(file).strip();
  }

  /** The java command with this JVM's --add-opens (Flink needs them on JDK 17). */
  static List<String> java(String heap) {
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.add("-Xmx" + heap);
    for (String arg : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
      if (arg.startsWith("--add-opens")) {
        cmd.add(arg);
      }
    }
    return cmd;
  }

  /**
   * Writes the configuration into {@code dir/conf} and starts the JobManager and a TaskManager with
   * {@code slots} slots; returns once the TaskManager has registered.
   */
  SessionCluster(Path dir, int slots) throws IOException {
    conf = dir.resolve("conf");
    Files.createDirectories(conf);
    Path logs = dir.resolve("logs");
    restPort = FreePorts.pick();
    Map<String, String> c = new java.util.LinkedHashMap<>();
    c.put("jobmanager.rpc.address", FreePorts.LOOPBACK);
    c.put("jobmanager.rpc.port", Integer.toString(FreePorts.pick()));
    c.put("jobmanager.bind-host", FreePorts.LOOPBACK);
    c.put("jobmanager.memory.process.size", "1024m");
    c.put("taskmanager.bind-host", FreePorts.LOOPBACK);
    c.put("taskmanager.host", FreePorts.LOOPBACK);
    c.put("taskmanager.numberOfTaskSlots", Integer.toString(slots));
    // What flink's bash scripts derive and pass to a TaskManager (BashJavaUtils): a TaskManager
    // started without them refuses to start. Heap and direct memory fit the JVM flags of start().
    c.put("taskmanager.cpu.cores", "2");
    c.put("taskmanager.memory.framework.heap.size", "128m");
    c.put("taskmanager.memory.framework.off-heap.size", "128m");
    c.put("taskmanager.memory.jvm-metaspace.size", "256m");
    c.put("taskmanager.memory.jvm-overhead.min", "192m");
    c.put("taskmanager.memory.jvm-overhead.max", "192m");
    c.put("taskmanager.memory.task.heap.size", "256m");
    c.put("taskmanager.memory.task.off-heap.size", "0m");
    c.put("taskmanager.memory.managed.size", "64m");
    c.put("taskmanager.memory.network.min", "64m");
    c.put("taskmanager.memory.network.max", "64m");
    c.put("rest.address", FreePorts.LOOPBACK);
    c.put("rest.bind-address", FreePorts.LOOPBACK);
    c.put("rest.port", Integer.toString(restPort));
    c.put("blob.server.port", Integer.toString(FreePorts.pick()));
    c.put("web.upload.dir", dir.resolve("upload").toString());
    c.put("io.tmp.dirs", dir.resolve("tmp").toString());
    c.put("metrics.fetcher.update-interval", "1000");
    StringBuilder yaml = new StringBuilder();
    c.forEach((k, v) -> yaml.append(k).append(": ").append(v).append('\n'));
    Files.writeString(conf.resolve("config.yaml"), yaml);
    Files.writeString(
        conf.resolve("log4j2.properties"),
        String.join(
            "\n",
            "rootLogger.level = INFO",
            "rootLogger.appenderRef.console.ref = console",
            "appender.console.type = Console",
            "appender.console.name = console",
            "appender.console.layout.type = PatternLayout",
            "appender.console.layout.pattern = %d{HH:mm:ss,SSS} %-5p %c{1} - %m%n",
            ""));
    Files.createDirectories(dir.resolve("upload"));
    Files.createDirectories(dir.resolve("tmp"));
    try {
      start(
          logs,
          "jobmanager",
          "org.apache.flink.runtime.entrypoint.StandaloneSessionClusterEntrypoint");
      start(logs, "taskmanager", "org.apache.flink.runtime.taskexecutor.TaskManagerRunner");
      Wait.until(
          "the TaskManager to register with the JobManager (" + restUrl() + ")",
          Duration.ofMinutes(4),
          Duration.ofMillis(500),
          () -> {
            processes.forEach(ChildProcess::checkAlive);
            return getOrEmpty("/overview").path("taskmanagers").asInt(0) == 1;
          });
    } catch (RuntimeException | IOException e) {
      close();
      throw e;
    }
  }

  private void start(Path logs, String name, String mainClass) throws IOException {
    List<String> cmd = java("512m");
    cmd.add("-XX:MaxDirectMemorySize=512m");
    cmd.add("-Dlog4j.configurationFile=" + conf.resolve("log4j2.properties").toUri());
    cmd.addAll(List.of("-cp", classpath(), mainClass, "--configDir", conf.toString()));
    ChildProcess p =
        new ChildProcess(
            ChildProcess.Config.of(name, logs, cmd).withStopTimeout(Duration.ofSeconds(20)));
    p.start();
    processes.add(p);
  }

  /** The directory holding config.yaml (FLINK_CONF_DIR for the flink CLI). */
  Path confDir() {
    return conf;
  }

  String restUrl() {
    return "http://" + FreePorts.LOOPBACK + ":" + restPort;
  }

  /** POST /jars/upload (multipart, as the web UI and curl -F do); returns the jar's id. */
  String upload(Path jar) throws IOException, InterruptedException {
    String boundary = "cheetah-" + UUID.randomUUID();
    byte[] head =
        ("--"
                + boundary
                + "\r\nContent-Disposition: form-data; name=\"jarfile\"; filename=\""
                + jar.getFileName()
                + "\"\r\nContent-Type: application/x-java-archive\r\n\r\n")
            .getBytes(StandardCharsets.UTF_8);
    byte[] tail = ("\r\n--" + boundary + "--\r\n").getBytes(StandardCharsets.UTF_8);
    HttpRequest request =
        HttpRequest.newBuilder(URI.create(restUrl() + "/jars/upload"))
            .timeout(Duration.ofMinutes(2))
            .header("Content-Type", "multipart/form-data; boundary=" + boundary)
            .POST(
                HttpRequest.BodyPublishers.concat(
                    HttpRequest.BodyPublishers.ofByteArray(head),
                    HttpRequest.BodyPublishers.ofFile(jar),
                    HttpRequest.BodyPublishers.ofByteArray(tail)))
            .build();
    JsonNode answer = send(request, 200);
    String file = answer.path("filename").asText();
    return file.substring(file.lastIndexOf('/') + 1);
  }

  /** POST /jars/:id/run with an entry class and program arguments; returns the answer. */
  HttpResponse<String> run(String jarId, List<String> args, String restoreFrom)
      throws IOException, InterruptedException {
    Map<String, Object> body = new java.util.LinkedHashMap<>();
    body.put("entryClass", "net.cheetah.jobs.JobMain");
    body.put("programArgsList", args);
    if (restoreFrom != null) {
      body.put("savepointPath", restoreFrom);
    }
    HttpRequest request =
        HttpRequest.newBuilder(URI.create(restUrl() + "/jars/" + jarId + "/run"))
            .timeout(Duration.ofMinutes(2))
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(body)))
            .build();
    return http.send(request, HttpResponse.BodyHandlers.ofString());
  }

  /** {@link #run} that must succeed; returns the job id. */
  String runJob(String jarId, List<String> args, String restoreFrom)
      throws IOException, InterruptedException {
    HttpResponse<String> r = run(jarId, args, restoreFrom);
    if (r.statusCode() != 200) {
      throw new AssertionError(
          "POST /jars/" + jarId + "/run answered " + r.statusCode() + ": " + r.body());
    }
    return JSON.readTree(r.body()).path("jobid").asText();
  }

  /** GET a REST path as JSON; fails on any status but 200. */
  JsonNode get(String path) throws IOException, InterruptedException {
    return send(HttpRequest.newBuilder(URI.create(restUrl() + path)).GET().build(), 200);
  }

  /** Cancels a job (PATCH /jobs/:id?mode=cancel). */
  void cancel(String jobId) throws IOException, InterruptedException {
    send(
        HttpRequest.newBuilder(URI.create(restUrl() + "/jobs/" + jobId + "?mode=cancel"))
            .method("PATCH", HttpRequest.BodyPublishers.noBody())
            .build(),
        202);
  }

  /** The job's state, e.g. RUNNING. */
  String state(String jobId) {
    return getOrEmpty("/jobs/" + jobId).path("state").asText("");
  }

  /** RUNNING, with every vertex running (sources are reading). */
  boolean running(String jobId) {
    JsonNode job = getOrEmpty("/jobs/" + jobId);
    if (!job.path("state").asText().equals("RUNNING") || job.path("vertices").isEmpty()) {
      return false;
    }
    for (JsonNode v : job.path("vertices")) {
      if (!v.path("status").asText().equals("RUNNING")) {
        return false;
      }
    }
    return true;
  }

  /** Each vertex of a job: name, records read and written, and its subtasks' watermarks. */
  String vertices(String jobId) {
    StringBuilder b = new StringBuilder();
    for (JsonNode v : getOrEmpty("/jobs/" + jobId).path("vertices")) {
      String id = v.path("id").asText();
      b.append("\n  ")
          .append(v.path("name").asText())
          .append(": read ")
          .append(v.path("metrics").path("read-records").asLong())
          .append(", wrote ")
          .append(v.path("metrics").path("write-records").asLong())
          .append(", watermarks ")
          .append(getOrEmpty("/jobs/" + jobId + "/vertices/" + id + "/watermarks"));
    }
    return b.toString();
  }

  /** GET /jobs/:id/checkpoints. */
  JsonNode checkpoints(String jobId) {
    return getOrEmpty("/jobs/" + jobId + "/checkpoints");
  }

  private JsonNode getOrEmpty(String path) {
    try {
      return get(path);
    } catch (IOException | AssertionError e) {
      return JSON.createObjectNode();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  private JsonNode send(HttpRequest request, int expected)
      throws IOException, InterruptedException {
    HttpResponse<String> r = http.send(request, HttpResponse.BodyHandlers.ofString());
    if (r.statusCode() != expected) {
      throw new AssertionError(
          request.method() + " " + request.uri() + " answered " + r.statusCode() + ": " + r.body());
    }
    return r.body().isEmpty() ? JSON.createObjectNode() : JSON.readTree(r.body());
  }

  /** Log tails of the cluster's processes, for failure messages. */
  String logs() {
    StringBuilder b = new StringBuilder();
    for (ChildProcess p : processes) {
      b.append("--- ").append(p.config().name()).append(" stdout\n");
      p.stdoutTail().forEach(l -> b.append(l).append('\n'));
      b.append("--- ").append(p.config().name()).append(" stderr\n");
      p.stderrTail().forEach(l -> b.append(l).append('\n'));
    }
    return b.toString();
  }

  /** Stops the TaskManager, then the JobManager, each by its PID. */
  @Override
  public void close() {
    for (int i = processes.size() - 1; i >= 0; i--) {
      processes.get(i).stop();
    }
    processes.clear();
  }
}
