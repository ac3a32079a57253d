package net.cheetah.runtime;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;

/**
 * Reads a Flink cluster's REST API: job ids, per-vertex record counts, restarts and their causes,
 * for progress and health reports of the embedded cluster and of the local cluster `cheetah
 * analyze` runs; and drives a session cluster's ({@code ./cheetah cluster}): uploads a job jar,
 * runs its jobs, stops them with savepoints.
 */
public final class FlinkRest {
  private static final Duration CLIENT_TIMEOUT = Duration.ofSeconds(30);

  private final String restUrl;
  private final ObjectMapper json = new ObjectMapper();
  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  public FlinkRest(String restUrl) {
    this.restUrl = restUrl;
  }

  /** Ids of the jobs the cluster knows, running or ended. */
  public List<String> jobIds() {
    List<String> ids = new ArrayList<>();
    get("/jobs").path("jobs").forEach(j -> ids.add(j.path("id").asText()));
    return ids;
  }

  /** Per-vertex record counts of a job; empty before its vertices are known. */
  public List<EmbeddedFlink.VertexProgress> progress(String jobId) {
    List<EmbeddedFlink.VertexProgress> vertices = new ArrayList<>();
    for (JsonNode vertex : get("/jobs/" + jobId).path("vertices")) {
      JsonNode metrics = vertex.path("metrics");
      vertices.add(
          new EmbeddedFlink.VertexProgress(
              vertex.path("id").asText(),
              vertex.path("name").asText(),
              vertex.path("parallelism").asInt(),
              vertex.path("status").asText(),
              metrics.path("read-records").asLong(0),
              metrics.path("write-records").asLong(0)));
    }
    return vertices;
  }

  /** The job's state as the REST API shows it, e.g. RUNNING, RESTARTING, FAILED. */
  public String state(String jobId) {
    return get("/jobs/" + jobId).path("state").asText("");
  }

  /**
   * How often the job restarted: the larger of its {@code numRestarts} metric and what its
   * exception history shows. The metric lags (the REST API's metric fetcher refreshes it every few
   * seconds, and after a TaskManager's death it read 0 for a minute after the jobs had restarted on
   * a loaded machine), and stops being fetched once the job ended. In the history, every failure of
   * a running job restarted it, and every failure of an ended one except the last of a FAILED job
   * (at most the history's size, 16 failures, unless the metric saw more). Empty while the job runs
   * and neither has anything to say yet (the metric is first reported about a second after the
   * start).
   */
  public OptionalLong restarts(String jobId) {
    OptionalLong metric = OptionalLong.empty();
    for (JsonNode m : get("/jobs/" + jobId + "/metrics?get=numRestarts")) {
      if ("numRestarts".equals(m.path("id").asText()) && m.has("value")) {
        metric = OptionalLong.of(Long.parseLong(m.path("value").asText()));
      }
    }
    String state = state(jobId);
    long failures = failures(jobId).size();
    long fromHistory = state.equals("FAILED") ? Math.max(0, failures - 1) : failures;
    if (!ENDED.contains(state) && metric.isEmpty() && failures == 0) {
      return OptionalLong.empty();
    }
    return OptionalLong.of(Math.max(metric.orElse(0), fromHistory));
  }

  /** Globally terminal job states. */
  public static final java.util.Set<String> ENDED =
      java.util.Set.of("FAILED", "CANCELED", "FINISHED");

  /** A failure of a job: when, in which task (empty for a global failure), and why. */
  public record Failure(long timestampMs, String task, String cause) {}

  /**
   * The job's failures, newest first (its exception history): each failure that restarted the job,
   * and the one that failed it for good. The cause is the exception's first line, plus its root
   * cause's when it wraps one (Flink's "Recovery is suppressed by ..." wraps the task's).
   */
  public List<Failure> failures(String jobId) {
    List<Failure> failures = new ArrayList<>();
    for (JsonNode entry :
        get("/jobs/" + jobId + "/exceptions").path("exceptionHistory").path("entries")) {
      failures.add(
          new Failure(
              entry.path("timestamp").asLong(0),
              entry.path("taskName").asText(""),
              cause(entry.path("stacktrace").asText(entry.path("exceptionName").asText("")))));
    }
    return failures;
  }

  /** "first line", or "first line; root cause: last Caused by line" of a stack trace. */
  static String cause(String stacktrace) {
    List<String> lines = stacktrace.lines().toList();
    if (lines.isEmpty()) {
      return "(no exception reported)";
    }
    String first = lines.get(0).strip();
    String root = "";
    for (String line : lines) {
      if (line.startsWith("Caused by: ")) {
        root = line.substring("Caused by: ".length()).strip();
      }
    }
    return root.isEmpty() ? first : first + "; root cause: " + root;
  }

  /** A job the cluster knows: id, name and state (RUNNING, RESTARTING, FAILED, ...). */
  public record Job(String id, String name, String state) {}

  /** Every job the cluster knows, running or ended. */
  public List<Job> jobs() {
    List<Job> jobs = new ArrayList<>();
    get("/jobs/overview")
        .path("jobs")
        .forEach(
            j ->
                jobs.add(
                    new Job(
                        j.path("jid").asText(),
                        j.path("name").asText(),
                        j.path("state").asText())));
    return jobs;
  }

  /** Checkpoints the job has completed so far (0 before its first). */
  public long completedCheckpoints(String jobId) {
    return get("/jobs/" + jobId + "/checkpoints").path("counts").path("completed").asLong();
  }

  /** Resource ids of the TaskManagers registered with the cluster. */
  public List<String> taskManagers() {
    List<String> ids = new ArrayList<>();
    get("/taskmanagers").path("taskmanagers").forEach(t -> ids.add(t.path("id").asText()));
    return ids;
  }

  /** Resource ids of the TaskManagers that run a task of the job now. */
  public java.util.Set<String> taskManagersOf(String jobId) {
    java.util.Set<String> ids = new java.util.TreeSet<>();
    for (JsonNode vertex : get("/jobs/" + jobId).path("vertices")) {
      for (JsonNode tm :
          get("/jobs/" + jobId + "/vertices/" + vertex.path("id").asText() + "/taskmanagers")
              .path("taskmanagers")) {
        ids.add(tm.path("taskmanager-id").asText());
      }
    }
    return ids;
  }

  /** Uploads a job jar ({@code /jars/upload}); returns its id on the cluster. */
  public String uploadJar(java.nio.file.Path jar) throws IOException {
    String boundary = "cheetah-" + java.util.UUID.randomUUID();
    byte[] head =
        ("--"
                + boundary
                + "\r\nContent-Disposition: form-data; name=\"jarfile\"; filename=\""
                + jar.getFileName()
                + "\"\r\nContent-Type: application/x-java-archive\r\n\r\n")
            .getBytes(java.nio.charset.StandardCharsets.UTF_8);
    byte[] tail =
        ("\r\n--" + boundary + "--\r\n").getBytes(java.nio.charset.StandardCharsets.UTF_8);
    HttpRequest request =
        HttpRequest.newBuilder(URI.create(restUrl + "/jars/upload"))
            .timeout(Duration.ofMinutes(5))
            .header("Content-Type", "multipart/form-data; boundary=" + boundary)
            .POST(
                HttpRequest.BodyPublishers.concat(
                    HttpRequest.BodyPublishers.ofByteArray(head),
                    HttpRequest.BodyPublishers.ofFile(jar),
                    HttpRequest.BodyPublishers.ofByteArray(tail)))
            .build();
    JsonNode answer = send(request);
    String file = answer.path("filename").asText("");
    if (!"success".equals(answer.path("status").asText()) || file.isEmpty()) {
      throw new IllegalStateException("Flink refused the upload of " + jar + ": " + answer);
    }
    return file.substring(file.lastIndexOf('/') + 1);
  }

  /**
   * Runs the entry class of an uploaded jar ({@code /jars/:id/run}) with these arguments; returns
   * the id of the job it submitted. With a savepoint, the job starts from it.
   */
  public String runJar(
      String jarId,
      String entryClass,
      List<String> args,
      int parallelism,
      java.util.Optional<String> savepoint) {
    com.fasterxml.jackson.databind.node.ObjectNode body = json.createObjectNode();
    body.put("entryClass", entryClass);
    args.forEach(body.putArray("programArgsList")::add);
    body.put("parallelism", parallelism);
    savepoint.ifPresent(path -> body.put("savepointPath", path));
    JsonNode answer = post("/jars/" + jarId + "/run", body, Duration.ofMinutes(3));
    String id = answer.path("jobid").asText("");
    if (id.isEmpty()) {
      throw new IllegalStateException("Flink ran " + entryClass + " but named no job: " + answer);
    }
    return id;
  }

  /**
   * Stops a job with a savepoint in {@code directory} ({@code /jobs/:id/stop}), waiting for it;
   * returns the savepoint's location.
   */
  public String stopWithSavepoint(String jobId, String directory, Duration timeout) {
    com.fasterxml.jackson.databind.node.ObjectNode body = json.createObjectNode();
    body.put("targetDirectory", directory);
    body.put("drain", false);
    String trigger =
        post("/jobs/" + jobId + "/stop", body, CLIENT_TIMEOUT).path("request-id").asText();
    long deadline = System.nanoTime() + timeout.toNanos();
    while (System.nanoTime() < deadline) {
      JsonNode status = get("/jobs/" + jobId + "/savepoints/" + trigger);
      if ("COMPLETED".equals(status.path("status").path("id").asText())) {
        JsonNode op = status.path("operation");
        if (op.has("failure-cause")) {
          throw new IllegalStateException(
              "the savepoint of job "
                  + jobId
                  + " failed: "
                  + cause(
                      op.path("failure-cause")
                          .path("stack-trace")
                          .asText(op.path("failure-cause").toString())));
        }
        return op.path("location").asText();
      }
      try {
        Thread.sleep(250);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("Interrupted waiting for a savepoint", e);
      }
    }
    throw new IllegalStateException(
        "job " + jobId + " did not stop with a savepoint within " + Durations.describe(timeout));
  }

  private JsonNode post(String path, JsonNode body, Duration timeout) {
    return send(
        HttpRequest.newBuilder(URI.create(restUrl + path))
            .timeout(timeout)
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(body.toString()))
            .build());
  }

  private JsonNode send(HttpRequest request) {
    try {
      HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
      if (response.statusCode() / 100 != 2) {
        throw new IllegalStateException(
            "Flink REST "
                + request.method()
                + " "
                + request.uri()
                + " answered "
                + response.statusCode()
                + ": "
                + response.body());
      }
      return json.readTree(response.body());
    } catch (IOException e) {
      throw new IllegalStateException(
          "Flink REST " + request.uri() + " failed: " + e.getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("Interrupted calling " + request.uri(), e);
    }
  }

  JsonNode get(String path) {
    String url = restUrl + path;
    try {
      HttpResponse<String> response =
          http.send(
              HttpRequest.newBuilder(URI.create(url)).timeout(CLIENT_TIMEOUT).GET().build(),
              HttpResponse.BodyHandlers.ofString());
      if (response.statusCode() != 200) {
        throw new IllegalStateException(
            "Flink REST " + url + " answered " + response.statusCode() + ": " + response.body());
      }
      return json.readTree(response.body());
    } catch (IOException e) {
      throw new IllegalStateException("Flink REST " + url + " failed: " + e.getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("Interrupted calling " + url, e);
    }
  }
}
