package net.cheetah.cli.simulate;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Optional;
import net.cheetah.simulator.Background;
import net.cheetah.simulator.CongestionControl;
import net.cheetah.simulator.ParetoBursts;
import net.cheetah.simulator.PortConfig;
import net.cheetah.simulator.Quantities;
import net.cheetah.simulator.RecordedBinsFile;
import net.cheetah.simulator.Scenario;
import net.cheetah.simulator.TcpCheetah;
import picocli.CommandLine.Option;

/** The model's options, shared by simulate, its report and its benchmark (picocli mixin). */
public final class StudyOptions {
  @Option(
      names = "--runs",
      paramLabel = "N",
      defaultValue = "60",
      description = "Seeded runs per parameter point (default: ${DEFAULT-VALUE}).")
  int runs;

  @Option(
      names = "--seed",
      paramLabel = "SEED",
      defaultValue = "1",
      description =
          "Base seed; run i uses a seed derived from it and i (default: ${DEFAULT-VALUE}).")
  long seed;

  @Option(
      names = "--duration-s",
      paramLabel = "S",
      defaultValue = "20",
      description = "Simulated seconds per run (default: ${DEFAULT-VALUE}).")
  double durationSeconds;

  @Option(
      names = "--warmup-s",
      paramLabel = "S",
      defaultValue = "2",
      description =
          "Seconds at the start of each run left out of every statistic"
              + " (default: ${DEFAULT-VALUE}).")
  double warmupSeconds;

  @Option(
      names = "--cc",
      paramLabel = "reno|htcp",
      defaultValue = "htcp",
      description = "Cheetah congestion control: reno or htcp (default: ${DEFAULT-VALUE}).")
  String cc;

  @Option(
      names = "--capacity",
      paramLabel = "BPS",
      defaultValue = "1G",
      description = "Port capacity C in bits/s (default: ${DEFAULT-VALUE}).")
  String capacity;

  @Option(
      names = "--buffers",
      paramLabel = "BYTES[,BYTES]",
      defaultValue = "5MB,5MB",
      description = "Primary and scavenger queue buffers in bytes (default: ${DEFAULT-VALUE}).")
  String buffers;

  @Option(
      names = "--bg-rate",
      paramLabel = "BPS",
      defaultValue = "200M",
      description = "Mean background rate r̄_bg in bits/s (default: ${DEFAULT-VALUE}).")
  String bgRate;

  @Option(
      names = "--hurst",
      paramLabel = "H",
      defaultValue = "0.5",
      description =
          "Hurst parameter h; burst durations are Pareto with shape 3 - 2h"
              + " (default: ${DEFAULT-VALUE}).")
  double hurst;

  @Option(
      names = "--burst-ms",
      paramLabel = "MS",
      defaultValue = "100",
      description = "Mean burst duration d in ms (default: ${DEFAULT-VALUE}).")
  double burstMs;

  @Option(
      names = "--bg-bins",
      paramLabel = "FILE",
      description =
          "Replay background from this file of recorded bins (one 'bytes' or"
              + " 'bytes,cheetah_bytes' line per bin) instead of Pareto bursts; --lambda is then"
              + " ignored.")
  Optional<Path> bgBins;

  @Option(
      names = "--bin-ms",
      paramLabel = "MS",
      defaultValue = "100",
      description =
          "T1: bin length of --bg-bins and of the burstiness measure, in ms"
              + " (default: ${DEFAULT-VALUE}).")
  double binMs;

  @Option(
      names = "--tcp-buffers",
      paramLabel = "BYTES[,BYTES]",
      defaultValue = "64MiB,64MiB",
      description =
          "Cheetah sender and receiver buffers in bytes; the window never exceeds the"
              + " smaller (default: ${DEFAULT-VALUE}).")
  String tcpBuffers;

  @Option(
      names = "--nic",
      paramLabel = "BPS",
      defaultValue = "10G",
      description =
          "Cheetah NIC rate in bits/s; paces the flow when no rate limit is set"
              + " (default: ${DEFAULT-VALUE}).")
  String nic;

  @Option(
      names = "--threads",
      paramLabel = "N",
      description =
          "Threads running the runs of a point (default: all cores). Results do not"
              + " depend on it.")
  Optional<Integer> threads;

  /** Checks the options that every point shares before any output is printed. */
  void validate() {
    congestionControl();
    port();
    cheetah(0, 1);
    if (runs < 1) {
      throw new IllegalArgumentException("--runs must be >= 1, got " + runs);
    }
    if (threadCount() < 1) {
      throw new IllegalArgumentException("--threads must be >= 1, got " + threadCount());
    }
  }

  int threadCount() {
    return threads.orElse(Runtime.getRuntime().availableProcessors());
  }

  CongestionControl congestionControl() {
    return switch (cc.toLowerCase(Locale.ROOT)) {
      case "reno" -> CongestionControl.RENO;
      case "htcp", "h-tcp" -> CongestionControl.HTCP;
      default ->
          throw new IllegalArgumentException(
              "--cc: '" + cc + "' is not a congestion control; use reno or htcp");
    };
  }

  PortConfig port() {
    long[] b = pair(buffers, "--buffers");
    return new PortConfig(Quantities.parse(capacity, "--capacity"), b[0], b[1]);
  }

  Background background(double lambda) throws IOException {
    if (bgBins.isPresent()) {
      return RecordedBinsFile.read(bgBins.get(), binMs / 1e3, 1500);
    }
    return new ParetoBursts(
        Quantities.parse(bgRate, "--bg-rate"), lambda, hurst, burstMs / 1e3, 1500);
  }

  TcpCheetah cheetah(double rateBps, double rttMs) {
    long[] b = pair(tcpBuffers, "--tcp-buffers");
    return new TcpCheetah(
        rateBps,
        rttMs / 1e3,
        congestionControl(),
        b[0],
        b[1],
        Quantities.parse(nic, "--nic"),
        1500);
  }

  Scenario scenario(Background bg, Optional<TcpCheetah> cheetah, boolean redirect) {
    return new Scenario(port(), bg, cheetah, redirect, durationSeconds, warmupSeconds, binMs / 1e3);
  }

  String describe() {
    String bg =
        bgBins
            .map(p -> "replayed bins from " + p)
            .orElse(
                String.format(
                    Locale.ROOT, "Pareto bursts r_bg=%s b/s h=%s d=%s ms", bgRate, hurst, burstMs));
    return String.format(
        Locale.ROOT,
        "C=%s b/s, buffers %s B, %s, cc=%s, %s s runs (%s s warm-up), %d runs per point, seed %d,"
            + " %d threads",
        capacity,
        buffers,
        bg,
        cc,
        durationSeconds,
        warmupSeconds,
        runs,
        seed,
        threadCount());
  }

  private static long[] pair(String text, String what) {
    String[] parts = text.split(",");
    if (parts.length > 2) {
      throw new IllegalArgumentException(what + ": give one or two sizes, as in 5MB,5MB");
    }
    long first = (long) Quantities.parse(parts[0], what);
    long second = parts.length == 2 ? (long) Quantities.parse(parts[1], what) : first;
    return new long[] {first, second};
  }
}
