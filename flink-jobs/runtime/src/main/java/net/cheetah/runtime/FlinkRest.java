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

/**
 * Reads a Flink cluster's REST API: job ids and per-vertex record counts, for progress reports of
 * the embedded cluster and of the local cluster `cheetah analyze` runs.
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
