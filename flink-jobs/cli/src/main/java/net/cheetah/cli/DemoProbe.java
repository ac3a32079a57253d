package net.cheetah.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Consumer;
import net.cheetah.config.CheetahConfig;

/**
 * The demo's packet side: a generated backbone trace of a few minutes (the study's link, C = 1 Gb/s
 * with ~200 Mb/s of background, plus injected cheetahs) replayed through the real DPDK probe into
 * the stack's broker. Its bins feed link statistics, thresholds and the NOC's link charts; its
 * cheetahs are the probe's cheetahs.v1 events.
 */
final class DemoProbe {
  static final String LINK = "demo-link";
  static final String PROBE = "demo-probe";

  /** The probe's Kafka principal on a secure cluster (helm/gen_chart_data.py USERS). */
  static final String PRINCIPAL = "cheetah-probe";

  /** The trace: 4 % of the full CAIDA-like load (~196 Mb/s), 5 minutes. */
  static final double SCALE = 0.04;

  static final int SECONDS = 300;
  static final double RATE_THRESHOLD_BPS = 5e8;

  /**
   * Link statistics often enough to draw over 5 minutes of bins (defaults: hourly windows, a
   * sliding update every 5 min, 2 min lateness); the link is the study's 1 Gb/s. R comes from loss
   * tables the simulator builds in the running stack, with a plan small enough to take seconds
   * (defaults: 18 rates, 20 runs of 20 s, over a minute of CPU per table).
   */
  static final Map<String, String> LINK_SETTINGS =
      Map.of(
          "link-stats.sliding-every-ms", "30000",
          "link-stats.lateness-ms", "5000",
          "link-stats.capacity-bps", "1e9",
          "thresholds.mode", "table",
          "thresholds.table-rates", "0.1..0.9:0.1",
          "thresholds.table-runs", "2",
          "thresholds.table-seconds", "5");

  private final Tools tools;
  private final CheetahConfig.LinkStats linkStats;
  private final Consumer<String> say;

  /**
   * @param linkStats the link-statistics job's settings: the probe's bins are its T1
   */
  DemoProbe(Tools tools, CheetahConfig.LinkStats linkStats, Consumer<String> say) {
    this.tools = tools;
    this.linkStats = linkStats;
    this.say = say;
  }

  /**
   * Generates the trace from {@code startEpochS} on and replays it into {@code bootstrap}; returns
   * the probe's summary.json. The pcap is deleted afterwards (hundreds of MB); its truth file is
   * kept.
   */
  Path run(
      Path dir, String bootstrap, java.util.Optional<Path> kafkaConfig, long seed, long startEpochS)
      throws IOException, InterruptedException {
    Files.createDirectories(dir);
    Path pcap = dir.resolve("trace.pcap");
    say.accept(
        String.format(
            Locale.ROOT,
            "probe: generating %d s of link traffic (%.0f %% of a CAIDA-like 10 Gb/s minute)",
            SECONDS,
            SCALE * 100));
    exec(
        dir.resolve("tracegen.log"),
        tools.built("cheetah-tracegen").toString(),
        "--out",
        pcap.toString(),
        "--truth",
        dir.resolve("truth.json").toString(),
        "--seed",
        Long.toString(seed),
        "--scale",
        Double.toString(SCALE),
        "--seconds",
        Integer.toString(SECONDS),
        "--rate-threshold",
        Double.toString(RATE_THRESHOLD_BPS),
        "--cheetahs",
        "8",
        "--start-epoch",
        Long.toString(startEpochS));
    say.accept("probe: replaying it through cheetah-probe (DPDK net_pcap) into Kafka");
    Path out = dir.resolve("run");
    try {
      List<String> cmd = new java.util.ArrayList<>();
      kafkaConfig.ifPresent(f -> cmd.addAll(List.of("--kafka-config", f.toString())));
      exec(
          dir.resolve("probe.log"),
          cmd,
          tools.built("cheetah-probe").toString(),
          "--pcap",
          pcap.toString(),
          "--out",
          out.toString(),
          "--kafka",
          bootstrap,
          "--link-id",
          LINK,
          "--probe-id",
          PROBE,
          // The link-stats job reads probe.bins.v1 as bins of T1 (link-stats.t1-ms).
          "--bin-ms",
          Long.toString(linkStats.t1Ms()),
          "--rate-threshold",
          Double.toString(RATE_THRESHOLD_BPS),
          // The replay takes about a second: a snapshot every 100 ms draws its counters.
          "--counters-ms",
          "100");
    } finally {
      Files.deleteIfExists(pcap);
    }
    return out.resolve("summary.json");
  }

  /** {@link #exec(Path, String...)} with {@code extra} arguments after {@code cmd}'s. */
  private static void exec(Path log, List<String> extra, String... cmd)
      throws IOException, InterruptedException {
    List<String> all = new java.util.ArrayList<>(List.of(cmd));
    all.addAll(extra);
    exec(log, all.toArray(String[]::new));
  }

  private static void exec(Path log, String... cmd) throws IOException, InterruptedException {
    Process p =
        new ProcessBuilder(List.of(cmd))
            .redirectErrorStream(true)
            .redirectOutput(log.toFile())
            .start();
    int rc = p.waitFor();
    if (rc != 0) {
      List<String> tail = Files.readAllLines(log);
      throw new IllegalStateException(
          Path.of(cmd[0]).getFileName()
              + " failed (exit "
              + rc
              + "); its log, "
              + log
              + ", ends:\n  "
              + String.join("\n  ", tail.subList(Math.max(0, tail.size() - 10), tail.size())));
    }
  }
}
