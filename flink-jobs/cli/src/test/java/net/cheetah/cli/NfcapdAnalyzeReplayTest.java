package net.cheetah.cli;

import static net.cheetah.cli.StoredOnce.Result.CHEETAHS;
import static net.cheetah.cli.StoredOnce.Result.FLOWS;
import static net.cheetah.cli.StoredOnce.Result.FLOWSETS;
import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import net.cheetah.config.CheetahConfig;
import net.cheetah.runtime.ChildProcess;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * The archive path and the live path agree: the generator's NetFlow v9 workload (1:10 sampled) is
 * captured by a real nfcapd; `cheetah analyze` on that archive and the streaming stack fed by a
 * real nfreplay of the same archive must store the same cheetahs and flowsets (exact bytes and
 * times), and both must be the generator's truth.
 *
 * <p>Facts this relies on (nfdump 1.7.1, goflow2 v2.2.6), checked here: nfcapd does not apply the
 * sampling rate the generator announces in its v9 options record (it stores the raw 1:N counts and
 * `nfdump -E` lists no sampler), so it runs with {@code -s -10}, which scales every record by 10 at
 * capture; nfreplay sends stored times unchanged (no re-basing), but its v9 export carries them
 * only as IEs 152/153 (flowStart/EndMilliseconds), which goflow2 reads for IPFIX only: every v9
 * record would get the datagram's export time as start and end (nfreplay sets the v9 header's
 * unix_secs to the exporter's boot time and sysUptime to 0). nfreplay's v5 export carries exact ms
 * times (unix_secs/nsecs, sysUptime, First/Last) that goflow2 decodes, but v5 counters are 32 bits,
 * so the workload's active timeout (4 s) keeps every record under 2^32 bytes.
 */
@Tag("integration")
class NfcapdAnalyzeReplayTest {
  static final String TEST = "nfcapd";
  static final int SAMPLING = 10;

  /** The generator's definitions at their defaults (H = 1 GB, I = 60 s, τ = 10 s, G = 30 s). */
  static final Map<String, String> DETECTION =
      Map.of(
          "detection.active-timeout-ms", "4000",
          "detection.flowset-lateness-ms", "60000",
          "detection.idle-advance-ms", "2000");

  @TempDir(cleanup = CleanupMode.ON_SUCCESS)
  Path dir;

  @Test
  void analyzeOfTheArchiveEqualsTheStreamOfItsReplayAndTheTruth() throws Exception {
    run(5);
  }

  /**
   * The same with nfreplay's NetFlow v9, which times records with IEs 152/153. goflow2 v2.2.6 reads
   * those for IPFIX only (producer_nf.go, "case 10") and would store every record with start = end
   * = the datagram's header time; the collector maps them for v9 and the normaliser uses them.
   */
  @Test
  void sameWithNfreplayNetflowV9() throws Exception {
    run(9);
  }

  /**
   * `cheetah backfill` of the archive into a stack, killed (SIGKILL) after its first committed
   * batch and run again: it resumes after the batches it committed, every record is stored exactly
   * once (the killed run's open transaction stays invisible), and the results equal the truth.
   */
  @Test
  void backfillKilledAndResumedStoresEachRecordOnceAndMatchesTheTruth() throws Exception {
    Tools tools = EndToEnd.tools();
    Path logs = dir.resolve("logs");
    Path truth = dir.resolve("truth");
    Path archive = dir.resolve("archive");
    Files.createDirectories(archive);
    capture(tools, EndToEnd.requireOnPath("nfcapd"), logs, truth, archive);
    long records = Long.parseLong(totals(truth, "records"));
    String id = "replay";
    Map<String, String> sets = new java.util.LinkedHashMap<>(DETECTION);
    CheetahConfig cfg = EndToEnd.config(sets);
    try (Stack stack =
        new Stack(cfg, tools, dir.resolve("stack"), true, s -> EndToEnd.say(TEST, s))) {
      stack.start();
      EndToEnd.stopMerges(stack, tools);
      List<String> args =
          List.of(
              "backfill",
              archive.toString(),
              "--set",
              "kafka.bootstrap=" + stack.bootstrap(),
              "--id",
              id,
              "--batch",
              "500");
      // First run in a child JVM, paced so that it is still sending when killed.
      List<String> java =
          new ArrayList<>(
              List.of(
                  Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                  "-cp",
                  System.getProperty("java.class.path"),
                  Main.class.getName()));
      java.addAll(args);
      java.addAll(List.of("--rate", "1500"));
      try (ChildProcess first =
          EndToEnd.child(logs, "backfill-killed", java, Map.of("CHEETAH_NFDUMP", "nfdump"))) {
        net.cheetah.runtime.Wait.until(
            "the first backfill to commit a batch",
            Duration.ofMinutes(2),
            Duration.ofMillis(200),
            () -> !readProgress(stack.bootstrap(), id).isEmpty());
        ProcessHandle.of(first.pid()).ifPresent(ProcessHandle::destroyForcibly); // SIGKILL
        first.awaitExit(Duration.ofSeconds(30));
      }
      long sentBeforeKill = readProgress(stack.bootstrap(), id).values().iterator().next();
      assertThat(sentBeforeKill)
          .as("records committed before the kill")
          .isBetween(500L, records - 1);
      // Second run, in this JVM, to the end.
      int rc =
          new CommandLine(new BackfillCommand())
              .execute(args.subList(1, args.size()).toArray(String[]::new));
      assertThat(rc).as("resumed backfill exit code").isZero();
      assertThat(readProgress(stack.bootstrap(), id).values())
          .as("every archive marked done")
          .containsOnly(-1L);
      EndToEnd.Progress p =
          EndToEnd.awaitStored(
              stack,
              tools,
              records,
              EndToEnd.dataRows(truth.resolve("cheetahs.csv")),
              EndToEnd.dataRows(truth.resolve("flowsets.csv")),
              Duration.ofMinutes(3));
      WarehouseClient wh = new WarehouseClient(stack.warehouseUrl());
      assertThat(p.flows())
          .as("flow records stored of %d in the archive", records)
          .isEqualTo(records);
      assertThat(
              wh.count(
                  "SELECT uniqExact(exporter, src_addr, dst_addr, src_port, dst_port, proto, start_at)"
                      + " FROM flows"))
          .as("distinct flow records")
          .isEqualTo(records);
      assertTruth(
          TruthCheck.read(truth.resolve("cheetahs.csv")),
          EndToEnd.csv(tools, wh, "demo_cheetahs.sql"),
          TruthCheck.read(truth.resolve("flowsets.csv")),
          EndToEnd.csv(tools, wh, "demo_flowsets.sql"),
          "backfill");
      EndToEnd.assertStoredOnce(stack, tools, FLOWS, CHEETAHS, FLOWSETS);
      // The backfill was killed, not a Flink job: none of them may have restarted.
      EndToEnd.assertNoRestarts(stack);
    }
  }

  private static Map<String, Long> readProgress(String bootstrap, String id) {
    return BackfillCommand.committedProgress(bootstrap, id);
  }

  private void run(int replayVersion) throws Exception {
    long t0 = System.nanoTime();
    Tools tools = EndToEnd.tools();
    Path nfcapd = EndToEnd.requireOnPath("nfcapd");
    Path nfreplay = EndToEnd.requireOnPath("nfreplay");
    Path logs = dir.resolve("logs");
    Path truth = dir.resolve("truth");
    Path archive = dir.resolve("archive");
    Files.createDirectories(archive);

    List<Path> files = capture(tools, nfcapd, logs, truth, archive);
    long records = Long.parseLong(totals(truth, "records"));
    if (replayVersion == 5) {
      String big =
          EndToEnd.run(
              logs,
              "nfdump-big",
              List.of(
                  "nfdump",
                  "-R",
                  archive.toString(),
                  "-q",
                  "-N",
                  "-o",
                  "fmt:%ibyt",
                  "bytes > 4294967295"),
              Map.of(),
              Duration.ofMinutes(1));
      assertThat(big.lines().filter(l -> l.strip().matches("\\d+")).toList())
          .as("records too big for NetFlow v5's 32-bit counters")
          .isEmpty();
    }
    EndToEnd.say(
        TEST, String.format("captured %d records in %s (%.1f s)", records, files, secs(t0)));

    // 2. `cheetah analyze` on the archive.
    Path analyzed = dir.resolve("analyze");
    List<String> args =
        new ArrayList<>(List.of("--input", archive.toString(), "--out", analyzed.toString()));
    DETECTION.forEach((k, v) -> args.addAll(List.of("--set", k + "=" + v)));
    int rc = new CommandLine(new AnalyzeCommand()).execute(args.toArray(String[]::new));
    assertThat(rc).as("cheetah analyze exit code").isZero();
    assertThat(analyzed.resolve("rejected.txt")).as("analyze rejected lines").doesNotExist();
    List<String> anCheetahs = Files.readAllLines(analyzed.resolve("cheetahs.csv"));
    List<String> anFlowsets = Files.readAllLines(analyzed.resolve("flowsets.csv"));
    List<String> truthCheetahs = TruthCheck.read(truth.resolve("cheetahs.csv"));
    List<String> truthFlowsets = TruthCheck.read(truth.resolve("flowsets.csv"));
    assertTruth(truthCheetahs, anCheetahs, truthFlowsets, anFlowsets, "analyze");
    EndToEnd.say(TEST, String.format("analyze matched the truth (%.1f s)", secs(t0)));

    // 3. nfreplay of the archive into a fresh stack.
    CheetahConfig cfg = EndToEnd.config(DETECTION);
    try (Stack stack =
        new Stack(cfg, tools, dir.resolve("stack"), true, s -> EndToEnd.say(TEST, s))) {
      stack.start();
      EndToEnd.stopMerges(stack, tools);
      for (Path f : files) {
        EndToEnd.run(
            logs,
            "nfreplay",
            List.of(
                nfreplay.toString(),
                "-r",
                f.toString(),
                "-H",
                EndToEnd.LOOPBACK,
                "-p",
                Integer.toString(stack.netflowPort()),
                "-v",
                Integer.toString(replayVersion),
                "-d",
                "200"),
            Map.of(),
            Duration.ofMinutes(2));
      }
      EndToEnd.Progress p =
          EndToEnd.awaitStored(
              stack,
              tools,
              records,
              EndToEnd.dataRows(truth.resolve("cheetahs.csv")),
              EndToEnd.dataRows(truth.resolve("flowsets.csv")),
              Duration.ofMinutes(3));
      assertThat(p.flows()).as("flow records stored of %d replayed", records).isEqualTo(records);
      assertThat(p.rejected()).as("rejected records").isZero();
      WarehouseClient wh = new WarehouseClient(stack.warehouseUrl());
      List<String> stCheetahs = EndToEnd.csv(tools, wh, "demo_cheetahs.sql");
      List<String> stFlowsets = EndToEnd.csv(tools, wh, "demo_flowsets.sql");
      assertTruth(truthCheetahs, stCheetahs, truthFlowsets, stFlowsets, "stream");
      // The two paths agree on every column, the peak interval and the rate included.
      assertThat(rows(stCheetahs)).as("stored cheetahs vs analyze").isEqualTo(rows(anCheetahs));
      assertThat(rows(stFlowsets)).as("stored flowsets vs analyze").isEqualTo(rows(anFlowsets));
      EndToEnd.assertStoredOnce(stack, tools, FLOWS, CHEETAHS, FLOWSETS);
      EndToEnd.assertNoRestarts(stack);
    }
    EndToEnd.say(TEST, String.format("passed in %.1f s", secs(t0)));
  }

  /**
   * The generator exports to a real nfcapd (23:50 yesterday: a transfer crosses midnight); returns
   * the archive's files after checking that nfcapd stored every record sent.
   */
  static List<Path> capture(Tools tools, Path nfcapd, Path logs, Path truth, Path archive)
      throws Exception {
    int port = EndToEnd.freeUdpPort();
    try (ChildProcess capd =
        EndToEnd.nfcapd(
            logs, nfcapd, port, archive, "-B", "4194304", "-s", Integer.toString(-SAMPLING))) {
      EndToEnd.generator(
          tools,
          logs,
          "netflow",
          List.of(
              "netflow",
              "--target",
              EndToEnd.LOOPBACK + ":" + port,
              "--version",
              "9",
              "--sampling",
              Integer.toString(SAMPLING),
              "--active-timeout",
              "4",
              "--seed",
              "7",
              "--time-base",
              Long.toString(EndToEnd.yesterdayAt(85_800_000L)),
              "--span",
              "1200",
              "--margin",
              "300",
              "--mice-per-s",
              "2",
              "--realtime-flows",
              "10",
              "--transfers",
              "8",
              "--rate",
              "4000",
              "--truth",
              truth.toString(),
              "--quiet"));
      capd.stop(); // SIGTERM: nfcapd writes its last block and renames nfcapd.current
      assertThat(capd.exitCode()).as("nfcapd exit code").contains(0);
    }
    List<Path> files;
    try (Stream<Path> s = Files.list(archive)) {
      files =
          s.filter(p -> p.getFileName().toString().matches("nfcapd\\.\\d{12}")).sorted().toList();
    }
    assertThat(files).as("nfcapd files in %s", archive).isNotEmpty();
    long records = Long.parseLong(totals(truth, "records"));
    long stored = 0;
    for (Path f : files) {
      String info =
          EndToEnd.run(
              logs,
              "nfdump-I",
              List.of("nfdump", "-I", "-r", f.toString()),
              Map.of(),
              Duration.ofMinutes(1));
      Matcher m = Pattern.compile("(?m)^Flows: (\\d+)").matcher(info);
      assertThat(m.find()).as("nfdump -I of %s", f).isTrue();
      stored += Long.parseLong(m.group(1));
    }
    assertThat(stored).as("flow records nfcapd stored of %d sent", records).isEqualTo(records);
    return files;
  }

  private static void assertTruth(
      List<String> truthC, List<String> gotC, List<String> truthF, List<String> gotF, String what) {
    TruthCheck.Outcome c = TruthCheck.cheetahs(truthC, gotC);
    TruthCheck.Outcome f = TruthCheck.flowsets(truthF, gotF);
    assertThat(c.differences()).as(what + ": " + c.summary("cheetah flows")).isEmpty();
    assertThat(c.ok()).as(what + ": " + c.summary("cheetah flows")).isTrue();
    assertThat(f.differences()).as(what + ": " + f.summary("flowsets")).isEmpty();
    assertThat(f.ok()).as(what + ": " + f.summary("flowsets")).isTrue();
    assertThat(c.matched()).as(what + ": cheetahs in the workload").isGreaterThan(10);
  }

  /** Data rows with quotes dropped and numbers in one plain form, sorted. */
  static List<String> rows(List<String> csv) {
    return csv.stream()
        .filter(l -> !l.isBlank() && !l.startsWith("src,"))
        .map(
            l ->
                String.join(
                    ",",
                    Arrays.stream(l.replace("\"", "").split(","))
                        .map(NfcapdAnalyzeReplayTest::plain)
                        .toList()))
        .sorted()
        .toList();
  }

  private static String plain(String v) {
    try {
      return new BigDecimal(v.trim()).stripTrailingZeros().toPlainString();
    } catch (NumberFormatException e) {
      return v.trim();
    }
  }

  static String totals(Path truth, String key) throws Exception {
    Matcher m =
        Pattern.compile("\"totals\"\\s*:\\s*\\{[^}]*\"" + key + "\"\\s*:\\s*(\\d+)")
            .matcher(Files.readString(truth.resolve("truth.json")));
    assertThat(m.find()).as("totals.%s in truth.json", key).isTrue();
    return m.group(1);
  }

  private static double secs(long t0) {
    return (System.nanoTime() - t0) / 1e9;
  }
}
