package net.cheetah.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Random;
import java.util.stream.Stream;
import net.cheetah.core.Topics;
import net.cheetah.runtime.ChildProcess;
import net.cheetah.runtime.Wait;
import net.cheetah.schemas.v1.FlowRecord;
import net.cheetah.schemas.v1.RejectedRecord;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * Corrupt nfcapd files and bad flow lines through `cheetah analyze` and `cheetah backfill`: an
 * archive nfdump cannot read whole (random bytes, a truncated file, a valid header followed by
 * garbage, an empty file) is named in a clear error and kept as a rejection (rejected.txt, or
 * flows.rejected.v1 for backfill), the command exits 1 after processing everything else, and the
 * good archive's flows are analysed or sent while its invalid lines are rejected with their reason.
 *
 * <p>The good archive is written by a real nfcapd from one NetFlow v5 datagram: three valid flows
 * and two that cannot be real (0 packets; 10 bytes per packet). nfdump 1.7.1 exits 0 on the first
 * kinds of damage and says so only on stderr (checked here through the commands).
 */
@Tag("integration")
class CorruptArchiveTest {
  static final String TEST = "corrupt-archive";

  @TempDir(cleanup = CleanupMode.ON_SUCCESS)
  Path dir;

  Path archive;
  List<Path> corrupt;
  long unixSecs;

  static final List<BadInputTest.V5Record> GOOD =
      List.of(
          BadInputTest.rec("192.0.2.1", 5001, 10, 15_000, -10_000, -5_000),
          BadInputTest.rec("192.0.2.2", 5002, 10, 15_000, -10_000, -5_000),
          BadInputTest.rec("192.0.2.3", 5003, 10, 15_000, -10_000, -5_000));
  static final BadInputTest.V5Record ZERO_PACKETS =
      BadInputTest.rec("192.0.2.4", 5004, 0, 1_000, -10_000, -5_000);
  static final BadInputTest.V5Record TOO_SMALL =
      BadInputTest.rec("192.0.2.5", 5005, 10, 100, -10_000, -5_000);

  @BeforeEach
  void archives() throws Exception {
    archive = dir.resolve("archive");
    Files.createDirectories(archive);
    Path good = capture();
    byte[] bytes = Files.readAllBytes(good);
    Random random = new Random(42);
    byte[] noise = new byte[bytes.length];
    random.nextBytes(noise);
    // nfdump 1.7's file header is 40 bytes (magic 0xA50C, version 2, then the appendix offset).
    byte[] headerThenGarbage = noise.clone();
    System.arraycopy(bytes, 0, headerThenGarbage, 0, 40);
    corrupt =
        List.of(
            write("nfcapd.202001010000", noise),
            write("nfcapd.202001010005", java.util.Arrays.copyOf(bytes, bytes.length / 2)),
            write("nfcapd.202001010010", headerThenGarbage),
            write("nfcapd.202001010015", new byte[0]));
  }

  @Test
  void analyzeNamesTheUnreadableArchivesAndAnalysesTheRest() throws Exception {
    Path out = dir.resolve("analyze");
    Captured run =
        run(
            "analyze",
            "--input",
            archive.toString(),
            "--out",
            out.toString(),
            "--set",
            "detection.h-bytes=5000");
    assertThat(run.rc()).as("exit status with unreadable archives; %s", run).isEqualTo(1);
    for (Path c : corrupt) {
      assertThat(run.err()).as("stderr names %s", c).contains("nfdump could not read " + c);
    }
    assertThat(run.out())
        .as("summary")
        .contains("5 archive(s) (4 unreadable), 5 flow records (2 rejected)");

    List<String> rejected = Files.readAllLines(out.resolve("rejected.txt"));
    List<String> archives =
        rejected.stream().filter(l -> l.startsWith("unreadable_archive: ")).toList();
    assertThat(archives).as("unreadable archives in rejected.txt").hasSize(4);
    for (Path c : corrupt) {
      assertThat(archives)
          .as("the line of %s", c)
          .filteredOn(l -> l.endsWith(" | " + c) && l.contains("nfdump could not read " + c))
          .hasSize(1);
    }
    List<String> lines =
        rejected.stream().filter(l -> !l.startsWith("unreadable_archive: ")).toList();
    assertThat(lines)
        .as("the two invalid flow lines, with their reason")
        .hasSize(2)
        .allSatisfy(l -> assertThat(l).startsWith("impossible_counts: "));
    assertThat(lines).anySatisfy(l -> assertThat(l).contains("192.0.2.4|"));
    assertThat(lines).anySatisfy(l -> assertThat(l).contains("192.0.2.5|"));

    // The three good flows, each over H = 5000 bytes in its interval: three cheetahs.
    List<String> cheetahs = Files.readAllLines(out.resolve("cheetahs.csv"));
    assertThat(cheetahs.subList(1, cheetahs.size()))
        .as("cheetahs.csv rows")
        .extracting(l -> l.split(",")[2])
        .containsExactlyInAnyOrder("5001", "5002", "5003");
  }

  @Test
  void backfillRejectsTheUnreadableArchivesAndSendsTheRest() throws Exception {
    Tools tools = EndToEnd.tools();
    try (Stack stack =
        new Stack(
            EndToEnd.config(Map.of()),
            tools,
            dir.resolve("stack"),
            true,
            s -> EndToEnd.say(TEST, s))) {
      stack.start();
      Captured run =
          run(
              "backfill",
              archive.toString(),
              "--set",
              "kafka.bootstrap=" + stack.bootstrap(),
              "--id",
              "corrupt-archive");
      assertThat(run.rc()).as("exit status with unreadable archives; %s", run).isEqualTo(1);
      for (Path c : corrupt) {
        assertThat(run.err()).as("stderr names %s", c).contains("nfdump could not read " + c);
      }
      assertThat(run.out())
          .as("summary: 3 flows sent; 2 lines and 4 archives rejected")
          .contains("backfill: 3 flow records sent to flows.v1, 6 rejected");

      List<FlowRecord> flows = new ArrayList<>();
      List<RejectedRecord> rejected = new ArrayList<>();
      read(stack.bootstrap(), flows, rejected, 3, 6);
      assertThat(flows)
          .extracting(FlowRecord::getSrcPort)
          .containsExactlyInAnyOrder(5001, 5002, 5003);
      assertThat(rejected)
          .filteredOn(r -> r.getReason().equals("unreadable_archive"))
          .extracting(RejectedRecord::getStage, RejectedRecord::getSourceTopic)
          .containsExactlyInAnyOrderElementsOf(
              corrupt.stream()
                  .map(c -> org.assertj.core.groups.Tuple.tuple("backfill", c.toString()))
                  .toList());
      assertThat(rejected)
          .filteredOn(r -> !r.getReason().equals("unreadable_archive"))
          .extracting(RejectedRecord::getReason)
          .containsExactly("impossible_counts", "impossible_counts");
      // The committed progress marks only the good archive as sent whole (-1): a run after a
      // repair reads the others again.
      Map<String, Long> progress =
          BackfillCommand.committedProgress(stack.bootstrap(), "corrupt-archive");
      assertThat(progress).hasSize(5);
      assertThat(progress.entrySet())
          .filteredOn(e -> e.getValue() == -1L)
          .extracting(Map.Entry::getKey)
          .allSatisfy(k -> assertThat(corrupt.stream().map(Path::toString)).doesNotContain(k))
          .hasSize(1);
    }
  }

  /** Reads flows.v1 and flows.rejected.v1 (committed only) until the counts are reached. */
  private static void read(
      String bootstrap,
      List<FlowRecord> flows,
      List<RejectedRecord> rejected,
      int wantFlows,
      int wantRejected) {
    Properties c = new Properties();
    c.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    c.put(ConsumerConfig.GROUP_ID_CONFIG, "corrupt-archive-reader");
    c.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    c.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    try (KafkaConsumer<byte[], byte[]> consumer =
        new KafkaConsumer<>(c, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      consumer.subscribe(List.of(Topics.FLOWS, Topics.REJECTED));
      java.util.function.Consumer<org.apache.kafka.clients.consumer.ConsumerRecord<byte[], byte[]>>
          take =
              r -> {
                try {
                  if (r.topic().equals(Topics.FLOWS)) {
                    flows.add(FlowRecord.parseFrom(r.value()));
                  } else {
                    rejected.add(RejectedRecord.parseFrom(r.value()));
                  }
                } catch (com.google.protobuf.InvalidProtocolBufferException e) {
                  throw new AssertionError("undecodable record on " + r.topic(), e);
                }
              };
      Wait.forValue(
          wantFlows + " flows and " + wantRejected + " rejections",
          Duration.ofMinutes(1),
          Duration.ofMillis(100),
          () -> {
            consumer.poll(Duration.ofMillis(200)).forEach(take);
            return flows.size() >= wantFlows && rejected.size() >= wantRejected
                ? Optional.of(true)
                : Optional.empty();
          });
      // Then nothing more: no duplicate, nothing extra.
      consumer.poll(Duration.ofSeconds(2)).forEach(take);
    }
    assertThat(flows).as("flows.v1 records").hasSize(wantFlows);
    assertThat(rejected).as("flows.rejected.v1 records").hasSize(wantRejected);
  }

  /** A command's exit status and what it printed. */
  record Captured(int rc, String out, String err) {}

  private static Captured run(String... args) {
    Object command = args[0].equals("analyze") ? new AnalyzeCommand() : new BackfillCommand();
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    PrintStream oldOut = System.out;
    PrintStream oldErr = System.err;
    int rc;
    try {
      System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
      System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
      rc = new CommandLine(command).execute(java.util.Arrays.copyOfRange(args, 1, args.length));
    } finally {
      System.setOut(oldOut);
      System.setErr(oldErr);
    }
    Captured c =
        new Captured(
            rc, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    EndToEnd.say(TEST, String.join(" ", args) + " -> " + rc + "\n" + c.out() + c.err());
    return c;
  }

  private Path write(String name, byte[] b) throws Exception {
    return Files.write(archive.resolve(name), b);
  }

  /** One v5 datagram through a real nfcapd; returns the file it wrote. */
  private Path capture() throws Exception {
    Path logs = dir.resolve("logs");
    int port = EndToEnd.freeUdpPort();
    Path nfcapd = EndToEnd.requireOnPath("nfcapd");
    unixSecs = System.currentTimeMillis() / 1000;
    List<BadInputTest.V5Record> records = new ArrayList<>(GOOD);
    records.add(ZERO_PACKETS);
    records.add(TOO_SMALL);
    try (ChildProcess capd = EndToEnd.nfcapd(logs, nfcapd, port, archive);
        DatagramSocket udp = new DatagramSocket(new InetSocketAddress(EndToEnd.LOOPBACK, 0))) {
      byte[] d = BadInputTest.v5(unixSecs, 1_000_000, records.size(), records);
      udp.send(new DatagramPacket(d, d.length, new InetSocketAddress(EndToEnd.LOOPBACK, port)));
      capd.awaitStderrLine(l -> l.contains("New exporter"), Duration.ofSeconds(30));
      capd.stop(); // SIGTERM: nfcapd writes its last block and renames nfcapd.current
    }
    try (Stream<Path> s = Files.list(archive)) {
      List<Path> files =
          s.filter(p -> p.getFileName().toString().matches("nfcapd\\.\\d{12}")).toList();
      assertThat(files).as("the file nfcapd wrote").hasSize(1);
      return files.get(0);
    }
  }
}
