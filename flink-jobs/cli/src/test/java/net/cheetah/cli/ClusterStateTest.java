package net.cheetah.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import net.cheetah.runtime.Wait;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The cluster's bookkeeping: a daemon outlives nothing it should not, is found again by PID and
 * start time only, and the state written to disk reads back as written.
 */
class ClusterStateTest {

  @Test
  void aDaemonIsFoundByPidAndStartTimeAndStoppedByPid(@TempDir Path dir) throws Exception {
    Path log = dir.resolve("logs/sleeper.log");
    Daemon.Handle h = Daemon.start(List.of("sh", "-c", "echo hello; exec sleep 60"), Map.of(), log);
    try {
      assertThat(h.alive()).isTrue();
      // Its own session: a Ctrl-C in the terminal of `cluster up` does not reach it.
      // Read here from /proc/PID/stat's sixth field, independently of Daemon.sessionId.
      String stat = Files.readString(Path.of("/proc/" + h.pid() + "/stat"));
      assertThat(stat.substring(stat.lastIndexOf(')') + 2).split(" ")[3])
          .isEqualTo(Long.toString(h.pid()));
      // A PID alone is not enough: the same PID with another start time is not this process.
      assertThat(new Daemon.Handle(h.pid(), "1970-01-01T00:00:00Z").alive()).isFalse();
      assertThat(new Daemon.Handle(h.pid(), "1970-01-01T00:00:00Z").stop(Duration.ofSeconds(1)))
          .isFalse();
      assertThat(h.alive()).isTrue();
      Wait.until(
          "the daemon's first line in its log",
          Duration.ofSeconds(10),
          () -> Daemon.lineAfter(log, 0, "hello"::equals).isPresent());
      assertThat(h.stop(Duration.ofSeconds(10))).as("stopped by SIGTERM, not killed").isFalse();
      assertThat(h.alive()).isFalse();
    } finally {
      h.kill();
    }
  }

  @Test
  void theStateReadsBackAsWritten(@TempDir Path dir) throws Exception {
    ClusterState s =
        ClusterState.create(
            dir,
            "127.0.0.1:1,127.0.0.1:2",
            "http://127.0.0.1:3",
            "",
            4,
            Map.of("kafka.security.protocol", "SASL_SSL"));
    ClusterState.Proc p =
        new ClusterState.Proc(
            "kafka-1",
            List.of("java", "-cp", "x", "kafka.Kafka", "a b.properties"),
            Map.of("K", "V"),
            dir.resolve("logs/kafka-1.log").toString(),
            Map.of("kafka", 1, "controller", 5),
            123,
            "2026-11-25T18:00:00Z");
    s.put(p);
    s.put(p.stopped()); // replaced in place, not added
    s.setWarehouseUrl("http://127.0.0.1:6");
    s.setJobs(Map.of("cheetah-normalize", "abc"));
    s.setSavepoints(Map.of("cheetah-normalize", "file:/sp"));

    ClusterState read = ClusterState.load(dir).orElseThrow();
    assertThat(read.processes()).containsExactly(p.stopped());
    assertThat(read.data().bootstrap()).isEqualTo("127.0.0.1:1,127.0.0.1:2");
    assertThat(read.data().warehouseUrl()).isEqualTo("http://127.0.0.1:6");
    assertThat(read.data().netflowPort()).isEqualTo(4);
    assertThat(read.data().jobs()).containsEntry("cheetah-normalize", "abc");
    assertThat(read.data().savepoints()).containsEntry("cheetah-normalize", "file:/sp");
    assertThat(read.processes().get(0).alive()).as("pid 0: stopped").isFalse();
    assertThat(read.data().kafkaSecurity())
        .as("kept across every change")
        .containsExactly(Map.entry("kafka.security.protocol", "SASL_SSL"));
  }

  @Test
  void aStateWrittenBeforeKafkaSecurityReadsAsWithout(@TempDir Path dir) throws Exception {
    java.nio.file.Files.writeString(
        ClusterState.file(dir),
        "{\"bootstrap\":\"127.0.0.1:1\",\"restUrl\":\"http://127.0.0.1:3\",\"warehouseUrl\":\"\","
            + "\"netflowPort\":4,\"processes\":[],\"jobs\":{},\"savepoints\":{}}");
    ClusterState read = ClusterState.load(dir).orElseThrow();
    assertThat(read.data().kafkaSecurity()).isEmpty();
    assertThat(read.data().clientSecurity("cheetah-admin")).isEmpty();
  }
}
