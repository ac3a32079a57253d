package net.cheetah.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import net.cheetah.config.CheetahConfig;
import net.cheetah.config.CheetahConfig.Detection;
import net.cheetah.jobs.ConfigOptions;
import net.cheetah.runtime.TimeBase;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

@Command(
    name = "demo",
    mixinStandardHelpOptions = true,
    description = {
      "Start the embedded stack on free loopback ports, export the built-in synthetic workload",
      "(a research site's traffic: mice, real-time flows, and dataset transfers as parallel",
      "flowsets of 1-16 TCP flows) as real NetFlow v9 (or IPFIX) to goflow2, wait until every",
      "result is stored, check the stored cheetahs and flowsets against the generator's ground",
      "truth, print the report, and stop. Exit 0 only if everything matched.",
      "It also replays 5 minutes of a generated backbone link through the DPDK probe into the",
      "stack, so link statistics, burstiness and the rate threshold R fill the NOC's charts.",
      "Data goes to a fresh directory next to data-dir (default .cheetah/demo), kept afterwards:",
      "  ./cheetah sql --set data-dir=.cheetah/demo \"SELECT * FROM flowsets FINAL LIMIT 5\""
    })
class DemoCommand implements Callable<Integer> {
  @Option(
      names = "--seed",
      defaultValue = "42",
      description = "Workload seed (default ${DEFAULT-VALUE}).")
  long seed;

  @Option(names = "--ipfix", description = "Export IPFIX instead of NetFlow v9.")
  boolean ipfix;

  @Option(
      names = "--sampling",
      defaultValue = "1",
      description = "Exporter packet sampling 1:N (default ${DEFAULT-VALUE}).")
  int sampling;

  @Option(
      names = "--rate",
      defaultValue = "0",
      description =
          "Flow records per second sent to goflow2; 0 (the default): no fixed pace, as fast as"
              + " goflow2 takes the datagrams in (flow control on its own counters, never more in"
              + " flight than half its UDP receive buffer holds, so the kernel cannot drop them).")
  double rate;

  @Option(
      names = "--transfers",
      defaultValue = "40",
      description = "Dataset transfers in the workload (default ${DEFAULT-VALUE}).")
  int transfers;

  @Option(
      names = "--timeout",
      defaultValue = "PT6M",
      description = "Longest wait for results after the export (default ${DEFAULT-VALUE}).")
  Duration timeout;

  @Mixin ConfigOptions config;

  /**
   * The demo's exporter (goflow2 sees it as 127.0.0.1) is the ingress of one device, so its
   * cheetahs become redirect decisions and its α flows /24 prefix filters; one site is protected
   * and K (5) is below the truth's 6 unprotected /24 pairs, whose filters stay 30 days, so the
   * audit always shows both guardrails refusing. --set overrides any of them.
   */
  static final String DEVICE = "demo-router";

  static final Map<String, String> DEMO_REDIRECTS =
      Map.of(
          "redirects.link-devices", "127.0.0.1=" + DEVICE,
          "redirects.protected-prefixes", "198.18.6.0/24",
          "redirects.max-rules-per-device", "5",
          "redirects.prefix-filter-length", "24");

  /**
   * The jobs start well before the first flows reach flows.v1 (the probe's replay runs first, ~30 s
   * on a loaded machine). A partition without records counts as idle after the first-record hold
   * (by default the idle advance, 30 s); if both are idle when the first transaction commits
   * records to both, the partition read first drives event time alone and the other's first flows
   * come minutes late in the workload's fast virtual time, splitting their flowsets. The workload
   * fills every partition, so a long hold costs nothing.
   */
  static final Map<String, String> DEMO_EVENT_TIME =
      Map.of("detection.first-record-hold-ms", "600000");

  /**
   * The demo's own settings (redirects, link statistics, event time), under the user's --config and
   * --set.
   */
  static Map<String, String> demoDefaults() {
    Map<String, String> defaults = new java.util.HashMap<>(DEMO_REDIRECTS);
    defaults.putAll(DemoProbe.LINK_SETTINGS);
    defaults.putAll(DEMO_EVENT_TIME);
    return defaults;
  }

  @Override
  public Integer call() throws Exception {
    CheetahConfig cfg = config.load(demoDefaults());
    Tools tools = Tools.fromEnvironment();
    Path data = cfg.dataDir().toAbsolutePath().resolveSibling("demo");
    wipe(data);
    long t0 = System.nanoTime();
    try (Stack stack = new Stack(cfg, tools, data, true, s -> say(s))) {
      stack.start();
      return run(cfg, tools, data, stack, t0);
    }
  }

  /**
   * Called once the export of the workload is about to start (the cluster's fault tests kill a
   * process while it flows).
   */
  void exportStarting(RunningStack stack) throws Exception {}

  /** Called once every record of the workload was sent. */
  void exportDone() {}

  /** More generator flags (the chaos soak sends templates in every datagram). */
  List<String> generatorArgs() {
    return List.of();
  }

  /** The check of the jobs' restart counts: none, where nothing was killed. */
  DemoChecks.Check restartsCheck(Map<String, Long> restarts) {
    return noRestarts(restarts);
  }

  /**
   * The workload and the truth check on a running pipeline ({@code data}: where the truth and the
   * probe's files go); 0 if every check passed.
   */
  final int run(CheetahConfig cfg, Tools tools, Path data, RunningStack stack, long t0)
      throws Exception {
    {
      WarehouseClient wh = new WarehouseClient(stack.warehouseUrl());
      // Copies of a result stay visible to the stored-once check (StoredOnce).
      StoredOnce.stopMerges(tools, wh);
      say(String.format(Locale.ROOT, "stack up in %.1f s", (System.nanoTime() - t0) / 1e9));
      long timeBase = timeBase();
      // The probe's link traffic lies inside the NetFlow workload's span, so every NOC chart
      // shows one time range.
      Path probeSummary =
          new DemoProbe(tools, cfg.linkStats(), DemoCommand::say)
              .run(
                  data.resolve("probe"),
                  stack.bootstrap(),
                  stack.librdkafkaConfig(DemoProbe.PRINCIPAL),
                  seed,
                  timeBase / 1000 + 1800);
      Path probeTruth = data.resolve("probe").resolve("truth.json");
      Path truth = data.resolve("truth");
      exportStarting(stack);
      generate(
          tools,
          cfg.detection(),
          stack.netflowPort(),
          stack.collectorMetricsUrl(),
          truth,
          timeBase);
      exportDone();
      int expectedFlowsets = rows(truth.resolve("flowsets.csv"));
      int expectedCheetahs = rows(truth.resolve("cheetahs.csv"));
      long[] last = waitForResults(stack, tools, wh, expectedCheetahs, expectedFlowsets);
      long[] link = waitForLinkResults(stack, tools, wh);
      // Counts can pause while the warehouse is busy: compare only once it consumed everything
      // committed (its offsets at the topics' ends).
      long lag = stack.awaitWarehouseCaughtUp(timeout);
      if (lag != 0) {
        say("warning: the warehouse is " + lag + " committed records behind after " + timeout);
      }
      last = progress(tools, wh);
      say(
          String.format(
              Locale.ROOT, "results stored %.1f s after start", (System.nanoTime() - t0) / 1e9));
      report(tools, stack.warehouseUrl(), truth);
      List<DemoChecks.Check> checks = new ArrayList<>();
      TruthCheck.Outcome c =
          TruthCheck.cheetahs(
              TruthCheck.read(truth.resolve("cheetahs.csv")),
              lines(wh.query(query(tools, "demo_cheetahs.sql"))));
      checks.add(outcome(c, c.summary("cheetah flows"), "cheetah "));
      TruthCheck.Outcome f =
          TruthCheck.flowsets(
              TruthCheck.read(truth.resolve("flowsets.csv")),
              lines(wh.query(query(tools, "demo_flowsets.sql"))));
      checks.add(outcome(f, f.summary("flowsets"), "flowset "));
      TruthCheck.Outcome m =
          TruthCheck.members(
              TruthCheck.read(truth.resolve("flowset_members.csv")),
              lines(wh.query(query(tools, "demo_flowset_members.sql"))));
      checks.add(
          outcome(
              m, m.matched() + "/" + m.expected() + " flowsets have the truth's member flows", ""));
      long sent = recordsSent(truth);
      List<StoredOnce.Count> once =
          storedOnceCounts(
              tools, wh, stack.bootstrap(), stack.kafkaSecurity(KafkaPrincipals.ADMIN));
      long inKafka = once.get(0).items(); // flows.v1, read committed
      List<String> recordDiffs = new ArrayList<>();
      if (last[0] != sent) {
        recordDiffs.add(String.format(Locale.ROOT, "%,d records stored, %,d sent", last[0], sent));
      }
      if (last[3] != 0) {
        recordDiffs.add(
            String.format(
                Locale.ROOT,
                "%,d records rejected: ./cheetah sql --set data-dir=%s \"SELECT stage, reason,"
                    + " count() FROM rejected GROUP BY ALL\"",
                last[3],
                data));
      }
      if (inKafka > last[0]) {
        recordDiffs.add(
            String.format(
                Locale.ROOT,
                "%,d records are in flows.v1 but not in the warehouse",
                inKafka - last[0]));
      }
      if (inKafka + last[3] < sent) {
        recordDiffs.add(
            String.format(
                Locale.ROOT,
                "%,d records never reached Kafka: %s datagrams were dropped by the kernel before"
                    + " goflow2 read them (its UDP receive buffer was full; %s). Missing records"
                    + " split flows, so results differ.",
                sent - inKafka - last[3],
                kernelDrops(stack),
                rate > 0
                    ? "run again with a lower --rate, or --rate 0"
                    : "raise netflow.receive-buffer-bytes"));
      }
      checks.add(
          new DemoChecks.Check(
              String.format(
                  Locale.ROOT,
                  "%,d flow records stored of %,d sent, %,d rejected",
                  last[0],
                  sent,
                  last[3]),
              recordDiffs));
      String info =
          String.format(
              Locale.ROOT,
              "probe on %s: %,d link bins, %,d link statistics, %,d thresholds published (%,d from"
                  + " simulated loss tables), %,d counter snapshots (summary: %s)",
              DemoProbe.LINK,
              link[0],
              link[1],
              link[2],
              link[4],
              link[3],
              probeSummary);
      checks.add(
          DemoChecks.probe(
              probeTruth,
              lines(wh.query(query(tools, "demo_probe_cheetahs.sql"))),
              lines(wh.query(query(tools, "demo_probe_thresholds.sql"))),
              DemoProbe.LINK,
              DemoProbe.RATE_THRESHOLD_BPS));
      checks.add(
          DemoChecks.guardrails(
              TruthCheck.read(truth.resolve("cheetahs.csv")),
              lines(wh.query(query(tools, "demo_redirect_decisions.sql"))),
              DEVICE,
              cfg.redirects().settings().protectedPrefixes().stream()
                  .map(Object::toString)
                  .collect(java.util.stream.Collectors.joining(",")),
              cfg.redirects().settings().maxRulesPerDevice(),
              cfg.redirects().settings().prefixFilterLength()));
      checks.add(storedOnce(once));
      checks.add(restartsCheck(stack.jobRestarts()));
      System.out.println();
      System.out.println("Ground truth check (the generator's own model, computed independently):");
      for (int i = 0; i < checks.size(); i++) {
        if (i == 4) {
          System.out.println("  " + info); // what the link side stored, before its checks
        }
        DemoChecks.Check k = checks.get(i);
        System.out.println((k.ok() ? "  " : "  FAILED: ") + k.line());
        k.differences().stream().limit(10).forEach(d -> System.out.println("      " + d));
        if (k.differences().size() > 10) {
          System.out.println("      ... " + (k.differences().size() - 10) + " more");
        }
      }
      long failed = checks.stream().filter(k -> !k.ok()).count();
      System.out.println(
          failed == 0
              ? "  all " + checks.size() + " checks passed"
              : "  " + failed + " of " + checks.size() + " checks FAILED");
      stack.finish(Duration.ofSeconds(30));
      say(
          String.format(
              Locale.ROOT,
              "done in %.1f s; data kept in %s",
              (System.nanoTime() - t0) / 1e9,
              data));
      return failed == 0 ? 0 : 1;
    }
  }

  private static DemoChecks.Check outcome(TruthCheck.Outcome o, String line, String prefix) {
    return new DemoChecks.Check(
        line, o.ok() && o.differences().isEmpty() ? List.of() : withSummary(o, prefix));
  }

  private static List<String> withSummary(TruthCheck.Outcome o, String prefix) {
    List<String> d = new ArrayList<>();
    o.differences().forEach(x -> d.add(prefix + x));
    if (d.isEmpty()) {
      d.add(o.summary("rows")); // counts differ without a listed difference
    }
    return d;
  }

  /**
   * The NetFlow results and link statistics per key: their topics first (flows.v1, cheetahs.v1,
   * flowsets.v1, links.stats.v1), then their tables.
   */
  private static List<StoredOnce.Count> storedOnceCounts(
      Tools tools, WarehouseClient wh, String bootstrap, Map<String, String> security)
      throws IOException, InterruptedException {
    return StoredOnce.count(
        tools,
        wh,
        bootstrap,
        security,
        List.of(
            StoredOnce.Result.FLOWS,
            StoredOnce.Result.CHEETAHS,
            StoredOnce.Result.FLOWSETS,
            StoredOnce.Result.LINK_STATS));
  }

  /** No key twice on the NetFlow results' topics, nor in their tables without FINAL. */
  /**
   * Every job ran without a restart: exactly-once recovery would hide a crash from every other
   * check, so a restart in a demo nothing killed is a failure of its own.
   */
  static DemoChecks.Check noRestarts(Map<String, Long> restarts) {
    List<String> diffs =
        restarts.entrySet().stream()
            .filter(e -> e.getValue() != 0)
            .map(e -> e.getKey() + " restarted " + e.getValue() + " time(s) (its log: data/logs)")
            .toList();
    if (restarts.isEmpty()) {
      diffs = List.of("no job's restart count could be read from the Flink REST API");
    }
    return new DemoChecks.Check(
        String.format(
            Locale.ROOT,
            "restarts: %d Flink jobs, %d restarted",
            restarts.size(),
            restarts.values().stream().filter(n -> n != 0).count()),
        diffs);
  }

  private static DemoChecks.Check storedOnce(List<StoredOnce.Count> counts) {
    List<String> diffs = counts.stream().filter(k -> !k.ok()).map(StoredOnce.Count::line).toList();
    // StoredOnce.count lists the topics first, in the order of the results.
    return new DemoChecks.Check(
        String.format(
            Locale.ROOT,
            "stored once: %,d flow records, %,d cheetah events, %,d flowsets, %,d link statistics;"
                + " no key twice on their topics or in their tables (without FINAL)",
            counts.get(0).items(),
            counts.get(1).items(),
            counts.get(2).items(),
            counts.get(3).items()),
        diffs);
  }

  /** The workload's virtual time: recent, so that its data is inside every table's TTL. */
  static long timeBase() {
    return TimeBase.recent();
  }

  /**
   * The detection definition (H, I, tau, G, active timeout) as the generator's flags, so that its
   * ground truth is computed with the values the stack runs with.
   */
  static List<String> definitionArgs(Detection d) {
    return List.of(
        "--h-bytes",
        Long.toString(d.hBytes()),
        "--interval-s",
        Double.toString(d.intervalMs() / 1000.0),
        "--tau-s",
        Double.toString(d.tauMs() / 1000.0),
        "--gap-s",
        Double.toString(d.gapMs() / 1000.0),
        "--active-timeout",
        Double.toString(d.activeTimeoutMs() / 1000.0));
  }

  /** Datagrams the kernel dropped at goflow2's socket so far (its metric), or "?" if unreadable. */
  private static String kernelDrops(RunningStack stack) {
    java.util.OptionalLong n =
        CollectorMetrics.read(stack.collectorMetricsUrl(), CollectorMetrics.KERNEL_DROPS);
    return n.isPresent() ? String.format(Locale.ROOT, "%,d", n.getAsLong()) : "?";
  }

  private void generate(
      Tools tools, Detection d, int port, String collectorMetrics, Path truth, long timeBase)
      throws Exception {
    List<String> cmd =
        new ArrayList<>(
            List.of(
                tools.python().toString(),
                "-m",
                "cheetah_generator",
                "netflow",
                "--target",
                "127.0.0.1:" + port,
                "--version",
                ipfix ? "10" : "9",
                "--seed",
                Long.toString(seed),
                "--time-base",
                Long.toString(timeBase),
                "--sampling",
                Integer.toString(sampling),
                "--transfers",
                Integer.toString(transfers),
                "--truth",
                truth.toString()));
    cmd.addAll(definitionArgs(d));
    cmd.addAll(generatorArgs());
    // No fixed pace by default: the generator keeps at most a window of datagrams ahead of what
    // goflow2 has taken in (its counters), a window its granted receive buffer holds whole.
    cmd.addAll(
        rate > 0
            ? List.of("--rate", Double.toString(rate))
            : List.of("--follow", collectorMetrics));
    say(
        "exporting the synthetic workload ("
            + (ipfix ? "IPFIX" : "NetFlow v9")
            + ", seed "
            + seed
            + (rate > 0
                ? String.format(Locale.ROOT, ", paced at %,.0f records/s", rate)
                : ", as fast as goflow2 takes it in: no fixed pace, flow control on its counters")
            + ")");
    ProcessBuilder pb =
        new ProcessBuilder(cmd)
            .redirectOutput(ProcessBuilder.Redirect.DISCARD)
            .redirectError(ProcessBuilder.Redirect.INHERIT);
    pb.environment().put("PYTHONPATH", tools.home().resolve("ingest/generator").toString());
    int rc = pb.start().waitFor();
    if (rc != 0) {
      throw new IllegalStateException("the workload generator failed (exit " + rc + ")");
    }
  }

  private static long[] progress(Tools tools, WarehouseClient wh)
      throws IOException, InterruptedException {
    return Arrays.stream(wh.query(query(tools, "demo_progress.sql")).trim().split("\t"))
        .mapToLong(Long::parseLong)
        .toArray();
  }

  /** Polls the warehouse until the expected results are stored and counts stop changing. */
  private long[] waitForResults(
      RunningStack stack, Tools tools, WarehouseClient wh, int cheetahs, int flowsets)
      throws Exception {
    say(
        "waiting for the pipeline: expecting "
            + cheetahs
            + " cheetah flows and "
            + flowsets
            + " flowsets");
    String q = query(tools, "demo_progress.sql");
    long deadline = System.nanoTime() + timeout.toNanos();
    long[] prev = null;
    int stable = 0;
    while (true) {
      stack.requireJobsRunning(); // a job that failed for good never delivers: stop now, loudly
      long[] now = Arrays.stream(wh.query(q).split("\t")).mapToLong(Long::parseLong).toArray();
      System.err.printf(
          Locale.ROOT,
          "\rdemo: stored %,d flow records | %d/%d cheetah flows | %d/%d flowsets | %,d rejected"
              + " | %s kernel drops   ",
          now[0],
          now[1],
          cheetahs,
          now[2],
          flowsets,
          now[3],
          kernelDrops(stack));
      stable = Arrays.equals(now, prev) ? stable + 1 : 0;
      prev = now;
      if (now[1] >= cheetahs && now[2] >= flowsets && stable >= 2) {
        System.err.println();
        return now;
      }
      if (System.nanoTime() > deadline) {
        System.err.println();
        say("timed out after " + timeout + " waiting for results; reporting what is stored");
        return now;
      }
      Thread.sleep(1000);
    }
  }

  /**
   * Waits until the probe's bins are stored and have become link statistics and a threshold (the
   * link-stats and threshold jobs, then the warehouse), one of them from a simulated loss table,
   * and its counters are stored; returns {bins, link stats, thresholds, counter snapshots, table
   * thresholds}.
   */
  private long[] waitForLinkResults(RunningStack stack, Tools tools, WarehouseClient wh)
      throws Exception {
    String q = query(tools, "demo_link_progress.sql");
    long deadline = System.nanoTime() + timeout.toNanos();
    long[] now;
    do {
      stack.requireJobsRunning();
      now = Arrays.stream(wh.query(q).trim().split("\t")).mapToLong(Long::parseLong).toArray();
      if (Arrays.stream(now).allMatch(n -> n > 0)) {
        return now;
      }
      Thread.sleep(1000);
    } while (System.nanoTime() < deadline);
    throw new IllegalStateException(
        String.format(
            Locale.ROOT,
            "the probe's link results did not arrive within %s: %d bins, %d link statistics, %d"
                + " thresholds (%d from loss tables), %d counter snapshots stored (logs in the"
                + " data directory)",
            timeout,
            now[0],
            now[1],
            now[2],
            now[4],
            now[3]));
  }

  private void report(Tools tools, String url, Path truth) throws Exception {
    Path sites = truth.resolve("sites.json");
    if (Files.exists(sites)) {
      // The site dictionary, and the per-site rollups recomputed with it (dashboards use both).
      warehouse(tools, "loading the demo's sites", "sites", "--url", url, sites.toString());
      warehouse(tools, "the report", "report", "--url", url, "--sites", sites.toString());
    } else {
      warehouse(tools, "the report", "report", "--url", url);
    }
  }

  private static void warehouse(Tools tools, String what, String... args) throws Exception {
    List<String> cmd =
        new ArrayList<>(List.of(tools.python().toString(), "-m", "cheetah_warehouse"));
    cmd.addAll(List.of(args));
    ProcessBuilder pb = new ProcessBuilder(cmd).inheritIO();
    pb.environment().put("PYTHONPATH", tools.home().resolve("clickhouse/warehouse").toString());
    int rc = pb.start().waitFor();
    if (rc != 0) {
      throw new IllegalStateException(what + " failed (exit " + rc + ")");
    }
  }

  /** Records the generator exported (truth.json totals.records). */
  private static long recordsSent(Path truth) throws IOException {
    return new com.fasterxml.jackson.databind.ObjectMapper()
        .readTree(truth.resolve("truth.json").toFile())
        .path("totals")
        .path("records")
        .asLong();
  }

  static String query(Tools tools, String file) throws IOException {
    return Files.readString(tools.home().resolve("clickhouse/queries").resolve(file));
  }

  private static List<String> lines(String s) {
    return s.isBlank() ? List.of() : Arrays.asList(s.split("\n"));
  }

  private static int rows(Path csv) throws IOException {
    return (int) Files.readAllLines(csv).stream().filter(l -> !l.isBlank()).count() - 1;
  }

  static void say(String s) {
    System.err.println("demo: " + s);
  }

  static void wipe(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return;
    }
    try (var s = Files.walk(dir)) {
      for (Path p : s.sorted(java.util.Comparator.reverseOrder()).toList()) {
        Files.delete(p);
      }
    }
  }
}
