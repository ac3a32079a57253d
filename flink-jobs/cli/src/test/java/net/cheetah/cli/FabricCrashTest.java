package net.cheetah.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import net.cheetah.cli.CrashRecoveryTest.Ready;
import net.cheetah.core.Topics;
import net.cheetah.jobs.FabricJob;
import net.cheetah.runtime.ChildProcess;
import net.cheetah.runtime.Wait;
import net.cheetah.schemas.v1.FabricLinkState;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;

/**
 * kill -9 of `cheetah up` running the fabric job (fabric.topology-file set) mid-stream, then `up`
 * again on the same data directory and ports: every round's link states on fabric.links.v1, a topic
 * written once by a transactional sink, are there once each, rows counted read committed.
 *
 * <p>The leaf-spine example and its second of counters and samples of FabricEndToEndTest, for
 * seconds 0-9 before the kill (0-4, then, once 2 rounds are committed, 5-9 and the kill at once:
 * the rounds those close are in flight) and 10-19 after it. A round ending at T runs once both
 * inputs have passed T + 0.5 s; the counters at the start of second 0 are the first baseline. So
 * the rounds ending at t0 + 1 s .. t0 + 18 s run (the counters at t0 + 19 s pass 18.5 s, not 19.5
 * s), each with a row per link of the fabric (4 cables and 2 host cables, both ways): 18 × 12 = 216
 * rows.
 */
@Tag("integration")
@Timeout(value = 15, unit = TimeUnit.MINUTES)
class FabricCrashTest {
  static final String TEST = "fabric-crash";
  static final int LINKS = 12;

  @TempDir(cleanup = CleanupMode.ON_SUCCESS)
  Path dir;

  @Test
  void killDashNineMidStreamThenUpAgainStoresEachRoundsLinksOnce() throws Exception {
    Tools tools = EndToEnd.tools();
    Path logs = Files.createDirectories(dir.resolve("logs"));
    Map<String, String> sets = new LinkedHashMap<>(FabricEndToEndTest.writeFabric(dir));
    sets.put("flink.checkpoint-interval-ms", "1000");
    sets.putAll(CrashRecoveryTest.upOnFreePorts(dir.resolve("data")));
    // Event time: whole seconds two minutes ago (the readers refuse times ahead of the record's).
    long t0 = (System.currentTimeMillis() / 1000) * 1000 - 120_000;
    long[] octets = new long[4];

    List<ProcessHandle> orphans;
    try (ChildProcess up = CrashRecoveryTest.up(tools, logs, "up-1", sets)) {
      Ready r = CrashRecoveryTest.ready(up);
      ProcessHandle jvm = ProcessHandle.of(up.pid()).orElseThrow();
      try (KafkaProducer<byte[], byte[]> producer = EndToEnd.producer(r.bootstrap())) {
        for (int s = 0; s < 5; s++) {
          FabricEndToEndTest.second(producer, t0, s, octets);
        }
        Wait.until(
            "2 rounds committed on " + Topics.FABRIC_LINKS,
            Duration.ofMinutes(5),
            () -> rowsPerRound(r.bootstrap()).size() >= 2);
        EndToEnd.say(TEST, "committed before seconds 5-9: " + rowsPerRound(r.bootstrap()));
        // Seconds 5-9 close the rounds ending at t0 + 4 .. 8 s.
        for (int s = 5; s < 10; s++) {
          FabricEndToEndTest.second(producer, t0, s, octets);
        }
        producer.flush();
      }
      // The kill comes once the job has written a round of those seconds, before or as soon as its
      // transaction commits: output exists that only the checkpoint protects.
      Wait.until(
          "the round ending at t0 + 5 s written on " + Topics.FABRIC_LINKS,
          Duration.ofMinutes(2),
          () -> rowsPerRound(r.bootstrap(), "read_uncommitted").containsKey(t0 + 5000));
      orphans = jvm.descendants().toList();
      jvm.destroyForcibly(); // SIGKILL
      up.awaitExit(Duration.ofSeconds(30));
    }
    Wait.until(
        "the children of the killed up to exit: " + orphans,
        Duration.ofSeconds(90),
        () -> orphans.stream().noneMatch(ProcessHandle::isAlive));

    try (ChildProcess up = CrashRecoveryTest.up(tools, logs, "up-2", sets)) {
      Ready r = CrashRecoveryTest.ready(up);
      assertThat(CrashRecoveryTest.stderr(up))
          .as("up-2 resumed the fabric job from a retained checkpoint")
          .contains("resuming " + FabricJob.NAME + " from checkpoint ");
      try (KafkaProducer<byte[], byte[]> producer = EndToEnd.producer(r.bootstrap())) {
        for (int s = 10; s < 20; s++) {
          FabricEndToEndTest.second(producer, t0, s, octets);
        }
      }
      Wait.until(
          "the round ending at t0 + 18 s committed on " + Topics.FABRIC_LINKS,
          Duration.ofMinutes(5),
          () -> rowsPerRound(r.bootstrap()).containsKey(t0 + 18_000));
      // A checkpoint after the job read every input record (its offsets are committed with the
      // checkpoint): whatever the rounds emit is committed by then; nothing may come twice.
      CrashRecoveryTest.awaitJobConsumed(r.bootstrap(), FabricJob.NAME, Topics.FLOWS);
      CrashRecoveryTest.awaitJobConsumed(r.bootstrap(), FabricJob.NAME, Topics.SNMP_COUNTERS);
      Map<Long, Long> expected = new TreeMap<>();
      for (long end = t0 + 1000; end <= t0 + 18_000; end += 1000) {
        expected.put(end, (long) LINKS);
      }
      assertThat(rowsPerRound(r.bootstrap())).isEqualTo(expected);
      up.stop();
    }
  }

  /** Rows of fabric.links.v1 read committed, per round end (rows, not distinct links). */
  private static Map<Long, Long> rowsPerRound(String bootstrap) {
    return rowsPerRound(bootstrap, "read_committed");
  }

  private static Map<Long, Long> rowsPerRound(String bootstrap, String isolation) {
    Map<Long, Long> rows = new TreeMap<>();
    for (ConsumerRecord<byte[], byte[]> r :
        EndToEnd.read(bootstrap, Topics.FABRIC_LINKS, isolation)) {
      try {
        rows.merge(FabricLinkState.parseFrom(r.value()).getRoundMs(), 1L, Long::sum);
      } catch (com.google.protobuf.InvalidProtocolBufferException e) {
        throw new AssertionError("undecodable link state on " + Topics.FABRIC_LINKS, e);
      }
    }
    return rows;
  }
}
