package net.cheetah.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import net.cheetah.jobs.CheetahJob;
import net.cheetah.runtime.ChildProcess;
import net.cheetah.runtime.FreePorts;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;

/**
 * `cheetah up` does not wait forever on a broken pipeline: once one of its jobs ends by itself
 * (here cancelled through the REST API, as from the web UI; a job FAILED after its restart attempts
 * takes the same path, FlinkJobsTest), or one of its processes dies, it prints an ERROR naming what
 * ended, stops the rest, and exits 1. Runs `up` in a child JVM, as the user does.
 */
@Tag("integration")
@Timeout(value = 6, unit = TimeUnit.MINUTES)
class UpCommandTest {
  static final String TEST = "up";

  @TempDir(cleanup = CleanupMode.ON_SUCCESS)
  Path dir;

  @Test
  void upExitsOneWhenAJobEndsByItself() throws Exception {
    try (ChildProcess up = startUp()) {
      String ready = up.awaitLine(l -> l.contains("\"event\":\"ready\""), Duration.ofMinutes(3));
      String flink = new ObjectMapper().readTree(ready).path("flink_url").asText();
      EndToEnd.say(TEST, "ready; cancelling " + CheetahJob.NAME + " through " + flink);
      cancel(flink, CheetahJob.NAME);

      int rc = up.awaitExit(Duration.ofMinutes(2));
      String stderr = Files.readString(up.config().stderrLog());
      assertThat(stderr)
          .as("up's stderr")
          .contains("up: ERROR: Flink job " + CheetahJob.NAME + " CANCELED")
          .contains("up: stopping because the stack no longer delivers");
      assertThat(rc).as("up's exit code once a job ended by itself").isEqualTo(1);
    }
  }

  /**
   * A warehouse killed under a running `up` (as the OOM killer would) ends `up` with an ERROR and
   * exit 1: before, `up` ran on for hours without one, saying nothing, while nothing was stored.
   */
  @Test
  void upExitsOneWhenItsWarehouseIsKilled() throws Exception {
    try (ChildProcess up = startUp()) {
      up.awaitLine(l -> l.contains("\"event\":\"ready\""), Duration.ofMinutes(3));
      ProcessHandle warehouse =
          ProcessHandle.of(up.pid())
              .orElseThrow()
              .descendants()
              .filter(p -> p.info().commandLine().orElse("").contains("cheetah_warehouse"))
              .findFirst()
              .orElseThrow(() -> new AssertionError("no warehouse process under up " + up.pid()));
      EndToEnd.say(TEST, "ready; SIGKILL to the warehouse, PID " + warehouse.pid());
      assertThat(warehouse.destroyForcibly()).isTrue();

      int rc = up.awaitExit(Duration.ofMinutes(2));
      String stderr = Files.readString(up.config().stderrLog());
      assertThat(stderr)
          .as("up's stderr")
          .contains(
              "up: ERROR: the warehouse (PID "
                  + warehouse.pid()
                  + ") exited by itself with code 137 (signal 9)")
          .contains("up: stopping because the stack no longer delivers");
      assertThat(rc).as("up's exit code once its warehouse died").isEqualTo(1);
    }
  }

  /** `cheetah up` in a child JVM, as the user runs it, on free ports and its own data dir. */
  private ChildProcess startUp() throws Exception {
    Tools tools = EndToEnd.tools();
    Path logs = dir.resolve("logs");
    List<String> cmd =
        new ArrayList<>(
            List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString()));
    // Flink needs this JVM's --add-opens (surefire's argLine) in the child too.
    ManagementFactory.getRuntimeMXBean().getInputArguments().stream()
        .filter(a -> a.startsWith("--add-opens"))
        .forEach(cmd::add);
    cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), Main.class.getName(), "up"));
    Map<String, String> sets =
        Map.of(
            "kafka.port", Integer.toString(FreePorts.pick()),
            "kafka.controller-port", Integer.toString(FreePorts.pick()),
            "flink.rest-port", Integer.toString(FreePorts.pick()),
            "netflow.udp-port", Integer.toString(EndToEnd.freeUdpPort()),
            "netflow.sflow-udp-port", Integer.toString(EndToEnd.freeUdpPort()),
            "netflow.metrics-port", Integer.toString(FreePorts.pick()),
            "warehouse.http-port", Integer.toString(FreePorts.pick()),
            "data-dir", dir.resolve("data").toString());
    sets.forEach((k, v) -> cmd.addAll(List.of("--set", k + "=" + v)));
    return EndToEnd.child(
        logs,
        "cheetah-up",
        cmd,
        Map.of(
            "CHEETAH_HOME", tools.home().toString(),
            "CHEETAH_PYTHON", tools.python().toString(),
            "CHEETAH_GOFLOW2", tools.goflow2().toString()));
  }

  /** PATCH /jobs/ID?mode=cancel for the running job called {@code name}. */
  private static void cancel(String flink, String name) throws Exception {
    HttpClient http = HttpClient.newHttpClient();
    JsonNode overview =
        new ObjectMapper()
            .readTree(
                http.send(
                        HttpRequest.newBuilder(URI.create(flink + "/jobs/overview")).build(),
                        HttpResponse.BodyHandlers.ofString())
                    .body());
    String id = "";
    for (JsonNode j : overview.path("jobs")) {
      if (name.equals(j.path("name").asText()) && "RUNNING".equals(j.path("state").asText())) {
        id = j.path("jid").asText();
      }
    }
    assertThat(id).as("running job %s in %s", name, overview).isNotEmpty();
    HttpResponse<String> r =
        http.send(
            HttpRequest.newBuilder(URI.create(flink + "/jobs/" + id + "?mode=cancel"))
                .method("PATCH", HttpRequest.BodyPublishers.noBody())
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).as("cancel answer: %s", r.body()).isEqualTo(202);
  }
}
