package net.cheetah.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import net.cheetah.analytics.throughput.FlowStream;
import net.cheetah.analytics.throughput.HostSample;
import net.cheetah.analytics.throughput.StreamStitcher;
import net.cheetah.analytics.throughput.Transfer;
import net.cheetah.core.flow.Flow;
import net.cheetah.jobs.analyze.ArchiveFlows;
import net.cheetah.jobs.analyze.NfcapdFile;
import net.cheetah.jobs.analyze.NfdumpDecoder;

/**
 * The inputs of `cheetah throughput`: transfers.v1 records (JSON lines, as the shippers in
 * ingest/transfers write them), host samples (hosts.csv) and the streams of nfcapd archives.
 * Whatever cannot be read is kept as a rejected.txt line ("reason: detail | input"), never dropped
 * silently.
 */
final class ThroughputInputs {
  static final String HOSTS_HEADER = "host,time_ms,cpu_percent,disk_percent,nic_percent,nic_bps";

  private static final ObjectMapper JSON = new ObjectMapper();

  final List<String> rejected = new ArrayList<>();

  /** Every transfers.v1 record of the *.jsonl files in {@code dir} (sorted by name). */
  List<Transfer> transfers(Path dir) throws IOException {
    List<Transfer> out = new ArrayList<>();
    for (Path f : files(dir, ".jsonl")) {
      List<String> lines = Files.readAllLines(f);
      for (int i = 0; i < lines.size(); i++) {
        String line = lines.get(i);
        if (line.isBlank()) {
          continue;
        }
        try {
          out.add(transfer(JSON.readTree(line)));
        } catch (IOException | IllegalArgumentException e) {
          rejected.add("bad_transfer: " + f + ":" + (i + 1) + ": " + e.getMessage() + " | " + line);
        }
      }
    }
    return out;
  }

  static Transfer transfer(JsonNode n) {
    if (n == null || !n.isObject()) {
      throw new IllegalArgumentException("a line must be a JSON object");
    }
    long start = whole(n, "start_ms");
    long end = whole(n, "end_ms");
    if (end < start) {
      throw new IllegalArgumentException("end_ms " + end + " is before start_ms " + start);
    }
    double seconds = n.path("seconds").asDouble(Double.NaN);
    if (!(seconds >= 0)) {
      throw new IllegalArgumentException("seconds must be a number >= 0");
    }
    return new Transfer(
        text(n, "src_host"),
        text(n, "dst_host"),
        text(n, "tool"),
        (int) Math.min(Integer.MAX_VALUE, optionalWhole(n, "streams")),
        whole(n, "bytes"),
        seconds,
        start,
        end,
        optionalWhole(n, "tcp_buffer_bytes"));
  }

  private static String text(JsonNode n, String field) {
    String s = n.path(field).asText("").trim();
    if (s.isEmpty()) {
      throw new IllegalArgumentException(field + " is missing or empty");
    }
    return s;
  }

  private static long whole(JsonNode n, String field) {
    JsonNode v = n.get(field);
    if (v == null || !(v.isIntegralNumber() || v.isTextual() && v.asText().matches("\\d+"))) {
      throw new IllegalArgumentException(field + " must be a whole number");
    }
    if (!new java.math.BigInteger(v.asText()).equals(java.math.BigInteger.valueOf(v.asLong()))) {
      throw new IllegalArgumentException(
          field + " " + v.asText() + " is too large (at most " + Long.MAX_VALUE + ")");
    }
    long x = v.asLong(-1);
    if (x < 0) {
      throw new IllegalArgumentException(field + " must be >= 0");
    }
    return x;
  }

  /** 0 when absent or null, else as {@link #whole}. */
  private static long optionalWhole(JsonNode n, String field) {
    JsonNode v = n.get(field);
    return v == null || v.isNull() ? 0 : whole(n, field);
  }

  /** DIR/hosts.csv if there is one (empty otherwise). */
  List<HostSample> hosts(Path dir) throws IOException {
    Path f = dir.resolve("hosts.csv");
    List<HostSample> out = new ArrayList<>();
    if (!Files.isRegularFile(f)) {
      return out;
    }
    List<String> lines = Files.readAllLines(f);
    if (lines.isEmpty() || !lines.get(0).trim().equals(HOSTS_HEADER)) {
      rejected.add(
          "bad_header: "
              + f
              + ":1: the header must be "
              + HOSTS_HEADER
              + " | "
              + (lines.isEmpty() ? "" : lines.get(0)));
      return out;
    }
    for (int i = 1; i < lines.size(); i++) {
      String line = lines.get(i);
      if (line.isBlank()) {
        continue;
      }
      String[] c = line.split(",", -1);
      try {
        if (c.length != 6 || c[0].isBlank()) {
          throw new IllegalArgumentException("6 columns with a host are needed, got " + c.length);
        }
        out.add(
            new HostSample(
                c[0].trim(),
                Long.parseLong(c[1].trim()),
                percent(c[2]),
                percent(c[3]),
                percent(c[4]),
                c[5].isBlank() ? 0 : Double.parseDouble(c[5].trim())));
      } catch (IllegalArgumentException e) {
        rejected.add(
            "bad_host_sample: " + f + ":" + (i + 1) + ": " + e.getMessage() + " | " + line);
      }
    }
    return out;
  }

  private static double percent(String s) {
    return s.isBlank() ? Double.NaN : Double.parseDouble(s.trim());
  }

  /** The streams of the nfcapd archives at {@code path} ({@link StreamStitcher}). */
  List<FlowStream> streams(Path path, String nfdump, long gapMs) throws Exception {
    for (Path a : NfdumpDecoder.archives(path)) {
      ArchiveFlows flows = new ArchiveFlows(1, 1024);
      try (NfcapdFile f = NfcapdFile.open(a)) {
        f.readAll(flows::record);
      } catch (IOException e) {
        // As analyze does: a file the native reader refuses is read whole through nfdump.
        flows = new ArchiveFlows(1, 1024);
        Optional<String> problem = new NfdumpDecoder(nfdump).lines(a, flows::line);
        if (problem.isPresent()) {
          rejected.add("unreadable_archive: " + problem.get() + " | " + a);
        }
      }
      rejected.addAll(flows.rejected());
      addAll(flows);
    }
    return StreamStitcher.stitch(read, gapMs);
  }

  private final List<Flow> read = new ArrayList<>();

  private void addAll(ArchiveFlows a) {
    for (int i = 0; i < a.size(0); i++) {
      read.add(a.flow(0, i));
    }
  }

  private static List<Path> files(Path dir, String suffix) throws IOException {
    if (!Files.isDirectory(dir)) {
      throw new IOException(
          dir + " is not a directory (--transfers names the shippers' output directory)");
    }
    try (Stream<Path> s = Files.list(dir)) {
      return s.filter(p -> p.getFileName().toString().endsWith(suffix) && Files.isRegularFile(p))
          .sorted()
          .toList();
    }
  }
}
