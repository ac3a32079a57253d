package net.cheetah.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.math.BigDecimal;
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
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Stream;
import net.cheetah.jobs.analyze.NfcapdFile;
import net.cheetah.jobs.analyze.NfcapdRecord;
import net.cheetah.jobs.analyze.NfdumpLine;
import net.cheetah.runtime.ChildProcess;
import net.cheetah.schemas.goflow2.FlowMessage;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;

/**
 * The native nfcapd reader against nfdump itself: a real nfcapd (nfdump 1.7.1) stores one NetFlow
 * v9 datagram of IPv4 and IPv6 flows (TCP with flags, UDP, ICMP, AS numbers, interfaces, ToS,
 * 64-bit counters) uncompressed and with each compression it offers (LZ4, LZO, BZ2); every field of
 * every record the reader decodes must equal what {@code nfdump -r FILE -o fmt:...} prints for it,
 * and every record must become the same goflow2 message (or the same refusal) as the line nfdump
 * prints, which is how analyze read archives before. Damaged files (truncated anywhere, bytes
 * flipped anywhere) give {@link NfcapdFile.Unreadable} with a reason, never another exception or a
 * hang.
 */
@Tag("integration")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class NfcapdFileTest {
  static final String TEST = "nfcapd-file";

  /** Fields nfdump prints beyond analyze's format, for the fields the reader also decodes. */
  static final String EXTRA = "|%trr|%exp|%eng|%opkt|%obyt|%fl";

  /** The capture's time: whole seconds, so that the flows' ms times are exact. */
  static final long UNIX_SECS = 1_795_000_000L;

  static final int UPTIME_MS = 3_600_000;

  Path dir;

  /** compression flag ("" = none) -> the file nfcapd wrote. */
  final Map<String, Path> files = new java.util.LinkedHashMap<>();

  /** One flow of the datagram. */
  record V9Flow(
      String src,
      String dst,
      int srcPort,
      int dstPort,
      int proto,
      int flags,
      int tos,
      long packets,
      long bytes,
      int srcAs,
      int dstAs,
      int in,
      int out,
      int firstMs,
      int lastMs) {}

  static final List<V9Flow> V4 =
      List.of(
          new V9Flow(
              "198.18.1.10",
              "203.0.113.5",
              40001,
              443,
              6,
              0x1B,
              0,
              1000,
              1_400_000,
              64500,
              64501,
              3,
              7,
              -60_000,
              -1_234),
          new V9Flow(
              "198.18.1.11",
              "203.0.113.6",
              5353,
              53,
              17,
              0x02,
              0x2E,
              3,
              180,
              0,
              0,
              0,
              0,
              -5_000,
              -5_000),
          // ICMP echo request (type 8, code 0): nfdump prints its "port" as 8.0
          new V9Flow(
              "198.18.1.12",
              "203.0.113.7",
              0,
              8 << 8,
              1,
              0,
              0,
              4,
              336,
              1,
              2,
              1,
              2,
              -10_000,
              -9_000),
          // more than 2^32 bytes and a TCP flow with every flag set
          new V9Flow(
              "198.18.1.13",
              "203.0.113.8",
              50000,
              5201,
              6,
              0xFF,
              0xB8,
              5_000_000L,
              7_000_000_000L,
              (int) 4_200_000_000L,
              65535,
              100_000,
              4_000_000,
              -59_999,
              -1),
          // impossible counts: stored all the same, refused by the normaliser
          new V9Flow(
              "198.18.1.14", "203.0.113.9", 1, 2, 6, 0x10, 0, 10, 100, 0, 0, 0, 0, -2_000, -1_000));

  static final List<V9Flow> V6 =
      List.of(
          new V9Flow(
              "2001:db8::10",
              "2001:db8:ffff::5",
              40002,
              443,
              6,
              0x18,
              0,
              2000,
              2_800_000,
              64502,
              64503,
              4,
              8,
              -30_000,
              -500),
          new V9Flow(
              "2001:db8:1:2:3:4:5:6", "fe80::1", 123, 123, 17, 0, 0, 1, 76, 0, 0, 0, 0, -100, -100),
          // ICMPv6 echo reply (type 129, code 0)
          new V9Flow(
              "2001:db8::11",
              "2001:db8::12",
              0,
              129 << 8,
              58,
              0,
              0,
              2,
              208,
              0,
              0,
              0,
              0,
              -3_000,
              -2_000));

  @BeforeAll
  void capture(@TempDir(cleanup = CleanupMode.ON_SUCCESS) Path tmp) throws Exception {
    dir = tmp;
    Path nfcapd = EndToEnd.requireOnPath("nfcapd");
    EndToEnd.requireOnPath("nfdump");
    byte[] datagram = v9Datagram();
    // nfdump 1.7.1's nfcapd: -y LZ4, -z LZO, -j BZ2 (nfcapd -h).
    for (String compression : List.of("", "-y", "-z", "-j")) {
      Path archive = dir.resolve("archive" + compression);
      Files.createDirectories(archive);
      int port = EndToEnd.freeUdpPort();
      String[] extra = compression.isEmpty() ? new String[0] : new String[] {compression};
      try (ChildProcess capd =
              EndToEnd.nfcapd(dir.resolve("logs" + compression), nfcapd, port, archive, extra);
          DatagramSocket udp = new DatagramSocket(new InetSocketAddress(EndToEnd.LOOPBACK, 0))) {
        udp.send(
            new DatagramPacket(
                datagram, datagram.length, new InetSocketAddress(EndToEnd.LOOPBACK, port)));
        // The whole datagram is stored by the time nfcapd logs the exporter it came from.
        capd.awaitStderrLine(l -> l.contains("exporter: SysID"), Duration.ofSeconds(30));
        capd.stop(); // SIGTERM: nfcapd writes its last block and renames nfcapd.current
      }
      try (Stream<Path> s = Files.list(archive)) {
        List<Path> written =
            s.filter(p -> p.getFileName().toString().matches("nfcapd\\.\\d{12}")).toList();
        assertThat(written).as("the file nfcapd %s wrote", compression).hasSize(1);
        files.put(compression, written.get(0));
      }
    }
  }

  @Test
  void everyFieldOfEveryRecordIsWhatNfdumpPrints() throws Exception {
    for (var e : files.entrySet()) {
      Path file = e.getValue();
      List<String> printed = nfdump(file, NfdumpLine.FORMAT + EXTRA);
      List<NfcapdRecord> decoded = decode(file);
      assertThat(decoded)
          .as("records decoded from %s (nfcapd %s)", file, e.getKey())
          .hasSize(V4.size() + V6.size())
          .hasSameSizeAs(printed);
      for (int i = 0; i < decoded.size(); i++) {
        assertSameFields(decoded.get(i), printed.get(i), file + " record " + i);
      }
    }
  }

  @Test
  void everyRecordBecomesTheMessageOrRefusalOfNfdumpsLine() throws Exception {
    for (Path file : files.values()) {
      List<String> lines = nfdump(file, NfdumpLine.FORMAT);
      List<NfcapdRecord> decoded = decode(file);
      int refused = 0;
      for (int i = 0; i < decoded.size(); i++) {
        String viaText;
        FlowMessage fromText = null;
        try {
          fromText = NfdumpLine.parse(lines.get(i)).orElseThrow();
          viaText = null;
        } catch (NfdumpLine.BadLine b) {
          viaText = b.getMessage();
        }
        if (viaText == null) {
          assertThat(decoded.get(i).toMessage()).as("%s record %d", file, i).isEqualTo(fromText);
        } else {
          refused++;
          String why = viaText;
          NfcapdRecord r = decoded.get(i);
          assertThatThrownBy(r::toMessage)
              .as("%s record %d: refused like nfdump's line", file, i)
              .isInstanceOf(NfdumpLine.BadLine.class)
              .hasMessage(why);
        }
      }
      // The two ICMP flows, whose destination "port" nfdump prints as type.code, are read back
      // as TYPE·256 + CODE (NfdumpLine.dstPort) and so equal the archive's records: none refused.
      assertThat(refused).as("records refused as lines in %s", file).isEqualTo(0);
    }
  }

  @Test
  void aDamagedOrTruncatedFileIsUnreadableWithAReasonNeverACrash() throws Exception {
    for (Path file : files.values()) {
      byte[] good = Files.readAllBytes(file);
      int n = decode(file).size();
      Path bad = dir.resolve("damaged");
      // Truncated at every length: some records of whole blocks, or Unreadable.
      for (int len = 0; len < good.length; len++) {
        Files.write(bad, Arrays.copyOf(good, len));
        int got = readOrUnreadable(bad, "truncated to " + len + " bytes");
        assertThat(got).as("records of %s truncated to %d bytes", file, len).isLessThan(n + 1);
      }
      // Random bytes changed anywhere (header, block headers, compressed or plain payload).
      Random random = new Random(7);
      for (int round = 0; round < 3000; round++) {
        byte[] b = good.clone();
        int flips = 1 + random.nextInt(4);
        for (int k = 0; k < flips; k++) {
          b[random.nextInt(b.length)] = (byte) random.nextInt(256);
        }
        Files.write(bad, b);
        readOrUnreadable(bad, "round " + round);
      }
    }
    Path empty = Files.write(dir.resolve("empty"), new byte[0]);
    assertThatThrownBy(() -> NfcapdFile.open(empty))
        .isInstanceOf(NfcapdFile.Unreadable.class)
        .hasMessageContaining("too short");
    byte[] noise = new byte[4096];
    new Random(42).nextBytes(noise);
    noise[0] = 0x12; // not 0xA50C
    Path random = Files.write(dir.resolve("noise"), noise);
    assertThatThrownBy(() -> NfcapdFile.open(random))
        .isInstanceOf(NfcapdFile.Unreadable.class)
        .hasMessageContaining("bad magic");
    // 100 bytes: the header and part of the first data block (and no appendix)
    byte[] cut = Files.readAllBytes(files.get(""));
    Path truncated = Files.write(dir.resolve("cut"), Arrays.copyOf(cut, 100));
    assertThatThrownBy(
            () -> {
              try (NfcapdFile f = NfcapdFile.open(truncated)) {
                f.readAll(r -> {});
              }
            })
        .isInstanceOf(NfcapdFile.Unreadable.class)
        .hasMessageMatching(".*(cut short|outside the file).*");
  }

  /** Records read, or -1 when Unreadable; anything else fails the test. */
  private static int readOrUnreadable(Path file, String what) {
    int[] n = {0};
    try (NfcapdFile f = NfcapdFile.open(file)) {
      f.readAll(
          r -> {
            n[0]++;
            r.render(); // every decoded record can be shown and converted
            try {
              r.toMessage();
            } catch (NfdumpLine.BadLine e) {
              // a refusal is an answer
            }
          });
      return n[0];
    } catch (NfcapdFile.Unreadable e) {
      assertThat(e.getMessage()).as(what).contains(file.toString()).contains("at byte");
      return -1;
    } catch (IOException | RuntimeException e) {
      throw new AssertionError(what + ": not an Unreadable: " + e, e);
    }
  }

  private static List<NfcapdRecord> decode(Path file) throws IOException {
    List<NfcapdRecord> l = new ArrayList<>();
    try (NfcapdFile f = NfcapdFile.open(file)) {
      f.readAll(r -> l.add(copy(r)));
    }
    return l;
  }

  private static NfcapdRecord copy(NfcapdRecord r) {
    NfcapdRecord c = new NfcapdRecord();
    for (var field : NfcapdRecord.class.getFields()) {
      try {
        field.set(c, field.get(r));
      } catch (IllegalAccessException e) {
        throw new AssertionError(e);
      }
    }
    return c;
  }

  /** Compares each field of the decoded record with nfdump's text of it, by its meaning. */
  private static void assertSameFields(NfcapdRecord r, String line, String what) throws Exception {
    String[] f = Arrays.stream(line.split("\\|", -1)).map(String::trim).toArray(String[]::new);
    String[] mine = r.render().split("\\|", -1);
    assertThat(f).as("%s: fields of %s", what, line).hasSize(mine.length + 6);
    String[] names = NfdumpLine.FORMAT.substring(4).split("\\|");
    for (int i = 0; i < mine.length; i++) {
      if (names[i].equals("%ra") || names[i].equals("%sa") || names[i].equals("%da")) {
        assertThat(InetAddress.getByName(mine[i]).getAddress())
            .as("%s: %s (nfdump: %s, decoded: %s)", what, names[i], f[i], mine[i])
            .isEqualTo(InetAddress.getByName(f[i]).getAddress());
      } else {
        assertThat(mine[i]).as("%s: %s", what, names[i]).isEqualTo(f[i]);
      }
    }
    int x = mine.length;
    assertThat(r.msecReceived)
        .as("%s: %%trr %s", what, f[x])
        .isEqualTo(new BigDecimal(f[x]).movePointRight(3).longValueExact());
    assertThat(Integer.toString(r.exporterId)).as("%s: %%exp", what).isEqualTo(f[x + 1]);
    assertThat(r.engineType + "/" + r.engineId)
        .as("%s: %%eng", what)
        .isEqualTo(f[x + 2].replace(" ", ""));
    assertThat(Long.toUnsignedString(r.outPackets)).as("%s: %%opkt", what).isEqualTo(f[x + 3]);
    assertThat(Long.toUnsignedString(r.outBytes)).as("%s: %%obyt", what).isEqualTo(f[x + 4]);
    assertThat(Long.toUnsignedString(r.aggrFlows)).as("%s: %%fl", what).isEqualTo(f[x + 5]);
  }

  private List<String> nfdump(Path file, String format) throws Exception {
    ProcessBuilder pb =
        new ProcessBuilder("nfdump", "-r", file.toString(), "-q", "-N", "-6", "-o", format)
            .redirectErrorStream(true);
    pb.environment().putAll(Map.of("TZ", "UTC", "LC_ALL", "C"));
    Process p = pb.start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor()).as("nfdump -r %s: %s", file, out).isZero();
    EndToEnd.say(TEST, "nfdump -r " + file + " -o " + format + "\n" + out);
    return out.lines().filter(l -> !l.isBlank()).toList();
  }

  /** One NetFlow v9 datagram: a template for IPv4 and one for IPv6 flows, then their data. */
  static byte[] v9Datagram() throws IOException {
    ByteBuffer b = ByteBuffer.allocate(1400);
    b.putShort((short) 9).putShort((short) (2 + V4.size() + V6.size()));
    b.putInt(UPTIME_MS).putInt((int) UNIX_SECS).putInt(0).putInt(42);
    int[][] v4 = {
      {8, 4}, {12, 4}, {7, 2}, {11, 2}, {4, 1}, {6, 1}, {5, 1}, {2, 8}, {1, 8}, {16, 4}, {17, 4},
      {10, 4}, {14, 4}, {22, 4}, {21, 4}
    };
    int[][] v6 = v4.clone();
    v6[0] = new int[] {27, 16};
    v6[1] = new int[] {28, 16};
    int templates = b.position();
    b.putShort((short) 0).putShort((short) 0);
    template(b, 256, v4);
    template(b, 257, v6);
    b.putShort(templates + 2, (short) (b.position() - templates));
    data(b, 256, V4);
    data(b, 257, V6);
    return Arrays.copyOf(b.array(), b.position());
  }

  private static void template(ByteBuffer b, int id, int[][] fields) {
    b.putShort((short) id).putShort((short) fields.length);
    for (int[] f : fields) {
      b.putShort((short) f[0]).putShort((short) f[1]);
    }
  }

  private static void data(ByteBuffer b, int id, List<V9Flow> flows) throws IOException {
    int start = b.position();
    b.putShort((short) id).putShort((short) 0);
    for (V9Flow f : flows) {
      b.put(InetAddress.getByName(f.src()).getAddress());
      b.put(InetAddress.getByName(f.dst()).getAddress());
      b.putShort((short) f.srcPort()).putShort((short) f.dstPort());
      b.put((byte) f.proto()).put((byte) f.flags()).put((byte) f.tos());
      b.putLong(f.packets()).putLong(f.bytes());
      b.putInt(f.srcAs()).putInt(f.dstAs()).putInt(f.in()).putInt(f.out());
      b.putInt(UPTIME_MS + f.firstMs()).putInt(UPTIME_MS + f.lastMs());
    }
    while ((b.position() - start) % 4 != 0) {
      b.put((byte) 0);
    }
    b.putShort(start + 2, (short) (b.position() - start));
  }
}
