package net.cheetah.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import net.cheetah.runtime.ChildProcess;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * `cheetah throughput` on a small hand-built input: flows written by a real nfcapd from one NetFlow
 * v5 datagram, transfers as the shippers write them, a hosts.csv. Every row checked below was
 * computed by hand (the arithmetic is beside it).
 */
@Tag("integration")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ThroughputCommandTest {
  static final String TEST = "throughput-command";
  static final String W = "10.0.1.1";
  static final String V = "10.0.2.1";
  static final String IDC = "10.0.2.7";
  static final String FAR = "10.0.3.1";
  static final int UPTIME_MS = 10_000_000;

  /** 2024-01-01T00:00:00Z, a Monday. */
  static final long MONDAY = 1_704_067_200_000L;

  Path dir;

  long base;
  int rc;
  String stdout;
  Path out;

  record V5(
      String src, String dst, int srcPort, int dstPort, long bytes, long firstMs, long lastMs) {}

  @BeforeAll
  void run(@TempDir(cleanup = CleanupMode.ON_SUCCESS) Path tmp) throws Exception {
    dir = tmp;
    long unixSecs = System.currentTimeMillis() / 1000;
    // Flow times are unix_secs - uptime + First: First = 1,000,000 ms is base.
    base = unixSecs * 1000 - UPTIME_MS + 1_000_000;
    long b = 1_000_000;
    List<V5> flows =
        List.of(
            // Instance A, W -> V: two streams (10 s and 9 s, 125 MB each) and iperf3's control
            // connection (2 kB, under 1% of the largest: not a stream).
            new V5(W, V, 40001, 5201, 125_000_000, b, b + 10_000),
            new V5(W, V, 40002, 5201, 125_000_000, b + 1_000, b + 10_000),
            new V5(W, V, 40000, 5201, 2_000, b - 500, b + 10_500),
            // The ACKs back: an instance of V -> W that no transfer matches.
            new V5(V, W, 5201, 40001, 600_000, b, b + 10_000),
            // Instance B, W -> IDC an hour later: one stream, 50 MB in 10 s.
            new V5(W, IDC, 40010, 5201, 50_000_000, b + 3_600_000, b + 3_610_000));
    Path archive = Files.createDirectories(dir.resolve("flows"));
    capture(unixSecs, flows, archive);

    Path transfers = Files.createDirectories(dir.resolve("transfers"));
    Files.writeString(
        transfers.resolve("iperf3.jsonl"),
        json(W, V, "iperf3", 2, 250_000_000, 10, base, base + 10_000)
            + json(W, IDC, "iperf3", 1, 50_000_000, 10, base + 3_600_000, base + 3_610_000)
            + "{\"src_host\": \"a\"}\n");
    StringBuilder scp = new StringBuilder();
    for (int i = 0; i < 12; i++) {
      long at = MONDAY + i * 3_600_000L;
      scp.append(json(W, FAR, "scp", 1, i < 6 ? 125_000_000 : 62_500_000, 10, at, at + 10_000));
    }
    Files.writeString(transfers.resolve("scp.jsonl"), scp);
    Files.writeString(
        transfers.resolve("hosts.csv"),
        ThroughputInputs.HOSTS_HEADER
            + "\n"
            + IDC
            + ","
            + (base + 3_605_000)
            + ",20,99,,1000000000\n");

    out = dir.resolve("out");
    ByteArrayOutputStream o = new ByteArrayOutputStream();
    PrintStream old = System.out;
    try {
      System.setOut(new PrintStream(o, true, StandardCharsets.UTF_8));
      rc =
          new CommandLine(new ThroughputCommand())
              .execute(
                  "--transfers",
                  transfers.toString(),
                  "--flows",
                  archive.toString(),
                  "--out",
                  out.toString());
    } finally {
      System.setOut(old);
    }
    stdout = o.toString(StandardCharsets.UTF_8);
    EndToEnd.say(TEST, "throughput -> " + rc + "\n" + stdout);
  }

  static String json(
      String src,
      String dst,
      String tool,
      int streams,
      long bytes,
      double secs,
      long start,
      long end) {
    return String.format(
        java.util.Locale.ROOT,
        "{\"src_host\":\"%s\",\"dst_host\":\"%s\",\"tool\":\"%s\",\"streams\":%d,\"bytes\":%d,\"seconds\":%s,"
            + "\"start_ms\":%d,\"end_ms\":%d,\"tcp_buffer_bytes\":0,\"congestion_control\":\"\",\"mtu\":0,"
            + "\"stream_rates_bps\":[],\"stream_seconds\":[]}%n",
        src,
        dst,
        tool,
        streams,
        bytes,
        secs,
        start,
        end);
  }

  /** Rows of OUT/name as maps from the header's columns. */
  List<Map<String, String>> rows(String name) throws Exception {
    List<String> lines = Files.readAllLines(out.resolve(name));
    String[] header = lines.get(0).split(",", -1);
    List<Map<String, String>> rows = new ArrayList<>();
    for (String l : lines.subList(1, lines.size())) {
      String[] c = l.split(",", -1);
      Map<String, String> m = new HashMap<>();
      for (int i = 0; i < header.length; i++) {
        m.put(header[i], i < c.length ? c[i] : "");
      }
      rows.add(m);
    }
    return rows;
  }

  static double d(Map<String, String> row, String col) {
    return Double.parseDouble(row.get(col));
  }

  @Test
  void everyFileHasItsHeader() throws Exception {
    assertThat(Files.readAllLines(out.resolve("instances.csv")).get(0))
        .isEqualTo(ThroughputCsv.INSTANCES);
    assertThat(Files.readAllLines(out.resolve("comparison.csv")).get(0))
        .isEqualTo(ThroughputCsv.COMPARISON);
    assertThat(Files.readAllLines(out.resolve("forecasts.csv")).get(0))
        .isEqualTo(ThroughputCsv.FORECASTS);
    assertThat(Files.readAllLines(out.resolve("diurnal.csv")).get(0))
        .isEqualTo(ThroughputCsv.DIURNAL);
    assertThat(Files.readAllLines(out.resolve("steps.csv")).get(0)).isEqualTo(ThroughputCsv.STEPS);
    assertThat(Files.readAllLines(out.resolve("prca.csv")).get(0)).isEqualTo(ThroughputCsv.PRCA);
  }

  @Test
  void theBadLineIsRejectedAndTheRestAnalysed() throws Exception {
    assertThat(rc).as("exit status with a rejected line").isEqualTo(1);
    List<String> rejected = Files.readAllLines(out.resolve("rejected.txt"));
    assertThat(rejected)
        .singleElement()
        .asString()
        .startsWith("bad_transfer: ")
        .contains("iperf3.jsonl:3: ");
    assertThat(stdout)
        .contains("14 transfer(s), 1 host sample(s), 5 stream(s) -> 3 instance(s), 2 matched");
  }

  @Test
  void instancesByHand() throws Exception {
    List<Map<String, String>> rows = rows("instances.csv");
    assertThat(rows).hasSize(3);
    Map<String, String> a = find(rows, W, V);
    assertThat(a.get("start_ms")).isEqualTo(Long.toString(base));
    assertThat(a.get("end_ms")).isEqualTo(Long.toString(base + 10_000));
    assertThat(a.get("streams")).isEqualTo("2");
    assertThat(a.get("control_flows")).isEqualTo("1");
    assertThat(a.get("long_flows")).isEqualTo("0");
    assertThat(a.get("bytes")).isEqualTo("250000000");
    // (1) 1e9 bit / 10 s + 1e9 / 9 = 100e6 + 111.111e6; (2) 2e9 / 9.5; (3) 2e9 / 10.
    assertThat(d(a, "sum_stream_bps")).isCloseTo(100e6 + 1e9 / 9, within(1e-3));
    assertThat(d(a, "mean_time_bps")).isCloseTo(2e9 / 9.5, within(1e-3));
    assertThat(d(a, "max_time_bps")).isCloseTo(200e6, within(1e-3));
    assertThat(a.get("tool")).isEqualTo("iperf3");
    assertThat(d(a, "active_bps")).isCloseTo(200e6, within(1e-3)); // 250e6 B x 8 / 10 s
    Map<String, String> b = find(rows, W, IDC);
    assertThat(d(b, "sum_stream_bps")).isCloseTo(40e6, within(1e-3)); // 400e6 bit / 10 s
    Map<String, String> ack = find(rows, V, W);
    assertThat(ack.get("tool")).isEmpty();
    assertThat(ack.get("active_bps")).isEmpty();
  }

  @Test
  void comparisonByHand() throws Exception {
    List<Map<String, String>> rows = rows("comparison.csv");
    assertThat(rows).hasSize(6); // 2 pairs x 3 formulas
    Map<String, Double> errA = new HashMap<>();
    for (Map<String, String> r : rows) {
      assertThat(r.get("n")).isEqualTo("1");
      assertThat(r.get("r")).as("R of one match").isEmpty();
      if (r.get("dst").equals(V)) {
        errA.put(r.get("formula"), d(r, "err_median"));
      } else {
        assertThat(d(r, "err_median")).isCloseTo(0, within(1e-9));
      }
      // iperf3's mean |err|: (1) (1/19 + 0) / 2, (2) (0.05 + 0) / 2, (3) 0: formula 3 is best.
      assertThat(r.get("best_for_tool")).isEqualTo(Boolean.toString(r.get("formula").equals("3")));
    }
    // err = (passive - active) / passive: (1) 1 - 200 / (1900/9) = 1/19; (2) 1 - 200 x 9.5 / 2000 =
    // 0.05;
    // (3) 1 - 200 / 200 = 0.
    assertThat(errA.get("1")).isCloseTo(1.0 / 19, within(1e-6));
    assertThat(errA.get("2")).isCloseTo(0.05, within(1e-6));
    assertThat(errA.get("3")).isCloseTo(0, within(1e-6));
  }

  @Test
  void forecastsStepsAndDiurnalOfTheScpSeries() throws Exception {
    List<Map<String, String>> f =
        rows("forecasts.csv").stream().filter(r -> r.get("source").equals("scp")).toList();
    assertThat(f).hasSize(12);
    // 6th (100e6): mean of five 100e6, sd 0: inside. 7th (50e6): outside. 8th (50e6): last five
    // 100,100,100,100,50 -> mean 90e6, sd sqrt((4 x 10² + 40²) / 4) = sqrt(500) = 22.36e6;
    // |50 - 90| = 40 < 2 x 22.36: inside.
    assertThat(f.subList(0, 5)).allMatch(r -> r.get("mean_bps").isEmpty());
    assertThat(f.get(5).get("outside_band")).isEqualTo("false");
    assertThat(f.get(6).get("outside_band")).isEqualTo("true");
    assertThat(d(f.get(7), "mean_bps")).isCloseTo(90e6, within(1e-3));
    assertThat(d(f.get(7), "sd_bps")).isCloseTo(Math.sqrt(500) * 1e6, within(1e-3));
    assertThat(f.get(7).get("outside_band")).isEqualTo("false");
    // EWMA forecast of the 2nd: the 1st, 100e6.
    assertThat(d(f.get(1), "ewma_bps")).isCloseTo(100e6, within(1e-3));

    List<Map<String, String>> steps = rows("steps.csv");
    assertThat(steps)
        .singleElement()
        .satisfies(
            s -> {
              assertThat(s.get("source")).isEqualTo("scp");
              assertThat(s.get("time_ms")).isEqualTo(Long.toString(MONDAY + 6 * 3_600_000L));
              assertThat(s.get("last_before_ms")).isEqualTo(Long.toString(MONDAY + 5 * 3_600_000L));
              assertThat(d(s, "before_bps")).isCloseTo(100e6, within(1e-3));
              assertThat(d(s, "after_bps")).isCloseTo(50e6, within(1e-3));
              assertThat(s.get("t")).isEqualTo("inf"); // both windows constant
            });

    List<Map<String, String>> diurnal =
        rows("diurnal.csv").stream().filter(r -> r.get("source").equals("scp")).toList();
    assertThat(diurnal)
        .singleElement()
        .satisfies(
            r -> {
              assertThat(r.get("days")).isEqualTo("weekday"); // all on Monday 2024-01-01
              assertThat(r.get("n")).isEqualTo("12");
            });
  }

  @Test
  void prcaNamesTheReceiversDisk() throws Exception {
    // W -> V (iperf3, 2 streams) at 200e6 is the reference; W -> IDC's cluster (1 stream) at 40e6
    // < 0.8 x 200e6, and IDC's disk was at 99% during its transfer: the resource comes first.
    List<Map<String, String>> rows = rows("prca.csv");
    assertThat(rows)
        .singleElement()
        .satisfies(
            r -> {
              assertThat(r.get("scope")).isEqualTo("cluster");
              assertThat(r.get("dst")).isEqualTo(IDC);
              assertThat(r.get("cause")).isEqualTo("resource");
              assertThat(r.get("detail")).isEqualTo("receiver disk 99%");
              assertThat(d(r, "bps")).isCloseTo(40e6, within(1e-3));
              assertThat(r.get("reference_dst")).isEqualTo(V);
              assertThat(d(r, "reference_median_bps")).isCloseTo(200e6, within(1e-3));
              assertThat(d(r, "dst_nic_bps")).isCloseTo(1e9, within(1e-3));
            });
  }

  private static Map<String, String> find(List<Map<String, String>> rows, String src, String dst) {
    return rows.stream()
        .filter(r -> r.get("src").equals(src) && r.get("dst").equals(dst))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no row " + src + " -> " + dst + " in " + rows));
  }

  /** One v5 datagram of {@code flows} through a real nfcapd into {@code archive}. */
  private void capture(long unixSecs, List<V5> flows, Path archive) throws Exception {
    int port = EndToEnd.freeUdpPort();
    Path nfcapd = EndToEnd.requireOnPath("nfcapd");
    try (ChildProcess capd = EndToEnd.nfcapd(dir.resolve("logs"), nfcapd, port, archive);
        DatagramSocket udp = new DatagramSocket(new InetSocketAddress(EndToEnd.LOOPBACK, 0))) {
      byte[] d = v5(unixSecs, flows);
      udp.send(new DatagramPacket(d, d.length, new InetSocketAddress(EndToEnd.LOOPBACK, port)));
      capd.awaitStderrLine(l -> l.contains("New exporter"), Duration.ofSeconds(30));
      capd.stop(); // SIGTERM: nfcapd writes its last block and renames nfcapd.current
    }
    try (Stream<Path> s = Files.list(archive)) {
      assertThat(s.filter(p -> p.getFileName().toString().matches("nfcapd\\.\\d{12}")).count())
          .as("files nfcapd wrote")
          .isEqualTo(1);
    }
  }

  /**
   * NetFlow v5: a 24-byte header, 48-byte TCP records (packets: one per 1,000 bytes, at least 1).
   */
  static byte[] v5(long unixSecs, List<V5> flows) throws Exception {
    ByteBuffer b = ByteBuffer.allocate(24 + 48 * flows.size());
    b.putShort((short) 5)
        .putShort((short) flows.size())
        .putInt(UPTIME_MS)
        .putInt((int) unixSecs)
        .putInt(0);
    b.putInt(1).put((byte) 0).put((byte) 0).putShort((short) 0);
    for (V5 f : flows) {
      b.put(InetAddress.getByName(f.src()).getAddress());
      b.put(InetAddress.getByName(f.dst()).getAddress());
      b.putInt(0).putShort((short) 1).putShort((short) 2);
      b.putInt((int) Math.max(1, f.bytes() / 1000)).putInt((int) f.bytes());
      b.putInt((int) f.firstMs()).putInt((int) f.lastMs());
      b.putShort((short) f.srcPort()).putShort((short) f.dstPort());
      b.put((byte) 0).put((byte) 0x18).put((byte) 6).put((byte) 0);
      b.putShort((short) 0).putShort((short) 0).put((byte) 24).put((byte) 24);
      b.putShort((short) 0);
    }
    return b.array();
  }
}
