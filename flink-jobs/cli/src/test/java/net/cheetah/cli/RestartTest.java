package net.cheetah.cli;

import static net.cheetah.cli.StoredOnce.Result.CHEETAHS;
import static net.cheetah.cli.StoredOnce.Result.FLOWS;
import static net.cheetah.cli.StoredOnce.Result.FLOWSETS;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;

/**
 * A restart loses and duplicates nothing: the first half of a workload's datagrams goes to a stack,
 * which stops cleanly (savepoints, warehouse caught up); a new stack on the same data directory
 * gets the second half. Flows that span the restart must be stitched across it, and the stored
 * cheetahs, flowsets and flow records must be exactly the truth.
 */
@Tag("integration")
class RestartTest {
  static final String TEST = "restart";
  static final byte[] MAGIC = "CHTDGRM1".getBytes(StandardCharsets.US_ASCII);

  /**
   * The generator's definitions at their defaults; idle advance off, so that the result does not
   * depend on how long the restart takes (with it on, event time follows the wall clock while the
   * exporter is silent, and a restart longer than G + active timeout would end the flows spanning
   * it before their next record arrives).
   */
  static final Map<String, String> DETECTION =
      Map.of("detection.idle-advance-ms", "0", "detection.flowset-lateness-ms", "60000");

  @TempDir(cleanup = CleanupMode.ON_SUCCESS)
  Path dir;

  /** One datagram of a datagram file (dgram_file.py): header fields and payload. */
  record Datagram(long exportMs, int exporter, int records, byte[] payload) {}

  @Test
  void aCleanRestartLosesAndDuplicatesNothing() throws Exception {
    long t0 = System.nanoTime();
    Tools tools = EndToEnd.tools();
    Path logs = dir.resolve("logs");
    Path truth = dir.resolve("truth");
    Path all = dir.resolve("workload.dg");
    EndToEnd.generator(
        tools,
        logs,
        "netflow",
        List.of(
            "netflow",
            "--datagrams-out",
            all.toString(),
            "--version",
            "9",
            // every datagram carries its templates: the restarted collector knows none
            "--template-every",
            "1",
            "--seed",
            "11",
            "--time-base",
            Long.toString(EndToEnd.yesterdayAt(12 * 3_600_000L)),
            "--span",
            "900",
            "--margin",
            "300",
            "--mice-per-s",
            "2",
            "--realtime-flows",
            "6",
            "--transfers",
            "6",
            "--truth",
            truth.toString(),
            "--quiet"));
    List<Datagram> dgs = read(all);
    List<String> truthCheetahs = TruthCheck.read(truth.resolve("cheetahs.csv"));
    // Restart in the middle of the longest cheetah flow.
    long splitAt =
        truthCheetahs.stream()
            .skip(1)
            .map(l -> l.split(","))
            .max(
                java.util.Comparator.comparingLong(
                    f -> Long.parseLong(f[6]) - Long.parseLong(f[5])))
            .map(f -> (Long.parseLong(f[5]) + Long.parseLong(f[6])) / 2)
            .orElseThrow();
    int half = 0;
    while (half < dgs.size() && dgs.get(half).exportMs() < splitAt) {
      half++;
    }
    long splitMs = dgs.get(half).exportMs();
    long firstRecords = dgs.subList(0, half).stream().mapToLong(Datagram::records).sum();
    long records = dgs.stream().mapToLong(Datagram::records).sum();
    long spanning =
        truthCheetahs.stream()
            .skip(1)
            .map(l -> l.split(","))
            .filter(f -> Long.parseLong(f[5]) < splitMs && Long.parseLong(f[6]) > splitMs)
            .count();
    assertThat(spanning).as("cheetahs with records on both sides of the restart").isPositive();
    Path first = dir.resolve("first.dg");
    Path second = dir.resolve("second.dg");
    write(first, dgs.subList(0, half));
    write(second, dgs.subList(half, dgs.size()));
    EndToEnd.say(
        TEST,
        String.format(
            "%d datagrams, %d records; restart after %d records, %d cheetahs span it",
            dgs.size(), records, firstRecords, spanning));

    Path data = dir.resolve("stack");
    try (Stack a =
        new Stack(
            EndToEnd.config(DETECTION), tools, data, true, s -> EndToEnd.say(TEST, "1: " + s))) {
      a.start();
      EndToEnd.stopMerges(a, tools);
      replay(tools, logs, "replay-1", first, a.netflowPort());
      EndToEnd.awaitStored(a, tools, firstRecords, 0, 0, Duration.ofMinutes(2));
      EndToEnd.assertStoredOnce(a, tools, FLOWS, CHEETAHS, FLOWSETS);
      // A clean stop is not a crash: neither stack's jobs may have restarted.
      EndToEnd.assertNoRestarts(a);
      a.stopCleanly(Duration.ofSeconds(60));
    }
    EndToEnd.say(
        TEST, String.format("first stack stopped (%.1f s)", (System.nanoTime() - t0) / 1e9));

    try (Stack b =
        new Stack(
            EndToEnd.config(DETECTION), tools, data, true, s -> EndToEnd.say(TEST, "2: " + s))) {
      b.start();
      EndToEnd.stopMerges(b, tools);
      replay(tools, logs, "replay-2", second, b.netflowPort());
      EndToEnd.Progress p =
          EndToEnd.awaitStored(
              b,
              tools,
              records,
              EndToEnd.dataRows(truth.resolve("cheetahs.csv")),
              EndToEnd.dataRows(truth.resolve("flowsets.csv")),
              Duration.ofMinutes(3));
      assertThat(p.flows()).as("flow records stored of %d sent", records).isEqualTo(records);
      assertThat(p.rejected()).as("rejected records").isZero();
      WarehouseClient wh = new WarehouseClient(b.warehouseUrl());
      assertThat(
              wh.count(
                  "SELECT count() FROM (SELECT DISTINCT exporter, observation_domain, src_addr,"
                      + " dst_addr, src_port, dst_port, proto, start_at FROM flows)"))
          .as("distinct flow records")
          .isEqualTo(records);
      EndToEnd.assertMatchesTruth(
          tools, wh, truthCheetahs, TruthCheck.read(truth.resolve("flowsets.csv")));
      EndToEnd.assertStoredOnce(b, tools, FLOWS, CHEETAHS, FLOWSETS);
      EndToEnd.assertNoRestarts(b);
    }
    EndToEnd.say(TEST, String.format("passed in %.1f s", (System.nanoTime() - t0) / 1e9));
  }

  private static void replay(Tools tools, Path logs, String name, Path file, int port)
      throws Exception {
    EndToEnd.generator(
        tools,
        logs,
        name,
        List.of(
            "replay",
            "--in",
            file.toString(),
            "--target",
            EndToEnd.LOOPBACK + ":" + port,
            "--rate",
            "4000",
            "--quiet"));
  }

  /** Reads a datagram file: magic, then per datagram u32 length, u64 ms, u16, u16, payload. */
  static List<Datagram> read(Path file) throws IOException {
    List<Datagram> out = new ArrayList<>();
    try (InputStream raw = Files.newInputStream(file);
        DataInputStream in = new DataInputStream(new java.io.BufferedInputStream(raw))) {
      byte[] magic = in.readNBytes(MAGIC.length);
      assertThat(magic).as("datagram file magic").isEqualTo(MAGIC);
      while (in.available() > 0) {
        int len = in.readInt();
        long ms = in.readLong();
        int exporter = in.readUnsignedShort();
        int records = in.readUnsignedShort();
        out.add(new Datagram(ms, exporter, records, in.readNBytes(len)));
      }
    }
    return out;
  }

  static void write(Path file, List<Datagram> dgs) throws IOException {
    try (OutputStream raw = Files.newOutputStream(file);
        DataOutputStream out = new DataOutputStream(new java.io.BufferedOutputStream(raw))) {
      out.write(MAGIC);
      for (Datagram d : dgs) {
        out.writeInt(d.payload().length);
        out.writeLong(d.exportMs());
        out.writeShort(d.exporter());
        out.writeShort(d.records());
        out.write(d.payload());
      }
    }
  }
}
