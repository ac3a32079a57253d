package net.cheetah.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import net.cheetah.config.CheetahConfig;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;

/**
 * A real exporter end to end: the generator's packet-level workload (pcap, with its truth) read by
 * softflowd 1.1.0, which exports IPFIX with millisecond times; the export is captured and replayed
 * paced into the embedded stack (goflow2 → normalize → cheetahs + flowsets → warehouse). The stored
 * cheetahs and flowsets must be the pcap's truth.
 *
 * <p>softflowd reading a file never expires flows on inactivity (only by maxlife, or when its flow
 * table is full), so a small table (-m 16) keeps its export close to event-time order: the flows
 * flushed at end of file would otherwise arrive up to ~2 minutes behind the newest record. With -m
 * 16 the worst continuation record of a cheetah arrives 13 s after newer records (measured);
 * out-of-orderness + G + active timeout = 20 s covers it.
 */
@Tag("integration")
class SoftflowdEndToEndTest {
  static final String TEST = "softflowd";
  static final int MAXLIFE_S = 5;

  /** Test scale: H = 20 MB in I = 10 s, τ = 10 s, G = 5 s, active timeout = softflowd maxlife. */
  static final Map<String, String> DETECTION =
      Map.of(
          "detection.h-bytes", "2e7",
          "detection.interval-ms", "10000",
          "detection.tau-ms", "10000",
          "detection.gap-ms", "5000",
          "detection.active-timeout-ms", Integer.toString(MAXLIFE_S * 1000),
          "detection.flowset-lateness-ms", "10000",
          "detection.out-of-orderness-ms", "10000",
          "detection.idle-advance-ms", "2000");

  @TempDir(cleanup = CleanupMode.ON_SUCCESS)
  Path dir;

  @Test
  void softflowdIpfixOfAPcapIsStoredAsItsTruth() throws Exception {
    long t0 = System.nanoTime();
    Tools tools = EndToEnd.tools();
    Path softflowd = EndToEnd.requireOnPath("softflowd");
    Path logs = dir.resolve("logs");
    Path pcap = dir.resolve("workload.pcap");
    Path truth = dir.resolve("truth");
    // 23:59:00 yesterday: one transfer crosses midnight UTC; transfers end 20 s before the
    // capture does, and the background traffic after them carries event time past their closing.
    long base = EndToEnd.yesterdayAt(86_340_000L);
    EndToEnd.generator(
        tools,
        logs,
        "pcap",
        List.of(
            "pcap",
            "--out",
            pcap.toString(),
            "--truth",
            truth.toString(),
            "--seed",
            "1",
            "--time-base",
            Long.toString(base),
            "--h-bytes",
            "2e7",
            "--interval-s",
            "10",
            "--tau-s",
            "10",
            "--gap-s",
            "5"));

    // softflowd → catch: its export is one unpaced burst, too fast for a collector's socket.
    Path export = dir.resolve("softflowd.dg");
    int datagrams;
    int records;
    try (EndToEnd.Catcher c = new EndToEnd.Catcher(tools, logs, "catch", export, 2)) {
      String ctl = "/tmp/sf" + Long.toString(ProcessHandle.current().pid() % 46656, 36);
      String out;
      try {
        out =
            EndToEnd.run(
                logs,
                "softflowd",
                List.of(
                    softflowd.toString(),
                    "-d",
                    "-r",
                    pcap.toString(),
                    "-n",
                    EndToEnd.LOOPBACK + ":" + c.port,
                    "-v",
                    "10",
                    "-A",
                    "milli",
                    "-a",
                    "-m",
                    "16",
                    "-t",
                    "maxlife=" + MAXLIFE_S,
                    "-t",
                    "expint=1",
                    "-t",
                    "general=1",
                    "-t",
                    "tcp=1",
                    "-t",
                    "tcp.fin=1",
                    "-t",
                    "tcp.rst=1",
                    "-t",
                    "udp=1",
                    "-t",
                    "icmp=1",
                    // softflowd blocks in accept() when this path is longer than 12 characters
                    "-c",
                    ctl,
                    "-p",
                    dir.resolve("softflowd.pid").toString()),
                Map.of(),
                Duration.ofMinutes(2));
      } finally {
        Files.deleteIfExists(Path.of(ctl));
      }
      Matcher m =
          Pattern.compile(
                  "Flows exported: \\d+ \\((\\d+) records\\) in (\\d+) packets \\(0 failures\\)")
              .matcher(out);
      assertThat(m.find()).as("softflowd's summary:\n%s", out).isTrue();
      records = Integer.parseInt(m.group(1));
      datagrams = Integer.parseInt(m.group(2));
      assertThat(c.awaitCaught(Duration.ofSeconds(60)))
          .as("datagrams caught of the %d softflowd sent", datagrams)
          .isEqualTo(datagrams);
    }

    // The peak interval of softflowd's records, apportioned as the definition says (exact).
    Path recordsTruth = dir.resolve("records-truth");
    EndToEnd.generator(
        tools,
        logs,
        "records-truth",
        List.of(
            "records-truth",
            "--in",
            export.toString(),
            "--truth",
            recordsTruth.toString(),
            "--h-bytes",
            "2e7",
            "--interval-s",
            "10",
            "--tau-s",
            "10",
            "--gap-s",
            "5"));
    Path expected = dir.resolve("expected");
    List<String>[] exp = softflowdTruth(pcap, truth, recordsTruth, expected);
    CheetahConfig cfg = EndToEnd.config(DETECTION);
    try (Stack stack =
        new Stack(cfg, tools, dir.resolve("stack"), true, s -> EndToEnd.say(TEST, s))) {
      stack.start();
      EndToEnd.stopMerges(stack, tools);
      EndToEnd.generator(
          tools,
          logs,
          "replay",
          List.of(
              "replay",
              "--in",
              export.toString(),
              "--target",
              EndToEnd.LOOPBACK + ":" + stack.netflowPort(),
              "--pps",
              "500",
              "--quiet"));
      EndToEnd.Progress p =
          EndToEnd.awaitStored(
              stack, tools, records, exp[0].size() - 1, exp[1].size() - 1, Duration.ofMinutes(3));
      assertThat(p.flows()).as("flow records stored of %d exported", records).isEqualTo(records);
      assertThat(p.rejected()).as("rejected records").isZero();
      assertThat(stack.rejectedDatagrams()).as("datagrams goflow2 refused").isZero();
      EndToEnd.assertMatchesTruth(tools, new WarehouseClient(stack.warehouseUrl()), exp[0], exp[1]);
      EndToEnd.assertStoredOnce(
          stack,
          tools,
          StoredOnce.Result.FLOWS,
          StoredOnce.Result.CHEETAHS,
          StoredOnce.Result.FLOWSETS);
      EndToEnd.assertNoRestarts(stack);
    }
    EndToEnd.say(TEST, String.format("passed in %.1f s", (System.nanoTime() - t0) / 1e9));
  }

  /**
   * The generator's pcap truth (which cheetahs, which flowsets, bytes) with start and end as
   * softflowd reports them: the first and last packet of the TCP connection, both directions (the
   * generator's truth uses the forward direction only, up to 1 ms earlier), and the peak interval
   * of softflowd's records ({@code records-truth}: the packets' peak is not what any record-based
   * apportioning sees). Both truths must name the same cheetahs. Writes and returns the
   * cheetahs.csv and flowsets.csv lines.
   */
  @SuppressWarnings("unchecked")
  static List<String>[] softflowdTruth(Path pcap, Path truth, Path recordsTruth, Path out)
      throws Exception {
    PcapBiflows flows = PcapBiflows.read(pcap);
    List<String> truthCheetahs = Files.readAllLines(truth.resolve("cheetahs.csv"));
    java.util.Map<String, String> recordPeaks = new java.util.HashMap<>();
    for (String line : Files.readAllLines(recordsTruth.resolve("cheetahs.csv"))) {
      String[] f = line.split(",");
      if (!line.startsWith("src,")) {
        recordPeaks.put(String.join(",", java.util.Arrays.copyOf(f, 5)), f[8]);
      }
    }
    assertThat(recordPeaks.keySet())
        .as("cheetahs of softflowd's records vs the packet truth's")
        .containsExactlyInAnyOrderElementsOf(
            truthCheetahs.stream()
                .skip(1)
                .map(l -> String.join(",", java.util.Arrays.copyOf(l.split(","), 5)))
                .toList());
    List<String> cheetahs = new ArrayList<>(List.of(truthCheetahs.get(0)));
    List<String[]> adjusted = new ArrayList<>();
    for (String line : truthCheetahs.subList(1, truthCheetahs.size())) {
      String[] f = line.split(",");
      PcapBiflows.Tuple t =
          new PcapBiflows.Tuple(
              f[0], f[1], Integer.parseInt(f[2]), Integer.parseInt(f[3]), Integer.parseInt(f[4]));
      assertThat(flows.bytes.get(t))
          .as("pcap bytes of %s (truth %s)", t, f[7])
          .isEqualTo(Long.parseLong(f[7]));
      PcapBiflows.Span ms = flows.millis(t);
      assertThat(ms.firstUs()).as("start of %s", t).isEqualTo(Long.parseLong(f[5]));
      long truthEnd = Long.parseLong(f[6]);
      assertThat(ms.lastUs() - truthEnd).as("end of %s vs the truth", t).isBetween(0L, 1L);
      String[] a = f.clone();
      a[6] = Long.toString(ms.lastUs());
      a[8] = recordPeaks.get(String.join(",", java.util.Arrays.copyOf(f, 5)));
      adjusted.add(a);
      cheetahs.add(String.join(",", a));
    }
    List<String> truthSets = Files.readAllLines(truth.resolve("flowsets.csv"));
    List<String> sets = new ArrayList<>(List.of(truthSets.get(0)));
    List<String[]> truthRows =
        truthSets.subList(1, truthSets.size()).stream().map(l -> l.split(",")).toList();
    for (String[] f : truthRows) {
      String line = String.join(",", f);
      long start = Long.parseLong(f[3]);
      // Members: the pair's cheetahs from this set's first start up to the pair's next set.
      long next =
          truthRows.stream()
              .filter(o -> o[0].equals(f[0]) && o[1].equals(f[1]))
              .mapToLong(o -> Long.parseLong(o[3]))
              .filter(s -> s > start)
              .min()
              .orElse(Long.MAX_VALUE);
      List<String[]> members =
          adjusted.stream()
              .filter(c -> c[0].equals(f[0]) && c[1].equals(f[1]))
              .filter(c -> Long.parseLong(c[5]) >= start && Long.parseLong(c[5]) < next)
              .toList();
      assertThat(members).as("members of flowset %s", line).hasSize(Integer.parseInt(f[2]));
      long bytes = members.stream().mapToLong(c -> Long.parseLong(c[7])).sum();
      assertThat(bytes).as("bytes of flowset %s", line).isEqualTo(Long.parseLong(f[5]));
      String[] a = f.clone();
      a[4] =
          Long.toString(members.stream().mapToLong(c -> Long.parseLong(c[6])).max().orElseThrow());
      sets.add(String.join(",", a));
    }
    Files.createDirectories(out);
    Files.write(out.resolve("cheetahs.csv"), cheetahs);
    Files.write(out.resolve("flowsets.csv"), sets);
    return new List[] {cheetahs, sets};
  }
}
