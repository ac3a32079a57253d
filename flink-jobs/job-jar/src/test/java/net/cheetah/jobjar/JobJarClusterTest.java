package net.cheetah.jobjar;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.google.protobuf.ByteString;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import net.cheetah.core.Topics;
import net.cheetah.runtime.ChildProcess;
import net.cheetah.runtime.EmbeddedKafka;
import net.cheetah.runtime.FreePorts;
import net.cheetah.runtime.TopicLayout;
import net.cheetah.runtime.Wait;
import net.cheetah.schemas.goflow2.FlowMessage;
import net.cheetah.schemas.v1.CheetahEvent;
import net.cheetah.schemas.v1.CheetahEventType;
import net.cheetah.schemas.v1.FlowRecord;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;

/**
 * The job jar on a real Flink session cluster (a JobManager and a TaskManager JVM with Flink's
 * classpath only; {@link SessionCluster}) and a real broker: the jar is uploaded through the REST
 * API, the normalize job is run through {@code /jars/:id/run} and the cheetah job through {@code
 * flink run} (CliFrontend), both with {@code --job NAME --config FILE --set k=v}. A few goflow2
 * messages with a hand-computed outcome go in; the flows and the refused record come out on their
 * topics, each once, and the cheetah job finds the one cheetah among them. The normalize job
 * checkpoints into flink.checkpoint-dir, keeps its checkpoint when cancelled, and resumes from it
 * without re-emitting a flow; the cheetah job checkpoints into the same directory. Bad arguments
 * are refused with a clear error.
 */
@Tag("integration")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class JobJarClusterTest {
  static final Duration WAIT = Duration.ofMinutes(3);
  static final long DAY_MS = 86_400_000L;

  @TempDir(cleanup = CleanupMode.ON_SUCCESS)
  static Path dir;

  private EmbeddedKafka kafka;
  private SessionCluster flink;
  private Path checkpoints;
  private Path configFile;

  @BeforeAll
  void start() throws Exception {
    kafka =
        new EmbeddedKafka(
            EmbeddedKafka.Config.defaults(dir.resolve("kafka"))
                .withPorts(FreePorts.pick(), FreePorts.pick()));
    kafka.start();
    new TopicLayout(TopicLayout.Config.embedded()).createAll(kafka);
    flink = new SessionCluster(dir.resolve("flink"), 4);
    checkpoints = dir.resolve("checkpoints");
    configFile = dir.resolve("cheetah.properties");
    // H = 1000 B, G = 1 s, active timeout 1 s, out-of-orderness 1 s; after 1 s of silence event
    // time advances with the wall clock, so a flow ends a few seconds after the input stops.
    Files.writeString(
        configFile,
        String.join(
            "\n",
            "detection.h-bytes = 1000",
            "detection.gap-ms = 1000",
            "detection.active-timeout-ms = 1000",
            "detection.out-of-orderness-ms = 1000",
            "detection.idle-advance-ms = 1000",
            "flink.checkpoint-interval-ms = 500",
            "flink.checkpoint-dir = " + checkpoints.toUri(),
            "flink.savepoint-dir = " + dir.resolve("savepoints").toUri(),
            "data-dir = " + dir.resolve("data"),
            ""));
  }

  @AfterAll
  void stop() {
    if (flink != null) {
      flink.close();
    }
    if (kafka != null) {
      kafka.close();
    }
  }

  private List<String> args(String job) {
    return List.of(
        "--job",
        job,
        "--config",
        configFile.toString(),
        "--set",
        "kafka.bootstrap=" + kafka.bootstrapServers());
  }

  @Test
  void jobsFromTheJarGiveTheHandComputedResultsAndResumeFromTheirRetainedCheckpoint()
      throws Exception {
    long t0 = yesterdayAt(10 * 3_600_000L); // 10:00 UTC yesterday, a whole minute
    long uploadStart = System.nanoTime();
    String jarId = flink.upload(SessionCluster.jobJar());
    double uploadSeconds = (System.nanoTime() - uploadStart) / 1e9;

    long runStart = System.nanoTime();
    String normalize = flink.runJob(jarId, args("cheetah-normalize"), null);
    double runSeconds = (System.nanoTime() - runStart) / 1e9;
    String cheetahs = flinkRun("cheetah-cheetahs");
    System.err.printf(
        "[job-jar] %d MB jar: upload %.2f s, run (REST, normalize) %.2f s%n",
        Files.size(SessionCluster.jobJar()) >> 20, uploadSeconds, runSeconds);
    awaitRunning(normalize);
    awaitRunning(cheetahs);

    // Port 1: three 400 B records of 1 s each (the exporter's active timeout) in minute 0,
    // stitched (G = 1 s) into one 1200 B flow, a cheetah (1200 >= H in one I). Port 4: a 300 B
    // mouse. Then one record that is not a goflow2 message.
    List<byte[]> input = new ArrayList<>();
    input.add(goflow2(1, t0, t0 + 999, 400));
    input.add(goflow2(1, t0 + 1_000, t0 + 1_999, 400));
    input.add(goflow2(1, t0 + 2_000, t0 + 2_999, 400));
    input.add(goflow2(4, t0 + 1_000, t0 + 2_000, 300));
    input.add(new byte[] {(byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, 0x07, 1, 2});
    produce(input);

    awaitCount(Topics.FLOWS, 4);
    awaitCount(Topics.REJECTED, 1);
    List<FlowRecord> flows = new ArrayList<>();
    for (byte[] v : readCommitted(Topics.FLOWS)) {
      flows.add(FlowRecord.parseFrom(v));
    }
    assertThat(flows)
        .extracting(FlowRecord::getSrcPort, FlowRecord::getBytes, FlowRecord::getStartMs)
        .containsExactlyInAnyOrder(
            org.assertj.core.groups.Tuple.tuple(1, 400L, t0),
            org.assertj.core.groups.Tuple.tuple(1, 400L, t0 + 1_000),
            org.assertj.core.groups.Tuple.tuple(1, 400L, t0 + 2_000),
            org.assertj.core.groups.Tuple.tuple(4, 300L, t0 + 1_000));

    // The normalize job's checkpoints are in flink.checkpoint-dir, kept when it is cancelled.
    flink.cancel(normalize);
    Wait.until("normalize to be cancelled", WAIT, () -> flink.state(normalize).equals("CANCELED"));
    String chk = latestCheckpoint(normalize); // the newest when it was cancelled
    Path chkDir = Path.of(java.net.URI.create(chk));
    assertThat(chkDir.getParent()).isEqualTo(checkpoints.resolve(normalize));
    assertThat(chkDir.getFileName().toString()).matches("chk-\\d+");
    assertThat(chkDir.resolve("_metadata")).as("the retained checkpoint").isRegularFile();

    // Resumed from it: the 4 flows are not emitted again, a new one is emitted once.
    String resumed = flink.runJob(jarId, args("cheetah-normalize"), chk);
    awaitRunning(resumed);
    JsonNode restored =
        Wait.forValue(
            "the resumed job to report its restore",
            WAIT,
            Duration.ofMillis(500),
            () -> {
              JsonNode r = flink.checkpoints(resumed).path("latest").path("restored");
              return r.isMissingNode() || r.isNull()
                  ? java.util.Optional.empty()
                  : java.util.Optional.of(r);
            });
    assertThat(restored.path("external_path").asText()).isEqualTo(chk);
    produce(List.of(goflow2(7, t0 + 5_000, t0 + 6_000, 500)));
    awaitCount(Topics.FLOWS, 5);
    awaitCheckpointsAfter(resumed, 2); // anything doubled would be committed by now
    assertThat(readCommitted(Topics.FLOWS)).hasSize(5);
    assertThat(readCommitted(Topics.REJECTED)).hasSize(1);
    // The cheetah job, run with `flink run`, found the one cheetah by hand: port 1's 1200 B lie in
    // one interval I = 60 s (>= H = 1000 B): START when the third record crossed H, END once event
    // time passed its end + G + active timeout (with 20 s records and this 1 s timeout it would
    // be three 400 B flows: each record came after the flow before had ended); ports 4 (300 B)
    // and 7 (500 B) are mice.
    awaitCount(Topics.CHEETAHS, 2);
    awaitCheckpointsAfter(cheetahs, 2);
    List<CheetahEvent> events = new ArrayList<>();
    for (byte[] v : readCommitted(Topics.CHEETAHS)) {
      events.add(CheetahEvent.parseFrom(v));
    }
    assertThat(events)
        .extracting(
            CheetahEvent::getType,
            CheetahEvent::getSrcPort,
            CheetahEvent::getStartMs,
            CheetahEvent::getEndMs,
            CheetahEvent::getBytes,
            CheetahEvent::getRecords)
        .containsExactlyInAnyOrder(
            org.assertj.core.groups.Tuple.tuple(
                CheetahEventType.CHEETAH_EVENT_TYPE_START, 1, t0, t0 + 2_999, 1200L, 3),
            org.assertj.core.groups.Tuple.tuple(
                CheetahEventType.CHEETAH_EVENT_TYPE_END, 1, t0, t0 + 2_999, 1200L, 3));
    // The cheetah job, run with `flink run`, checkpoints into the same flink.checkpoint-dir. Read
    // once it is cancelled: while it runs, a checkpoint read as the newest may already be pruned
    // (two are retained, one every 500 ms) when its file is looked at.
    flink.cancel(cheetahs);
    Wait.until("cheetahs to be cancelled", WAIT, () -> flink.state(cheetahs).equals("CANCELED"));
    String cheetahChk = latestCheckpoint(cheetahs);
    assertThat(Path.of(java.net.URI.create(cheetahChk)).getParent())
        .isEqualTo(checkpoints.resolve(cheetahs));
    assertThat(Path.of(java.net.URI.create(cheetahChk)).resolve("_metadata")).isRegularFile();
  }

  @Test
  void badArgumentsAreRefusedWithAClearErrorAndANonZeroExit() throws Exception {
    assertRefused(
        List.of("--job", "no-such-job"), "unknown job 'no-such-job'; jobs: cheetah-normalize");
    assertRefused(List.of(), "--job NAME is required");
    assertRefused(
        List.of("--job", "cheetah-normalize", "--set", "flink.parallelism=0"), "flink.parallelism");
    assertRefused(
        List.of("--job", "cheetah-normalize", "--set", "no.such.key=1"),
        "unknown configuration key 'no.such.key'");
    assertRefused(List.of("--job", "cheetah-normalize"), "kafka.bootstrap is empty");
    assertRefused(List.of("--jobb", "x"), "Unknown options: '--jobb'");

    String help = javaJobMain(List.of("--help"), 0);
    assertThat(help)
        .contains("--job", "--config", "--set", "cheetah-normalize", "cheetah-redirects");

    // Through the REST API the same error comes back in the answer, and no job is started.
    String jarId = flink.upload(SessionCluster.jobJar());
    int before = flink.get("/jobs").path("jobs").size();
    HttpResponse<String> r = flink.run(jarId, List.of("--job", "no-such-job"), null);
    assertThat(r.statusCode()).isGreaterThanOrEqualTo(400);
    assertThat(r.body()).contains("unknown job 'no-such-job'");
    assertThat(flink.get("/jobs").path("jobs").size()).isEqualTo(before);
  }

  private void assertRefused(List<String> args, String message) throws Exception {
    String out = javaJobMain(args, 1);
    assertThat(out.lines().findFirst().orElse(""))
        .as("first line of the output for %s", args)
        .startsWith("cheetah-jobs: error: ")
        .contains(message);
  }

  /** Runs JobMain in a plain JVM on the cluster's classpath plus the jar; returns its output. */
  private String javaJobMain(List<String> args, int expectedExit) throws Exception {
    List<String> cmd = SessionCluster.java("256m");
    cmd.addAll(
        List.of(
            "-cp",
            SessionCluster.classpath() + ":" + SessionCluster.jobJar(),
            "net.cheetah.jobs.JobMain"));
    cmd.addAll(args);
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    String out =
        new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue())
        .as("exit code of JobMain %s; output:%n%s", args, out)
        .isEqualTo(expectedExit);
    return out;
  }

  /** `flink run -d JAR ARGS` (CliFrontend) against the session cluster; returns the job id. */
  private String flinkRun(String job) throws Exception {
    List<String> cmd = SessionCluster.java("256m");
    cmd.addAll(
        List.of(
            "-cp",
            SessionCluster.classpath(),
            "org.apache.flink.client.cli.CliFrontend",
            "run",
            "-d",
            SessionCluster.jobJar().toString()));
    cmd.addAll(args(job));
    ChildProcess cli =
        new ChildProcess(
            ChildProcess.Config.of("flink-run-" + job, dir.resolve("logs"), cmd)
                .withEnvironment(Map.of("FLINK_CONF_DIR", flink.confDir().toString())));
    cli.start();
    int exit = cli.awaitExit(WAIT);
    String out = String.join("\n", cli.stdoutTail()) + "\n" + String.join("\n", cli.stderrTail());
    assertThat(exit).as("flink run exit code; output:%n%s", out).isZero();
    Matcher m = Pattern.compile("Job has been submitted with JobID ([0-9a-f]{32})").matcher(out);
    assertThat(m.find()).as("flink run's output names the job:%n%s", out).isTrue();
    return m.group(1);
  }

  private void awaitRunning(String jobId) {
    try {
      Wait.until(
          "job " + jobId + " to run", WAIT, Duration.ofMillis(500), () -> flink.running(jobId));
    } catch (RuntimeException e) {
      throw new AssertionError(e.getMessage() + "\n" + flink.logs(), e);
    }
  }

  /** The newest completed checkpoint's path, once there is one. */
  private String latestCheckpoint(String jobId) {
    return Wait.forValue(
        "a completed checkpoint of " + jobId,
        WAIT,
        Duration.ofMillis(500),
        () -> {
          String p =
              flink
                  .checkpoints(jobId)
                  .path("latest")
                  .path("completed")
                  .path("external_path")
                  .asText("");
          return p.isEmpty() ? java.util.Optional.empty() : java.util.Optional.of(p);
        });
  }

  /** Waits until {@code n} more checkpoints of the job have completed. */
  private void awaitCheckpointsAfter(String jobId, int n) {
    long now = flink.checkpoints(jobId).path("counts").path("completed").asLong(0);
    Wait.until(
        n + " more checkpoints of " + jobId,
        WAIT,
        Duration.ofMillis(200),
        () -> flink.checkpoints(jobId).path("counts").path("completed").asLong(0) >= now + n);
  }

  private void awaitCount(String topic, int n) {
    try {
      Wait.until(
          n + " committed records on " + topic,
          WAIT,
          Duration.ofMillis(500),
          () -> readCommitted(topic).size() >= n);
    } catch (RuntimeException e) {
      throw new AssertionError(
          e.getMessage()
              + String.format(
                  "; %d committed, %d including uncommitted; flows.v1: %d committed",
                  readCommitted(topic).size(),
                  readAll(topic, "read_uncommitted").size(),
                  readCommitted(Topics.FLOWS).size()),
          e);
    }
  }

  /** A goflow2 message as goflow2 publishes it: one varint-delimited FlowMessage per record. */
  private static byte[] goflow2(int srcPort, long startMs, long endMs, long bytes)
      throws IOException {
    FlowMessage m =
        FlowMessage.newBuilder()
            .setType(FlowMessage.FlowType.NETFLOW_V9)
            .setSamplerAddress(ByteString.copyFrom(new byte[] {(byte) 192, 0, 2, 1}))
            .setTimeReceivedNs((endMs + 1_000) * 1_000_000)
            .setTimeFlowStartNs(startMs * 1_000_000)
            .setTimeFlowEndNs(endMs * 1_000_000)
            .setSrcAddr(ByteString.copyFrom(new byte[] {(byte) 198, 18, 1, 10}))
            .setDstAddr(ByteString.copyFrom(new byte[] {(byte) 198, 18, 2, 20}))
            .setEtype(0x0800)
            .setProto(6)
            .setSrcPort(srcPort)
            .setDstPort(2811)
            .setBytes(bytes)
            .setPackets(bytes / 100)
            .build();
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    m.writeDelimitedTo(out);
    return out.toByteArray();
  }

  private void produce(List<byte[]> values) throws Exception {
    Properties p = new Properties();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
    p.put(ProducerConfig.ACKS_CONFIG, "all");
    try (KafkaProducer<byte[], byte[]> producer =
        new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer())) {
      for (byte[] v : values) {
        producer.send(new ProducerRecord<>(Topics.GOFLOW2, v)).get();
      }
    }
  }

  /** Every committed record of a topic, from the beginning to its last stable offset. */
  private List<byte[]> readCommitted(String topic) {
    return readAll(topic, "read_committed");
  }

  private List<byte[]> readAll(String topic, String isolation) {
    Properties p = new Properties();
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
    p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, isolation);
    p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    List<byte[]> values = new ArrayList<>();
    try (KafkaConsumer<byte[], byte[]> c =
        new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      List<TopicPartition> parts = new ArrayList<>();
      for (PartitionInfo info : c.partitionsFor(topic, Duration.ofSeconds(10))) {
        parts.add(new TopicPartition(topic, info.partition()));
      }
      c.assign(parts);
      c.seekToBeginning(parts);
      Map<TopicPartition, Long> end = new HashMap<>(c.endOffsets(parts, Duration.ofSeconds(10)));
      long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      while (parts.stream().anyMatch(tp -> c.position(tp) < end.get(tp))) {
        if (System.nanoTime() > deadline) {
          throw new AssertionError("could not read " + topic + " to its end " + end);
        }
        for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(200))) {
          values.add(r.value());
        }
      }
    }
    return values;
  }

  private static long yesterdayAt(long msOfDay) {
    long today = LocalDate.now(ZoneOffset.UTC).toEpochDay() * DAY_MS;
    return today - DAY_MS + msOfDay;
  }
}
