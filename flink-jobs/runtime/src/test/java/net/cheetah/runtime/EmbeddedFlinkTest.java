package net.cheetah.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.api.common.serialization.SimpleStringSchema;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.connector.base.DeliveryGuarantee;
import org.apache.flink.connector.kafka.sink.KafkaRecordSerializationSchema;
import org.apache.flink.connector.kafka.sink.KafkaSink;
import org.apache.flink.connector.kafka.source.KafkaSource;
import org.apache.flink.connector.kafka.source.enumerator.initializer.OffsetsInitializer;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** One broker and one MiniCluster for the class, as in `cheetah up`. */
@Tag("integration")
class EmbeddedFlinkTest {

  private static final Duration TIMEOUT = Duration.ofSeconds(60);

  @TempDir static Path dataDirectory;
  private static EmbeddedKafka kafka;
  private static EmbeddedFlink flink;

  @BeforeAll
  static void start() throws IOException {
    kafka = new EmbeddedKafka(EmbeddedKafka.Config.defaults(dataDirectory).withPorts(0, 0));
    kafka.start();
    long rssBefore = ListeningSockets.residentMebibytes();
    flink = new EmbeddedFlink(EmbeddedFlink.Config.defaults(dataDirectory).withFreePorts());
    flink.start();
    System.out.printf(
        "embedded Flink: MiniCluster start %d ms, JVM RSS %d -> %d MiB (broker already running)%n",
        flink.startDuration().toMillis(), rssBefore, ListeningSockets.residentMebibytes());
  }

  @AfterAll
  static void stop() {
    if (flink != null) {
      flink.close();
    }
    if (kafka != null) {
      kafka.close();
    }
  }

  @Test
  void everyListeningSocketOfThisJvmIsOnLoopback() throws IOException {
    List<ListeningSockets.Listener> listeners = ListeningSockets.ofThisProcess();
    System.out.println("listening sockets of the test JVM: " + listeners);
    assertThat(listeners)
        .extracting(ListeningSockets.Listener::port)
        .contains(kafka.brokerPort(), kafka.controllerPort(), flink.restPort());
    assertThat(listeners).allSatisfy(l -> assertThat(l.address()).isEqualTo("127.0.0.1"));
    assertThat(flink.restUrl()).isEqualTo("http://127.0.0.1:" + flink.restPort());
  }

  @Test
  void runsABoundedJobToTheEnd() throws IOException {
    Path output = dataDirectory.resolve("bounded.txt");
    StreamExecutionEnvironment env = flink.newEnvironment();
    env.setParallelism(1);
    env.fromData(1, 2, 3, 4, 5).map(new Times10()).sinkTo(new LinesToFile(output.toString()));
    JobID job = flink.submit(env, "bounded");
    flink.awaitFinished(job, TIMEOUT);
    assertThat(Files.readAllLines(output)).containsExactly("10", "20", "30", "40", "50");
    assertThat(flink.status(job)).isEqualTo(JobStatus.FINISHED);
    assertThat(flink.jobs())
        .contains(new EmbeddedFlink.JobSummary(job, "bounded", JobStatus.FINISHED));
  }

  @Test
  void executeOnItsEnvironmentAlsoRunsOnThisCluster() throws Exception {
    Path output = dataDirectory.resolve("executed.txt");
    StreamExecutionEnvironment env = flink.newEnvironment();
    env.setParallelism(1);
    env.fromData(7).map(new Times10()).sinkTo(new LinesToFile(output.toString()));
    JobClient client = env.executeAsync("executed");
    flink.awaitFinished(client.getJobID(), TIMEOUT);
    assertThat(Files.readAllLines(output)).containsExactly("70");
    assertThat(flink.jobs()).extracting(EmbeddedFlink.JobSummary::name).contains("executed");
  }

  @Test
  void reportsAJobThatCannotRestore() {
    StreamExecutionEnvironment env = flink.newEnvironment();
    env.fromData(1)
        .map(new Times10())
        .sinkTo(new LinesToFile(dataDirectory.resolve("never").toString()));
    JobID job =
        flink.submit(
            env,
            "bad-restore",
            Optional.of(
                EmbeddedFlink.SavepointRestore.of(
                    dataDirectory.resolve("no-such-savepoint").toUri().toString())));
    assertThatThrownBy(() -> flink.awaitFinished(job, TIMEOUT))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("no-such-savepoint");
  }

  @Test
  void resumesFromSavepointsAndCheckpointsWithoutLossOrDuplicates() {
    String in = "savepoint.in";
    String out = "savepoint.out";
    kafka.createTopic(TopicSpec.of(in, 2));
    kafka.createTopic(TopicSpec.of(out, 1));
    String bootstrap = kafka.bootstrapServers();

    KafkaRecords.produce(bootstrap, in, values(0, 100));
    JobID first = flink.submit(copyJob(bootstrap, in, out), "copy");
    flink.awaitRunning(first, TIMEOUT);
    Wait.until(
        "the first 100 records to be committed",
        TIMEOUT,
        Duration.ofMillis(200),
        () -> KafkaRecords.readCommitted(bootstrap, out).size() >= 100);
    Wait.until(
        "the REST API to report the source's progress",
        TIMEOUT,
        Duration.ofMillis(200),
        () ->
            flink.progress(first).stream()
                .anyMatch(v -> v.name().contains("in") && v.recordsOut() >= 100));

    KafkaRecords.produce(bootstrap, in, values(100, 150)); // in flight while stopping
    String savepoint = flink.stopWithSavepoint(first, dataDirectory.resolve("savepoints"), TIMEOUT);
    assertThat(flink.status(first)).isEqualTo(JobStatus.FINISHED);
    assertThat(Path.of(java.net.URI.create(savepoint))).isDirectory();

    KafkaRecords.produce(bootstrap, in, values(150, 200)); // while nothing runs
    JobID second =
        flink.submit(
            copyJob(bootstrap, in, out),
            "copy",
            Optional.of(EmbeddedFlink.SavepointRestore.of(savepoint)));
    Wait.until(
        "all 200 records to be committed",
        TIMEOUT,
        Duration.ofMillis(200),
        () -> KafkaRecords.readCommitted(bootstrap, out).size() >= 200);

    // A crash, as far as the job can tell: cancel, then resume from the retained checkpoint.
    KafkaRecords.produce(bootstrap, in, values(200, 250));
    flink.cancel(second, TIMEOUT);
    String checkpoint = flink.latestCheckpoint(second).orElseThrow();
    assertThat(checkpoint).contains("/flink/checkpoints/" + second.toHexString() + "/chk-");
    JobID third =
        flink.submit(
            copyJob(bootstrap, in, out),
            "copy",
            Optional.of(EmbeddedFlink.SavepointRestore.of(checkpoint)));
    Wait.until(
        "all 250 records to be committed",
        TIMEOUT,
        Duration.ofMillis(200),
        () -> KafkaRecords.readCommitted(bootstrap, out).size() >= 250);
    // Stopping commits the last transaction; after it nothing more can appear.
    flink.stopWithSavepoint(third, TIMEOUT);

    List<String> committed = KafkaRecords.readCommitted(bootstrap, out);
    assertThat(committed)
        .hasSize(250)
        .containsExactlyInAnyOrderElementsOf(
            values(0, 250).stream().map(v -> v + "!").collect(Collectors.toList()));
  }

  private static StreamExecutionEnvironment copyJob(String bootstrap, String in, String out) {
    StreamExecutionEnvironment env = flink.newEnvironment();
    env.setParallelism(2);
    env.enableCheckpointing(300);
    KafkaSource<String> source =
        KafkaSource.<String>builder()
            .setBootstrapServers(bootstrap)
            .setTopics(in)
            .setGroupId("copy")
            .setStartingOffsets(OffsetsInitializer.earliest())
            .setValueOnlyDeserializer(new SimpleStringSchema())
            .build();
    KafkaSink<String> sink =
        KafkaSink.<String>builder()
            .setBootstrapServers(bootstrap)
            .setRecordSerializer(
                KafkaRecordSerializationSchema.builder()
                    .setTopic(out)
                    .setValueSerializationSchema(new SimpleStringSchema())
                    .build())
            .setDeliveryGuarantee(DeliveryGuarantee.EXACTLY_ONCE)
            .setTransactionalIdPrefix("copy")
            // the sink's default transaction.timeout.ms (1 h) must be allowed by the broker
            .build();
    env.fromSource(source, WatermarkStrategy.noWatermarks(), "in")
        .uid("in")
        .rebalance() // two vertices, so the REST API counts records between them
        .map(new Exclaim())
        .uid("exclaim")
        .sinkTo(sink)
        .uid("out");
    return env;
  }

  private static List<String> values(int from, int to) {
    return IntStream.range(from, to).mapToObj(i -> "r" + i).collect(Collectors.toList());
  }

  private static final class Times10 implements MapFunction<Integer, String> {
    @Override
    public String map(Integer value) {
      return String.valueOf(value * 10);
    }
  }

  private static final class Exclaim implements MapFunction<String, String> {
    @Override
    public String map(String value) {
      return value + "!";
    }
  }

  /** Appends each record as a line to a local file (run with parallelism 1). */
  private static final class LinesToFile implements Sink<String> {
    private final String path;

    LinesToFile(String path) {
      this.path = path;
    }

    @Override
    public SinkWriter<String> createWriter(WriterInitContext context) throws IOException {
      BufferedWriter writer =
          Files.newBufferedWriter(
              Path.of(path),
              StandardCharsets.UTF_8,
              StandardOpenOption.CREATE,
              StandardOpenOption.APPEND);
      return new SinkWriter<>() {
        @Override
        public void write(String element, Context ctx) throws IOException {
          writer.write(element);
          writer.newLine();
        }

        @Override
        public void flush(boolean endOfInput) throws IOException {
          writer.flush();
        }

        @Override
        public void close() throws IOException {
          writer.close();
        }
      };
    }
  }
}
