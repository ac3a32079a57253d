package net.cheetah.config;

import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.TreeMap;

/**
 * The one typed configuration of Cheetah. Every default of the definitions (docs/ARCHITECTURE.md,
 * "Definitions and defaults") lives here and only here; components receive the section they need.
 * Values come from defaults, then an optional properties file, then {@code key=value} overrides
 * (e.g. {@code --set detection.h-bytes=2e9}).
 */
public record CheetahConfig(
    Detection detection,
    Kafka kafka,
    Flink flink,
    Netflow netflow,
    Warehouse warehouse,
    LinkStats linkStats,
    Redirects redirects,
    Thresholds thresholds,
    Path dataDir) {

  /** Definitions of docs/ARCHITECTURE.md ("NetFlow cheetah", "Parallel flowset"). */
  public record Detection(
      long hBytes,
      long intervalMs,
      long gapMs,
      long tauMs,
      long flowsetLatenessMs,
      long outOfOrdernessMs,
      long idleAdvanceMs,
      long activeTimeoutMs)
      implements java.io.Serializable {
    public Detection {
      require(hBytes > 0, "detection.h-bytes must be > 0, got " + hBytes);
      require(intervalMs > 0, "detection.interval-ms must be > 0, got " + intervalMs);
      require(gapMs >= 0, "detection.gap-ms must be >= 0, got " + gapMs);
      require(tauMs >= 0, "detection.tau-ms must be >= 0, got " + tauMs);
      require(flowsetLatenessMs >= 0, "detection.flowset-lateness-ms must be >= 0");
      require(outOfOrdernessMs >= 0, "detection.out-of-orderness-ms must be >= 0");
      require(idleAdvanceMs >= 0, "detection.idle-advance-ms must be >= 0 (0 disables)");
      require(activeTimeoutMs >= 0, "detection.active-timeout-ms must be >= 0");
    }
  }

  /** The broker: in-JVM in embedded mode, or an external bootstrap list in distributed mode. */
  public record Kafka(String bootstrap, int port, int controllerPort, int partitions) {}

  public record Flink(int restPort, int slots, long checkpointIntervalMs, Restarts restarts) {}

  /**
   * How a failing job is restarted (README, "Restarts"): after a failure the job waits {@code
   * initialDelayMs}, doubled after each further failure up to {@code maxDelayMs}, and fails for
   * good after {@code attempts} restarts in a row; a job that then runs {@code resetAfterMs}
   * without failing gets its attempts and delay back. 0 attempts: the first failure fails the job.
   */
  public record Restarts(int attempts, long initialDelayMs, long maxDelayMs, long resetAfterMs) {
    public Restarts {
      require(
          attempts >= 0, "flink.restart-attempts must be >= 0 (0: never restart), got " + attempts);
      require(initialDelayMs >= 1, "flink.restart-delay-ms must be >= 1, got " + initialDelayMs);
      require(
          maxDelayMs >= initialDelayMs,
          "flink.restart-max-delay-ms must be >= flink.restart-delay-ms ("
              + initialDelayMs
              + "), got "
              + maxDelayMs);
      require(resetAfterMs >= 1, "flink.restart-reset-after-ms must be >= 1, got " + resetAfterMs);
    }
  }

  /** The NetFlow/IPFIX listener (goflow2) and its metrics endpoint. */
  public record Netflow(int udpPort, int metricsPort) {}

  public record Warehouse(int httpPort) {}

  /**
   * Link statistics (docs/ARCHITECTURE.md, "Burstiness"): T1 bins over T2 windows aligned to the
   * hour, a sliding T2 window every {@code slidingEveryMs}, computed once bins up to a window's end
   * plus {@code latenessMs} have been seen. {@code capacityBps} is C for links whose SNMP
   * ifHighSpeed is not known.
   */
  public record LinkStats(
      long t1Ms, long t2Ms, long slidingEveryMs, long latenessMs, double capacityBps)
      implements java.io.Serializable {
    public LinkStats {
      require(t1Ms > 0, "link-stats.t1-ms must be > 0, got " + t1Ms);
      require(
          t2Ms >= t1Ms && t2Ms % t1Ms == 0,
          "link-stats.t2-ms must be a positive multiple of link-stats.t1-ms, got " + t2Ms);
      require(
          slidingEveryMs >= 0 && slidingEveryMs % t1Ms == 0,
          "link-stats.sliding-every-ms must be 0 (off) or a multiple of link-stats.t1-ms, got "
              + slidingEveryMs);
      require(latenessMs >= 0, "link-stats.lateness-ms must be >= 0, got " + latenessMs);
      require(capacityBps > 0, "link-stats.capacity-bps must be > 0, got " + capacityBps);
    }
  }

  /**
   * The redirect job (docs/ARCHITECTURE.md, "Redirect commands"; docs/REDIRECTS.md). {@code
   * keysFile} empty = {@code data-dir/keys/redirects.json}, created with a fresh key on first
   * start.
   */
  public record Redirects(
      String linkDevices,
      String monitoredLinks,
      String protectedPrefixes,
      int maxRulesPerDevice,
      int maxNewRulesPerMinute,
      long ruleTtlMs,
      boolean dryRun,
      int dscp,
      String keysFile,
      int prefixFilterLength,
      long prefixFilterAgeMs)
      implements java.io.Serializable {

    public Redirects {
      require(
          prefixFilterLength == 0 || prefixFilterLength == 24 || prefixFilterLength == 32,
          "redirects.prefix-filter-length must be 0 (off), 24 (IPv4 /24, IPv6 /48) or 32 (host"
              + " pairs), got "
              + prefixFilterLength);
      require(
          prefixFilterAgeMs >= 1
              && prefixFilterAgeMs
                  <= net.cheetah.core.redirect.RedirectSettings.MAX_PREFIX_FILTER_AGE_MS,
          "redirects.prefix-filter-age-ms must be 1.."
              + net.cheetah.core.redirect.RedirectSettings.MAX_PREFIX_FILTER_AGE_MS
              + " (30 days: adapters rebuild their rules from redirects.commands.v1, kept 31"
              + " days), got "
              + prefixFilterAgeMs);
    }

    /** The decision settings, parsed; errors name the key. */
    public net.cheetah.core.redirect.RedirectSettings settings() {
      Map<String, String> devices = new LinkedHashMap<>();
      for (String pair : list(linkDevices)) {
        int eq = pair.indexOf('=');
        require(
            eq > 0 && eq < pair.length() - 1,
            "redirects.link-devices must be LINK=DEVICE[,LINK=DEVICE...], got '" + pair + "'");
        devices.put(pair.substring(0, eq).trim(), pair.substring(eq + 1).trim());
      }
      java.util.List<net.cheetah.core.redirect.Prefix> prefixes = new java.util.ArrayList<>();
      for (String p : list(protectedPrefixes)) {
        try {
          prefixes.add(net.cheetah.core.redirect.Prefix.parse(p));
        } catch (IllegalArgumentException e) {
          throw new ConfigException("redirects.protected-prefixes: " + e.getMessage());
        }
      }
      try {
        return new net.cheetah.core.redirect.RedirectSettings(
            devices,
            java.util.Set.copyOf(list(monitoredLinks)),
            prefixes,
            maxRulesPerDevice,
            maxNewRulesPerMinute,
            ruleTtlMs,
            dryRun,
            dscp,
            prefixFilterLength,
            prefixFilterAgeMs);
      } catch (IllegalArgumentException e) {
        throw new ConfigException("redirects: " + e.getMessage());
      }
    }

    private static java.util.List<String> list(String csv) {
      return java.util.Arrays.stream(csv.split(","))
          .map(String::trim)
          .filter(x -> !x.isEmpty())
          .toList();
    }
  }

  /**
   * The rate threshold R per link (docs/ARCHITECTURE.md, "Rate threshold R"). {@code mode}:
   * formula, table (R from simulated loss tables, the formula while a table is being built) or
   * feedback (the {@code feedbackBase} mode's R corrected by SNMP discards). {@code capacityBps} is
   * C for links whose statistics carry none (link-stats.capacity-bps).
   */
  public record Thresholds(
      String mode,
      String feedbackBase,
      double burstinessWeight,
      double alphaMin,
      double lossAcceptable,
      double calmLossRate,
      int polls,
      double stepBps,
      double floorBps,
      double minChange,
      double capacityBps,
      Table table)
      implements java.io.Serializable {
    public Thresholds {
      require(
          mode.equals("formula") || mode.equals("table") || mode.equals("feedback"),
          "thresholds.mode must be formula, table or feedback, got '" + mode + "'");
      require(
          feedbackBase.equals("formula") || feedbackBase.equals("table"),
          "thresholds.feedback-base must be formula or table, got '" + feedbackBase + "'");
      require(burstinessWeight >= 0, "thresholds.burstiness-weight must be >= 0");
      require(alphaMin > 0 && alphaMin <= 1, "thresholds.alpha-min must be in (0, 1]");
      require(
          lossAcceptable >= 0 && lossAcceptable <= 1,
          "thresholds.loss-acceptable must be in [0, 1], got " + lossAcceptable);
      require(
          calmLossRate >= 0 && calmLossRate <= lossAcceptable,
          "thresholds.calm-loss-rate must be in [0, thresholds.loss-acceptable]");
      require(polls >= 1, "thresholds.polls must be >= 1, got " + polls);
      require(stepBps > 0, "thresholds.step-bps must be > 0, got " + stepBps);
      require(floorBps >= 0, "thresholds.floor-bps must be >= 0, got " + floorBps);
      require(minChange >= 0 && minChange < 1, "thresholds.min-change must be in [0, 1)");
      java.util.Objects.requireNonNull(table, "table");
    }

    public boolean feedback() {
      return mode.equals("feedback");
    }

    /** Whether R's base comes from loss tables: table mode, or feedback on a table base. */
    public boolean tableBase() {
      return mode.equals("table") || (feedback() && feedbackBase.equals("table"));
    }
  }

  /**
   * Table mode: tags within (ε_r, ε_b) reuse a table; tables are built by the simulator for the
   * cheetah RTT {@code rttMs} on the link's port (C, two queues of {@code bufferBytes} each) over
   * {@code rateFractions} of C, {@code runs} seeded runs of {@code seconds} (the first 10 %
   * warm-up) per rate, burstiness measured per T1 = {@code binMs}; at most {@code threads}
   * simulator threads per table, a build that takes longer than {@code timeoutMs} is given up. The
   * tag of an hour is predicted from the same hour on the previous {@code predictDays} days (0:
   * never).
   */
  public record Table(
      double epsilonRateBps,
      double epsilonBurstiness,
      double rttMs,
      java.util.List<Double> rateFractions,
      int runs,
      double seconds,
      long seed,
      int threads,
      long timeoutMs,
      int predictDays,
      long bufferBytes,
      long binMs)
      implements java.io.Serializable {
    public Table {
      require(epsilonRateBps >= 0, "thresholds.epsilon-rate must be >= 0 bits/s");
      require(epsilonBurstiness >= 0, "thresholds.epsilon-burstiness must be >= 0");
      require(rttMs > 0, "thresholds.table-rtt-ms must be > 0, got " + rttMs);
      require(!rateFractions.isEmpty(), "thresholds.table-rates needs at least one rate");
      rateFractions = java.util.List.copyOf(rateFractions);
      require(runs >= 1, "thresholds.table-runs must be >= 1, got " + runs);
      require(
          seconds * 0.9 >= binMs / 1000.0,
          "thresholds.table-seconds must leave at least one T1 bin (link-stats.t1-ms) after the"
              + " 10 % warm-up, got "
              + seconds);
      require(threads >= 1, "thresholds.table-threads must be >= 1, got " + threads);
      require(timeoutMs > 0, "thresholds.table-timeout-ms must be > 0, got " + timeoutMs);
      require(predictDays >= 0, "thresholds.predict-days must be >= 0 (0: no prediction)");
      require(bufferBytes > 0, "thresholds.table-buffer-bytes must be > 0, got " + bufferBytes);
    }

    /**
     * Fractions of C: a comma list of values and ranges start..end:step (end included), each in (0,
     * 1]; e.g. 0.05..0.9:0.05. Errors name {@code key}.
     */
    static java.util.List<Double> parseFractions(String key, String text) {
      java.util.List<Double> out = new java.util.ArrayList<>();
      for (String part : text.split(",")) {
        String p = part.trim();
        int dots = p.indexOf("..");
        int colon = p.indexOf(':');
        try {
          if (dots < 0) {
            out.add(Double.parseDouble(p));
          } else {
            require(colon > dots, key + ": range '" + p + "' needs a step, as in 0.05..0.9:0.05");
            double from = Double.parseDouble(p.substring(0, dots));
            double to = Double.parseDouble(p.substring(dots + 2, colon));
            double step = Double.parseDouble(p.substring(colon + 1));
            require(step > 0 && to >= from, key + ": range '" + p + "' needs from <= to, step > 0");
            long n = (long) Math.floor((to - from) / step + 1e-9) + 1;
            require(n <= 1000, key + ": range '" + p + "' has " + n + " rates; use a larger step");
            for (long i = 0; i < n; i++) {
              // Rounded so that 0.05 + 2 * 0.05 is 0.15, not 0.15000000000000002.
              out.add(Math.round((from + i * step) * 1e9) / 1e9);
            }
          }
        } catch (NumberFormatException e) {
          throw new ConfigException(
              key
                  + " must be fractions of C such as 0.05..0.9:0.05 or 0.2,0.5,0.8, got '"
                  + text
                  + "'");
        }
      }
      for (double f : out) {
        require(f > 0 && f <= 1, key + " takes fractions of C in (0, 1], got " + f);
      }
      return out;
    }
  }

  private static final Map<String, String> DEFAULTS = defaults();

  private static Map<String, String> defaults() {
    Map<String, String> d = new LinkedHashMap<>();
    d.put("detection.h-bytes", "1000000000");
    d.put("detection.interval-ms", "60000");
    d.put("detection.gap-ms", "30000");
    d.put("detection.tau-ms", "10000");
    // How long after a flowset's last member start a new member may still be detected.
    d.put("detection.flowset-lateness-ms", "300000");
    d.put("detection.out-of-orderness-ms", "20000");
    // Event time follows the wall clock after this much silence (0 = never).
    d.put("detection.idle-advance-ms", "30000");
    // The exporters' active timeout: a continuation record may arrive this long after it starts,
    // so a flow is declared ended only at end + G + this.
    d.put("detection.active-timeout-ms", "60000");
    // Empty bootstrap = start the in-JVM broker on the ports below.
    d.put("kafka.bootstrap", "");
    d.put("kafka.port", "19092");
    d.put("kafka.controller-port", "19093");
    d.put("kafka.partitions", "2");
    d.put("flink.rest-port", "18081");
    d.put("flink.slots", "8");
    d.put("flink.checkpoint-interval-ms", "2000");
    // A failing job restarts after 1 s, 2 s, 4 s (exponential delay, at most 60 s) and fails for
    // good at the 4th failure in a row; an hour without failure gives it its 3 attempts back.
    d.put("flink.restart-attempts", "3");
    d.put("flink.restart-delay-ms", "1000");
    d.put("flink.restart-max-delay-ms", "60000");
    d.put("flink.restart-reset-after-ms", "3600000");
    d.put("netflow.udp-port", "12055");
    d.put("netflow.metrics-port", "18090");
    d.put("warehouse.http-port", "18123");
    // Burstiness: T1 bins (the probe's) over T2 = 1 h, plus a sliding T2 every 5 min.
    d.put("link-stats.t1-ms", "100");
    d.put("link-stats.t2-ms", "3600000");
    d.put("link-stats.sliding-every-ms", "300000");
    // NetFlow reports a cheetah up to an active timeout (plus G) after it ran.
    d.put("link-stats.lateness-ms", "120000");
    // C of the threshold study, for links without an SNMP ifHighSpeed.
    d.put("link-stats.capacity-bps", "1e9");
    // Redirects: LINK=DEVICE pairs (a link id, or an exporter address for NetFlow cheetahs).
    d.put("redirects.link-devices", "");
    // Only these links' cheetahs are isolated (empty = every link with a device).
    d.put("redirects.monitored-links", "");
    // Guardrails: never matched (CIDRs), K rules per device, new rules per minute, rule expiry.
    d.put("redirects.protected-prefixes", "");
    d.put("redirects.max-rules-per-device", "100");
    d.put("redirects.max-new-rules-per-minute", "30");
    d.put("redirects.rule-ttl-ms", "3600000");
    // Record decisions, publish no command.
    d.put("redirects.dry-run", "false");
    // 0 = move matches to the scavenger class; 1..63 = mark them with this DSCP instead.
    d.put("redirects.dscp", "0");
    d.put("redirects.keys-file", "");
    // Prefix filters from NetFlow cheetahs (α flows) per ingress router: 0 = off (a /24 filter
    // also catches the other traffic of the pair), 24 = (src /24, dst /24) and IPv6 /48,
    // 32 = host pairs. A filter ages out this long after its newest α flow (at most 30 days).
    d.put("redirects.prefix-filter-length", "0");
    d.put("redirects.prefix-filter-age-ms", "2592000000");
    // R per link: formula (R = alpha_bg (C - mean bg), alpha_bg = max(alpha-min, 1/(1 + k b))),
    // table (the largest simulated cheetah rate whose background loss stays within loss-acceptable,
    // the formula while a table is built) or feedback (the feedback-base mode's R lowered by
    // step-bps while SNMP discards over the last `polls` polls exceed loss-acceptable, raised back
    // when every poll is under calm-loss-rate).
    d.put("thresholds.mode", "feedback");
    d.put("thresholds.feedback-base", "formula");
    d.put("thresholds.burstiness-weight", "1.0");
    d.put("thresholds.alpha-min", "0.1");
    d.put("thresholds.loss-acceptable", "0.001");
    d.put("thresholds.calm-loss-rate", "0.0001");
    d.put("thresholds.polls", "3");
    d.put("thresholds.step-bps", "5e7");
    d.put("thresholds.floor-bps", "0");
    // A new version is published when R moves by at least this fraction.
    d.put("thresholds.min-change", "0.05");
    // Table mode: a table is reused for tags within epsilon-rate (bits/s) and epsilon-burstiness.
    d.put("thresholds.epsilon-rate", "2e7");
    d.put("thresholds.epsilon-burstiness", "0.05");
    // Tables are simulated for the study's high-RTT cheetah, at these fractions of C.
    d.put("thresholds.table-rtt-ms", "100");
    d.put("thresholds.table-rates", "0.05..0.9:0.05");
    // Seeded runs per rate and simulated seconds per run (about 80 s of one core per table).
    d.put("thresholds.table-runs", "20");
    d.put("thresholds.table-seconds", "20");
    d.put("thresholds.table-seed", "1");
    d.put("thresholds.table-threads", "1");
    d.put("thresholds.table-timeout-ms", "3600000");
    // Each of the port's two queues (primary, scavenger), in bytes.
    d.put("thresholds.table-buffer-bytes", "5000000");
    // The tag of an hour is the mean of the same hour on this many earlier days (0: never).
    d.put("thresholds.predict-days", "7");
    d.put("data-dir", ".cheetah/data");
    return Map.copyOf(d);
  }

  /** Every key with its default, sorted (for --help and docs). */
  public static Map<String, String> defaultValues() {
    return new TreeMap<>(DEFAULTS);
  }

  public static CheetahConfig defaultConfig() {
    return load(Optional.empty(), Map.of());
  }

  /** Every key with the value in effect after the file and the overrides, sorted. */
  public static Map<String, String> effectiveValues(
      Optional<Path> file, Map<String, String> overrides) {
    Map<String, String> v = new TreeMap<>(DEFAULTS);
    if (file.isPresent()) {
      Properties p = new Properties();
      try (Reader r = Files.newBufferedReader(file.get())) {
        p.load(r);
      } catch (IOException e) {
        throw new ConfigException(
            "cannot read config file " + file.get() + ": " + e.getMessage() + "; check the path");
      }
      p.forEach(
          (k, val) -> put(v, k.toString().trim(), val.toString().trim(), file.get().toString()));
    }
    overrides.forEach((k, val) -> put(v, k.trim(), val.trim(), "override"));
    return v;
  }

  /**
   * Builds the configuration from defaults, an optional properties file and overrides. Unknown keys
   * are errors (a typo must not silently fall back to a default).
   */
  public static CheetahConfig load(Optional<Path> file, Map<String, String> overrides) {
    Map<String, String> v = effectiveValues(file, overrides);
    return new CheetahConfig(
        new Detection(
            bytes(v, "detection.h-bytes"),
            lng(v, "detection.interval-ms"),
            lng(v, "detection.gap-ms"),
            lng(v, "detection.tau-ms"),
            lng(v, "detection.flowset-lateness-ms"),
            lng(v, "detection.out-of-orderness-ms"),
            lng(v, "detection.idle-advance-ms"),
            lng(v, "detection.active-timeout-ms")),
        new Kafka(
            v.get("kafka.bootstrap"),
            port(v, "kafka.port"),
            port(v, "kafka.controller-port"),
            (int) lng(v, "kafka.partitions")),
        new Flink(
            port(v, "flink.rest-port"),
            (int) lng(v, "flink.slots"),
            lng(v, "flink.checkpoint-interval-ms"),
            new Restarts(
                (int) lng(v, "flink.restart-attempts"),
                lng(v, "flink.restart-delay-ms"),
                lng(v, "flink.restart-max-delay-ms"),
                lng(v, "flink.restart-reset-after-ms"))),
        new Netflow(port(v, "netflow.udp-port"), port(v, "netflow.metrics-port")),
        new Warehouse(port(v, "warehouse.http-port")),
        new LinkStats(
            lng(v, "link-stats.t1-ms"),
            lng(v, "link-stats.t2-ms"),
            lng(v, "link-stats.sliding-every-ms"),
            lng(v, "link-stats.lateness-ms"),
            dbl(v, "link-stats.capacity-bps")),
        new Redirects(
            v.get("redirects.link-devices"),
            v.get("redirects.monitored-links"),
            v.get("redirects.protected-prefixes"),
            (int) lng(v, "redirects.max-rules-per-device"),
            (int) lng(v, "redirects.max-new-rules-per-minute"),
            lng(v, "redirects.rule-ttl-ms"),
            bool(v, "redirects.dry-run"),
            (int) lng(v, "redirects.dscp"),
            v.get("redirects.keys-file"),
            (int) lng(v, "redirects.prefix-filter-length"),
            lng(v, "redirects.prefix-filter-age-ms")),
        new Thresholds(
            v.get("thresholds.mode"),
            v.get("thresholds.feedback-base"),
            dbl(v, "thresholds.burstiness-weight"),
            dbl(v, "thresholds.alpha-min"),
            dbl(v, "thresholds.loss-acceptable"),
            dbl(v, "thresholds.calm-loss-rate"),
            (int) lng(v, "thresholds.polls"),
            dbl(v, "thresholds.step-bps"),
            dbl(v, "thresholds.floor-bps"),
            dbl(v, "thresholds.min-change"),
            dbl(v, "link-stats.capacity-bps"),
            new Table(
                dbl(v, "thresholds.epsilon-rate"),
                dbl(v, "thresholds.epsilon-burstiness"),
                dbl(v, "thresholds.table-rtt-ms"),
                Table.parseFractions("thresholds.table-rates", v.get("thresholds.table-rates")),
                (int) lng(v, "thresholds.table-runs"),
                dbl(v, "thresholds.table-seconds"),
                lng(v, "thresholds.table-seed"),
                (int) lng(v, "thresholds.table-threads"),
                lng(v, "thresholds.table-timeout-ms"),
                (int) lng(v, "thresholds.predict-days"),
                bytes(v, "thresholds.table-buffer-bytes"),
                lng(v, "link-stats.t1-ms"))),
        Path.of(v.get("data-dir")));
  }

  private static void put(Map<String, String> v, String key, String value, String origin) {
    if (!DEFAULTS.containsKey(key)) {
      throw new ConfigException(
          "unknown configuration key '"
              + key
              + "' (from "
              + origin
              + "); known keys: "
              + String.join(", ", new TreeMap<>(DEFAULTS).keySet()));
    }
    v.put(key, value);
  }

  private static long lng(Map<String, String> v, String key) {
    String s = v.get(key);
    try {
      return Long.parseLong(s.replace("_", ""));
    } catch (NumberFormatException e) {
      throw new ConfigException(key + " must be a whole number, got '" + s + "'");
    }
  }

  private static boolean bool(Map<String, String> v, String key) {
    String s = v.get(key).toLowerCase(java.util.Locale.ROOT);
    if (!s.equals("true") && !s.equals("false")) {
      throw new ConfigException(key + " must be true or false, got '" + v.get(key) + "'");
    }
    return s.equals("true");
  }

  private static double dbl(Map<String, String> v, String key) {
    String s = v.get(key);
    try {
      return Double.parseDouble(s.replace("_", ""));
    } catch (NumberFormatException e) {
      throw new ConfigException(key + " must be a number (e.g. 1e9), got '" + s + "'");
    }
  }

  /** Byte counts accept plain integers and exact decimal exponents such as 1e9. */
  private static long bytes(Map<String, String> v, String key) {
    String s = v.get(key);
    try {
      return new java.math.BigDecimal(s.replace("_", "")).longValueExact();
    } catch (NumberFormatException | ArithmeticException e) {
      throw new ConfigException(
          key + " must be a whole number of bytes (e.g. 1000000000 or 1e9), got '" + s + "'");
    }
  }

  private static int port(Map<String, String> v, String key) {
    long p = lng(v, key);
    require(
        p >= 0 && p <= 65535, key + " must be a port in 0..65535 (0 = any free port), got " + p);
    return (int) p;
  }

  private static void require(boolean ok, String message) {
    if (!ok) {
      throw new ConfigException(message);
    }
  }

  /** A configuration value is missing, malformed or unknown. */
  public static final class ConfigException extends IllegalArgumentException {
    public ConfigException(String message) {
      super(message);
    }
  }
}
