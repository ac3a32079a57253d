package net.cheetah.config;

import java.io.IOException;
import java.io.Reader;
import java.io.Serializable;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import net.cheetah.core.fabric.ReroutePolicy;
import net.cheetah.core.redirect.Prefix;
import net.cheetah.core.redirect.RedirectSettings;
import net.cheetah.core.threshold.ThresholdMode;

/**
 * The one typed configuration of Cheetah. Each component's record declares its keys once, beside
 * it: name, default, parser, rule and meaning ({@link Key}); its constructor enforces the rules and
 * {@code from(Values)} binds the keys to its fields. {@link #SECTIONS} lists every record's keys:
 * loading, {@code ./cheetah config} and the README's configuration table read them. Values come
 * from the defaults, then an optional properties file, then {@code key=value} overrides (e.g.
 * {@code --set detection.h-bytes=2e9}).
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
    Fabric fabric,
    Throughput throughput,
    Path dataDir) {

  /** Definitions of docs/ARCHITECTURE.md, "NetFlow cheetah" and "Parallel flowset". */
  public record Detection(
      long hBytes,
      long intervalMs,
      long gapMs,
      long tauMs,
      long flowsetLatenessMs,
      long outOfOrdernessMs,
      long idleAdvanceMs,
      long activeTimeoutMs,
      long firstRecordHoldMs)
      implements Serializable {
    public static final Key<Long> H_BYTES =
        Key.bytes("detection.h-bytes", "1000000000", "H: bytes in one interval that make a cheetah")
            .check(v -> v > 0, "> 0");
    public static final Key<Long> INTERVAL_MS =
        Key.whole("detection.interval-ms", "60000", "I: the interval (epoch-aligned)")
            .check(v -> v > 0, "> 0");
    public static final Key<Long> GAP_MS =
        Key.whole(
                "detection.gap-ms", "30000", "G: largest gap stitched between records of one flow")
            .check(v -> v >= 0, ">= 0");
    public static final Key<Long> TAU_MS =
        Key.whole("detection.tau-ms", "10000", "τ: largest start gap within a flowset")
            .check(v -> v >= 0, ">= 0");
    public static final Key<Long> ACTIVE_TIMEOUT_MS =
        Key.whole(
                "detection.active-timeout-ms",
                "60000",
                "the exporters' active timeout: a continuation record may arrive this long after"
                    + " it starts, so a flow is declared ended at its end + G + this")
            .check(v -> v >= 0, ">= 0");
    public static final Key<Long> FLOWSET_LATENESS_MS =
        Key.whole(
                "detection.flowset-lateness-ms",
                "300000",
                "how late after a set's last start a new member may still join it")
            .check(v -> v >= 0, ">= 0");
    public static final Key<Long> OUT_OF_ORDERNESS_MS =
        Key.whole("detection.out-of-orderness-ms", "20000", "watermark delay")
            .check(v -> v >= 0, ">= 0");
    public static final Key<Long> IDLE_ADVANCE_MS =
        Key.whole(
                "detection.idle-advance-ms",
                "30000",
                "after this much silence, event time follows the wall clock (0: never)")
            .check(v -> v >= 0, ">= 0");
    public static final Key<Long> FIRST_RECORD_HOLD_MS =
        Key.whole(
                "detection.first-record-hold-ms",
                "0",
                "how long a flows.v1 partition without any record yet holds event time back before"
                    + " it counts as idle, from the job's start and again from another partition's"
                    + " first record (its first records would come late after that); 0: the idle"
                    + " advance, or the out-of-orderness when that is off")
            .check(v -> v >= 0, ">= 0");
    public static final List<Key<?>> KEYS =
        List.of(
            H_BYTES,
            INTERVAL_MS,
            GAP_MS,
            TAU_MS,
            ACTIVE_TIMEOUT_MS,
            FLOWSET_LATENESS_MS,
            OUT_OF_ORDERNESS_MS,
            IDLE_ADVANCE_MS,
            FIRST_RECORD_HOLD_MS);

    public Detection {
      H_BYTES.require(hBytes);
      INTERVAL_MS.require(intervalMs);
      GAP_MS.require(gapMs);
      TAU_MS.require(tauMs);
      FLOWSET_LATENESS_MS.require(flowsetLatenessMs);
      OUT_OF_ORDERNESS_MS.require(outOfOrdernessMs);
      IDLE_ADVANCE_MS.require(idleAdvanceMs);
      ACTIVE_TIMEOUT_MS.require(activeTimeoutMs);
      FIRST_RECORD_HOLD_MS.require(firstRecordHoldMs);
    }

    /** How long a partition without records holds event time back (the key's rule for 0). */
    public long effectiveFirstRecordHoldMs() {
      return firstRecordHoldMs > 0 ? firstRecordHoldMs : defaultFirstRecordHoldMs();
    }

    /**
     * The hold when detection.first-record-hold-ms is 0: the idle advance, or the out-of-orderness
     * without one. Also the hold of a sparse input that must not wait for a longer one.
     */
    public long defaultFirstRecordHoldMs() {
      return idleAdvanceMs > 0 ? idleAdvanceMs : outOfOrdernessMs;
    }

    static Detection from(Values v) {
      return new Detection(
          v.get(H_BYTES),
          v.get(INTERVAL_MS),
          v.get(GAP_MS),
          v.get(TAU_MS),
          v.get(FLOWSET_LATENESS_MS),
          v.get(OUT_OF_ORDERNESS_MS),
          v.get(IDLE_ADVANCE_MS),
          v.get(ACTIVE_TIMEOUT_MS),
          v.get(FIRST_RECORD_HOLD_MS));
    }
  }

  /**
   * The broker: in-JVM in embedded mode, or an external bootstrap list in distributed mode; with
   * {@code kafka.security.protocol=SASL_SSL}, every client authenticates with SCRAM-SHA-512 as its
   * own principal over TLS (docs/DEPLOY.md, "Security").
   */
  public record Kafka(
      String bootstrap,
      int port,
      int controllerPort,
      int partitions,
      String securityProtocol,
      String caFile,
      String passwordDir) {
    public static final Key<String> BOOTSTRAP =
        Key.text(
            "kafka.bootstrap",
            "",
            "external brokers (host:port,...); empty starts the in-JVM broker on the ports below");
    public static final Key<Integer> PORT = Key.port("kafka.port", "19092", "the in-JVM broker");
    public static final Key<Integer> CONTROLLER_PORT =
        Key.port("kafka.controller-port", "19093", "the in-JVM broker's KRaft controller");
    public static final Key<Integer> PARTITIONS =
        Key.integer("kafka.partitions", "2", "partitions per topic on the in-JVM broker")
            .check(v -> v >= 1, ">= 1");
    public static final Key<String> SECURITY_PROTOCOL =
        Key.text(
                "kafka.security.protocol",
                "PLAINTEXT",
                "PLAINTEXT, or SASL_SSL: TLS, and SCRAM-SHA-512 as the component's own principal")
            .check(v -> v.equals("PLAINTEXT") || v.equals("SASL_SSL"), "PLAINTEXT or SASL_SSL");
    public static final Key<String> CA_FILE =
        Key.text(
            "kafka.security.ca-file",
            "",
            "PEM certificate(s) the brokers' TLS certificates chain to (empty: the JVM's trust"
                + " store)");
    public static final Key<String> PASSWORD_DIR =
        Key.text(
            "kafka.security.password-dir",
            "",
            "directory of SCRAM passwords, one file per principal named after it (a job's is its"
                + " name, e.g. cheetah-normalize); SASL_SSL needs it");
    public static final List<Key<?>> KEYS =
        List.of(
            BOOTSTRAP, PORT, CONTROLLER_PORT, PARTITIONS, SECURITY_PROTOCOL, CA_FILE, PASSWORD_DIR);

    public Kafka {
      Objects.requireNonNull(bootstrap, BOOTSTRAP.name());
      PORT.require(port);
      CONTROLLER_PORT.require(controllerPort);
      PARTITIONS.require(partitions);
      SECURITY_PROTOCOL.require(securityProtocol);
      Objects.requireNonNull(caFile, CA_FILE.name());
      Objects.requireNonNull(passwordDir, PASSWORD_DIR.name());
      if (securityProtocol.equals("SASL_SSL") && passwordDir.isBlank()) {
        throw new IllegalArgumentException(
            SECURITY_PROTOCOL.name()
                + "=SASL_SSL needs "
                + PASSWORD_DIR.name()
                + ": the directory holding each principal's SCRAM password");
      }
    }

    static Kafka from(Values v) {
      return new Kafka(
          v.get(BOOTSTRAP),
          v.get(PORT),
          v.get(CONTROLLER_PORT),
          v.get(PARTITIONS),
          v.get(SECURITY_PROTOCOL),
          v.get(CA_FILE),
          v.get(PASSWORD_DIR));
    }

    /** True when clients must use TLS and SCRAM. */
    public boolean secured() {
      return securityProtocol.equals("SASL_SSL");
    }

    /**
     * The Kafka client properties (Java client names) that make a client connect as {@code
     * principal}: none with PLAINTEXT; with SASL_SSL, TLS (trusting {@code caFile} when given) and
     * SCRAM-SHA-512 with the password read now from {@code passwordDir/principal}.
     */
    public Map<String, String> clientSecurity(String principal) {
      return KafkaClientSecurity.properties(this, principal);
    }
  }

  /**
   * How every job runs on Flink: the embedded MiniCluster's port and slots, and what each job's
   * environment gets wherever it runs (embedded, a session cluster, Kubernetes; {@code
   * JobEnvironment} in the jobs module applies it): exactly-once checkpoints every {@code
   * checkpointIntervalMs} into {@code checkpointDir}, the newest {@code checkpointsRetained} of
   * them kept (also after a cancel or a crash), savepoints into {@code savepointDir}, {@code
   * parallelism} and the restart strategy {@code restarts}. An empty directory means one under
   * data-dir/flink ({@link #checkpointDirectory}).
   */
  public record Flink(
      int restPort,
      int slots,
      long checkpointIntervalMs,
      String checkpointDir,
      String savepointDir,
      int checkpointsRetained,
      int parallelism,
      Restarts restarts) {
    public static final Key<Integer> REST_PORT =
        Key.port("flink.rest-port", "18081", "the MiniCluster's REST API and web UI");
    public static final Key<Integer> SLOTS =
        Key.integer("flink.slots", "8", "task slots of the MiniCluster").check(v -> v >= 1, ">= 1");
    public static final Key<Long> CHECKPOINT_INTERVAL_MS =
        Key.whole(
                "flink.checkpoint-interval-ms",
                "2000",
                "checkpoint interval; exactly-once results are committed at each checkpoint")
            .check(v -> v > 0, "> 0");
    public static final Key<String> CHECKPOINT_DIR =
        Key.text(
                "flink.checkpoint-dir",
                "",
                "where every job's checkpoints go, a URI every JobManager and TaskManager reaches"
                    + " (file:///shared/path, s3://bucket/path); empty: file://DATA-DIR/flink/"
                    + "checkpoints")
            .check(CheetahConfig::isDirectoryUri, "empty or a URI with a scheme, e.g. file:///x");
    public static final Key<String> SAVEPOINT_DIR =
        Key.text(
                "flink.savepoint-dir",
                "",
                "where savepoints go when none is named (stop with a savepoint), a URI like"
                    + " flink.checkpoint-dir; empty: file://DATA-DIR/flink/savepoints")
            .check(CheetahConfig::isDirectoryUri, "empty or a URI with a scheme, e.g. file:///x");
    public static final Key<Integer> CHECKPOINTS_RETAINED =
        Key.integer(
                "flink.checkpoints-retained",
                "2",
                "completed checkpoints kept per job, also after a cancel or a crash: the newest to"
                    + " resume from, and one before it should the newest be damaged")
            .check(v -> v >= 1, ">= 1");
    public static final Key<Integer> PARALLELISM =
        Key.integer(
                "flink.parallelism",
                "1",
                "parallelism of every job: each takes this many task slots (embedded:"
                    + " flink.slots must hold them all); more than a topic's partitions is idle")
            .check(v -> v >= 1, ">= 1");
    public static final List<Key<?>> KEYS =
        List.of(
            REST_PORT,
            SLOTS,
            CHECKPOINT_INTERVAL_MS,
            CHECKPOINT_DIR,
            SAVEPOINT_DIR,
            CHECKPOINTS_RETAINED,
            PARALLELISM);

    public Flink {
      REST_PORT.require(restPort);
      SLOTS.require(slots);
      CHECKPOINT_INTERVAL_MS.require(checkpointIntervalMs);
      CHECKPOINT_DIR.require(Objects.requireNonNull(checkpointDir, CHECKPOINT_DIR.name()));
      SAVEPOINT_DIR.require(Objects.requireNonNull(savepointDir, SAVEPOINT_DIR.name()));
      CHECKPOINTS_RETAINED.require(checkpointsRetained);
      PARALLELISM.require(parallelism);
      Objects.requireNonNull(restarts, "restarts");
    }

    static Flink from(Values v) {
      return new Flink(
          v.get(REST_PORT),
          v.get(SLOTS),
          v.get(CHECKPOINT_INTERVAL_MS),
          v.get(CHECKPOINT_DIR),
          v.get(SAVEPOINT_DIR),
          v.get(CHECKPOINTS_RETAINED),
          v.get(PARALLELISM),
          Restarts.from(v));
    }

    /** flink.checkpoint-dir, or {@code file://DATA/flink/checkpoints} (absolute) when empty. */
    public String checkpointDirectory(Path dataDir) {
      return orUnder(checkpointDir, dataDir, "checkpoints");
    }

    /** flink.savepoint-dir, or {@code file://DATA/flink/savepoints} (absolute) when empty. */
    public String savepointDirectory(Path dataDir) {
      return orUnder(savepointDir, dataDir, "savepoints");
    }

    private static String orUnder(String configured, Path dataDir, String name) {
      if (!configured.isBlank()) {
        return configured;
      }
      // toUri() ends with '/' only if the directory exists: the same text either way.
      String uri =
          dataDir.resolve("flink").resolve(name).toAbsolutePath().normalize().toUri().toString();
      return uri.endsWith("/") ? uri.substring(0, uri.length() - 1) : uri;
    }
  }

  /**
   * How a failing job is restarted (README, "Restarts"): after a failure the job waits {@code
   * initialDelayMs}, doubled after each further failure up to {@code maxDelayMs}, and fails for
   * good after {@code attempts} restarts in a row; a job that then runs {@code resetAfterMs}
   * without failing gets its attempts and delay back. 0 attempts: the first failure fails the job.
   */
  public record Restarts(int attempts, long initialDelayMs, long maxDelayMs, long resetAfterMs) {
    public static final Key<Integer> ATTEMPTS =
        Key.integer(
                "flink.restart-attempts",
                "3",
                "restarts in a row before a job fails for good (0: the first failure fails it)")
            .check(v -> v >= 0, ">= 0");
    public static final Key<Long> DELAY_MS =
        Key.whole(
                "flink.restart-delay-ms",
                "1000",
                "delay before the first restart, doubled after each further failure in a row")
            .check(v -> v >= 1, ">= 1");
    public static final Key<Long> MAX_DELAY_MS =
        Key.whole(
            "flink.restart-max-delay-ms",
            "60000",
            "the longest delay between restarts (>= flink.restart-delay-ms)");
    public static final Key<Long> RESET_AFTER_MS =
        Key.whole(
                "flink.restart-reset-after-ms",
                "3600000",
                "a job that runs this long without failing gets its attempts and delay back")
            .check(v -> v >= 1, ">= 1");
    public static final List<Key<?>> KEYS =
        List.of(ATTEMPTS, DELAY_MS, MAX_DELAY_MS, RESET_AFTER_MS);

    public Restarts {
      ATTEMPTS.require(attempts);
      DELAY_MS.require(initialDelayMs);
      require(
          maxDelayMs >= initialDelayMs,
          MAX_DELAY_MS
              + " must be >= "
              + DELAY_MS
              + " ("
              + initialDelayMs
              + "), got "
              + maxDelayMs);
      RESET_AFTER_MS.require(resetAfterMs);
    }

    static Restarts from(Values v) {
      return new Restarts(
          v.get(ATTEMPTS), v.get(DELAY_MS), v.get(MAX_DELAY_MS), v.get(RESET_AFTER_MS));
    }
  }

  /** The NetFlow/IPFIX listener (goflow2), its UDP receive buffer and its metrics endpoint. */
  public record Netflow(int udpPort, int sflowUdpPort, int metricsPort, long receiveBufferBytes) {
    public static final Key<Integer> UDP_PORT =
        Key.port("netflow.udp-port", "12055", "goflow2's NetFlow/IPFIX listener (UDP)");
    public static final Key<Integer> SFLOW_UDP_PORT =
        Key.port(
            "netflow.sflow-udp-port",
            "16343",
            "goflow2's sFlow v5 listener (UDP; sFlow's own port 6343 + 10000, as NetFlow's):"
                + " flow samples become flows, interface counters go to snmp.counters.v1 (the"
                + " fabric job's inputs)");
    public static final Key<Integer> METRICS_PORT =
        Key.port("netflow.metrics-port", "18090", "goflow2's metrics endpoint");
    public static final Key<Long> RECEIVE_BUFFER_BYTES =
        Key.bytes(
                "netflow.receive-buffer-bytes",
                "4194304",
                "goflow2's UDP receive buffer (SO_RCVBUF) asked for; the kernel caps it at"
                    + " net.core.rmem_max (goflow2 then warns, with the sysctl that raises it) and"
                    + " doubles it; 0 keeps the kernel's default. A full buffer drops datagrams:"
                    + " goflow2's metric cheetah_goflow2_socket_drops_total counts them")
            .check(v -> v >= 0 && v <= Integer.MAX_VALUE, "0..2147483647");
    public static final List<Key<?>> KEYS =
        List.of(UDP_PORT, SFLOW_UDP_PORT, METRICS_PORT, RECEIVE_BUFFER_BYTES);

    public Netflow {
      UDP_PORT.require(udpPort);
      SFLOW_UDP_PORT.require(sflowUdpPort);
      METRICS_PORT.require(metricsPort);
      RECEIVE_BUFFER_BYTES.require(receiveBufferBytes);
    }

    static Netflow from(Values v) {
      return new Netflow(
          v.get(UDP_PORT), v.get(SFLOW_UDP_PORT), v.get(METRICS_PORT), v.get(RECEIVE_BUFFER_BYTES));
    }
  }

  public record Warehouse(int httpPort) {
    public static final Key<Integer> HTTP_PORT =
        Key.port("warehouse.http-port", "18123", "the warehouse's ClickHouse-HTTP front");
    public static final List<Key<?>> KEYS = List.of(HTTP_PORT);

    public Warehouse {
      HTTP_PORT.require(httpPort);
    }

    static Warehouse from(Values v) {
      return new Warehouse(v.get(HTTP_PORT));
    }
  }

  /**
   * Link statistics (docs/ARCHITECTURE.md, "Burstiness"): T1 bins over T2 windows aligned to the
   * hour, a sliding T2 window every {@code slidingEveryMs}, computed once bins up to a window's end
   * plus {@code latenessMs} have been seen. {@code capacityBps} is C for links whose SNMP
   * ifHighSpeed is not known.
   */
  public record LinkStats(
      long t1Ms, long t2Ms, long slidingEveryMs, long latenessMs, double capacityBps)
      implements Serializable {
    public static final Key<Long> T1_MS =
        Key.whole("link-stats.t1-ms", "100", "T1: the bin burstiness is measured on (the probe's)")
            .check(v -> v > 0, "> 0");
    public static final Key<Long> T2_MS =
        Key.whole(
            "link-stats.t2-ms",
            "3600000",
            "T2: the window, aligned to the hour (a multiple of link-stats.t1-ms)");
    public static final Key<Long> SLIDING_EVERY_MS =
        Key.whole(
            "link-stats.sliding-every-ms",
            "300000",
            "a sliding T2 window every this long (0: off; a multiple of link-stats.t1-ms)");
    public static final Key<Long> LATENESS_MS =
        Key.whole(
                "link-stats.lateness-ms",
                "120000",
                "a window is computed once bins up to its end + this are in (NetFlow reports a"
                    + " cheetah up to an active timeout + G after it ran)")
            .check(v -> v >= 0, ">= 0");
    public static final Key<Double> CAPACITY_BPS =
        Key.number(
                "link-stats.capacity-bps",
                "1e9",
                "C (bit/s) for links without an SNMP ifHighSpeed, as in the threshold study")
            .check(v -> v > 0, "> 0");
    public static final List<Key<?>> KEYS =
        List.of(T1_MS, T2_MS, SLIDING_EVERY_MS, LATENESS_MS, CAPACITY_BPS);

    public LinkStats {
      T1_MS.require(t1Ms);
      require(
          t2Ms >= t1Ms && t2Ms % t1Ms == 0,
          T2_MS + " must be a positive multiple of " + T1_MS + ", got " + t2Ms);
      require(
          slidingEveryMs >= 0 && slidingEveryMs % t1Ms == 0,
          SLIDING_EVERY_MS
              + " must be 0 (off) or a multiple of "
              + T1_MS
              + ", got "
              + slidingEveryMs);
      LATENESS_MS.require(latenessMs);
      CAPACITY_BPS.require(capacityBps);
    }

    static LinkStats from(Values v) {
      return new LinkStats(
          v.get(T1_MS),
          v.get(T2_MS),
          v.get(SLIDING_EVERY_MS),
          v.get(LATENESS_MS),
          v.get(CAPACITY_BPS));
    }
  }

  /**
   * The redirect job (docs/ARCHITECTURE.md, "Redirect commands"; docs/REDIRECTS.md): its settings,
   * whose rules {@link RedirectSettings} keeps (the keys here only read text and name the key in
   * its errors), and the signing keys' file ({@code keysFile} empty = {@code data-dir/keys/
   * redirects.json}, created with a fresh key on first start), and how long an operator's incast
   * guard ({@code ./cheetah guard set}, docs/REDIRECTS.md) lives unless --ttl says otherwise.
   */
  public record Redirects(RedirectSettings settings, String keysFile, long guardTtlMs)
      implements Serializable {
    public static final Key<Map<String, String>> LINK_DEVICES =
        Key.of(
            "redirects.link-devices",
            "",
            Redirects::devices,
            "LINK=DEVICE[,LINK=DEVICE...]",
            "LINK=DEVICE pairs: the device acting for a link (a link id, or an exporter address"
                + " for NetFlow cheetahs)");
    public static final Key<Set<String>> MONITORED_LINKS =
        Key.of(
            "redirects.monitored-links",
            "",
            text -> Set.copyOf(list(text)),
            "a comma list of links",
            "only these links' cheetahs are isolated (empty: every link with a device)");
    public static final Key<List<Prefix>> PROTECTED_PREFIXES =
        Key.of(
            "redirects.protected-prefixes",
            "",
            Redirects::prefixes,
            "CIDR prefixes such as 198.18.0.0/15,2001:db8::/32",
            "never matched by a rule, as source or destination (CIDRs)");
    public static final Key<Integer> MAX_RULES_PER_DEVICE =
        Key.integer("redirects.max-rules-per-device", "100", "K: active rules per device at most");
    public static final Key<Integer> MAX_NEW_RULES_PER_MINUTE =
        Key.integer(
            "redirects.max-new-rules-per-minute", "30", "new rules per device per minute at most");
    public static final Key<Long> RULE_TTL_MS =
        Key.whole(
            "redirects.rule-ttl-ms",
            "3600000",
            "every per-flow rule expires this long after it is issued");
    public static final Key<Boolean> DRY_RUN =
        Key.bool("redirects.dry-run", "false", "record decisions, publish no command");
    public static final Key<Integer> DSCP =
        Key.integer(
            "redirects.dscp",
            "0",
            "0: move matches to the scavenger class; 1..63: mark them with this DSCP instead");
    public static final Key<String> KEYS_FILE =
        Key.text(
            "redirects.keys-file",
            "",
            "the signing keys (docs/REDIRECTS.md); empty: DATA/keys/redirects.json, created with"
                + " a fresh key on first start");
    public static final Key<Integer> PREFIX_FILTER_LENGTH =
        Key.integer(
            "redirects.prefix-filter-length",
            "0",
            "prefix filters from NetFlow α flows at the exporter's device: 0 off (a filter also"
                + " catches the pair's other traffic), 24 = src /24 → dst /24 (IPv6 /48), 32 ="
                + " host pairs");
    public static final Key<Long> PREFIX_FILTER_AGE_MS =
        Key.whole(
            "redirects.prefix-filter-age-ms",
            "2592000000",
            "a prefix filter ages out this long after the pair's newest α flow (at most "
                + RedirectSettings.MAX_PREFIX_FILTER_AGE_MS / 86_400_000
                + " days)");
    public static final Key<Long> GUARD_TTL_MS =
        Key.whole(
                "redirects.guard-ttl-ms",
                "86400000",
                "an incast guard (./cheetah guard set: an RWND_CAP command) expires this long"
                    + " after it is issued, unless its --ttl says otherwise")
            .check(
                v -> v >= 1 && v <= RedirectSettings.MAX_PREFIX_FILTER_AGE_MS,
                "1.."
                    + RedirectSettings.MAX_PREFIX_FILTER_AGE_MS
                    + " (30 days: adapters rebuild their rules from redirects.commands.v1, kept 31"
                    + " days)");
    public static final List<Key<?>> KEYS =
        List.of(
            LINK_DEVICES,
            MONITORED_LINKS,
            PROTECTED_PREFIXES,
            MAX_RULES_PER_DEVICE,
            MAX_NEW_RULES_PER_MINUTE,
            RULE_TTL_MS,
            DRY_RUN,
            DSCP,
            KEYS_FILE,
            PREFIX_FILTER_LENGTH,
            PREFIX_FILTER_AGE_MS,
            GUARD_TTL_MS);

    public Redirects {
      Objects.requireNonNull(settings, "settings");
      Objects.requireNonNull(keysFile, KEYS_FILE.name());
      GUARD_TTL_MS.require(guardTtlMs);
    }

    static Redirects from(Values v) {
      Map<String, String> devices = v.get(LINK_DEVICES);
      Set<String> monitored = v.get(MONITORED_LINKS);
      List<Prefix> prefixes = v.get(PROTECTED_PREFIXES);
      int k = v.get(MAX_RULES_PER_DEVICE);
      int perMinute = v.get(MAX_NEW_RULES_PER_MINUTE);
      long ttl = v.get(RULE_TTL_MS);
      boolean dryRun = v.get(DRY_RUN);
      int dscp = v.get(DSCP);
      int filterLength = v.get(PREFIX_FILTER_LENGTH);
      long filterAge = v.get(PREFIX_FILTER_AGE_MS);
      RedirectSettings settings;
      try {
        settings =
            new RedirectSettings(
                devices,
                monitored,
                prefixes,
                k,
                perMinute,
                ttl,
                dryRun,
                dscp,
                filterLength,
                filterAge);
      } catch (IllegalArgumentException e) {
        // RedirectSettings' messages start with the setting's name under "redirects.".
        throw new ConfigException("redirects." + e.getMessage());
      }
      return new Redirects(settings, v.get(KEYS_FILE), v.get(GUARD_TTL_MS));
    }

    private static Map<String, String> devices(String text) {
      Map<String, String> devices = new LinkedHashMap<>();
      for (String pair : list(text)) {
        int eq = pair.indexOf('=');
        if (eq <= 0 || eq == pair.length() - 1) {
          throw new NumberFormatException(pair);
        }
        devices.put(pair.substring(0, eq).trim(), pair.substring(eq + 1).trim());
      }
      return devices;
    }

    private static List<Prefix> prefixes(String text) {
      List<Prefix> out = new ArrayList<>();
      for (String p : list(text)) {
        try {
          out.add(Prefix.parse(p));
        } catch (IllegalArgumentException e) {
          throw new IllegalArgumentException(
              "must be CIDR prefixes such as 198.18.0.0/15,2001:db8::/32; " + e.getMessage());
        }
      }
      return out;
    }

    private static List<String> list(String csv) {
      return Arrays.stream(csv.split(",")).map(String::trim).filter(x -> !x.isEmpty()).toList();
    }
  }

  /**
   * The rate threshold R per link (docs/ARCHITECTURE.md, "Rate threshold R"). {@code mode}:
   * formula, table (R from simulated loss tables, the formula while a table is being built) or
   * feedback (the {@code feedbackBase} mode's R corrected by SNMP discards). {@code capacityBps} is
   * C for links whose statistics carry none (link-stats.capacity-bps).
   */
  public record Thresholds(
      ThresholdMode mode,
      ThresholdMode feedbackBase,
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
      implements Serializable {
    public static final Key<ThresholdMode> MODE =
        Key.choice(
            "thresholds.mode",
            ThresholdMode.FEEDBACK,
            "how R is chosen: formula (R = α_bg (C − r̄_bg), α_bg = max(α_min, 1 / (1 + k b))),"
                + " table (the largest simulated cheetah rate whose background loss stays within"
                + " l_acpt; the formula while a table is built) or feedback (the feedback-base"
                + " mode's R, lowered by ΔR while SNMP discards exceed l_acpt)",
            ThresholdMode.FORMULA,
            ThresholdMode.TABLE,
            ThresholdMode.FEEDBACK);
    public static final Key<ThresholdMode> FEEDBACK_BASE =
        Key.choice(
            "thresholds.feedback-base",
            ThresholdMode.FORMULA,
            "the mode whose R feedback corrects",
            ThresholdMode.FORMULA,
            ThresholdMode.TABLE);
    public static final Key<Double> BURSTINESS_WEIGHT =
        Key.number("thresholds.burstiness-weight", "1.0", "k, the formula's weight of burstiness")
            .check(v -> v >= 0, ">= 0");
    public static final Key<Double> ALPHA_MIN =
        Key.number("thresholds.alpha-min", "0.1", "α_min, the formula's smallest α_bg")
            .check(v -> v > 0 && v <= 1, "in (0, 1]");
    public static final Key<Double> LOSS_ACCEPTABLE =
        Key.number(
                "thresholds.loss-acceptable",
                "0.001",
                "l_acpt: the background loss rate tables may reach and feedback corrects above")
            .check(v -> v >= 0 && v <= 1, "in [0, 1]");
    public static final Key<Double> CALM_LOSS_RATE =
        Key.number(
                "thresholds.calm-loss-rate",
                "0.0001",
                "feedback raises R back by ΔR when every poll's loss is under this (<= l_acpt)")
            .check(v -> v >= 0, ">= 0");
    public static final Key<Integer> POLLS =
        Key.integer("thresholds.polls", "3", "N: SNMP polls feedback averages discards over")
            .check(v -> v >= 1, ">= 1");
    public static final Key<Double> STEP_BPS =
        Key.number("thresholds.step-bps", "5e7", "ΔR (bit/s): feedback's step")
            .check(v -> v > 0, "> 0");
    public static final Key<Double> FLOOR_BPS =
        Key.number("thresholds.floor-bps", "0", "feedback never lowers R below this (bit/s)")
            .check(v -> v >= 0, ">= 0");
    public static final Key<Double> MIN_CHANGE =
        Key.number(
                "thresholds.min-change",
                "0.05",
                "a new version of R is published when R moves by at least this fraction (or"
                    + " switches between table and formula)")
            .check(v -> v >= 0 && v < 1, "in [0, 1)");
    public static final List<Key<?>> KEYS =
        List.of(
            MODE,
            FEEDBACK_BASE,
            BURSTINESS_WEIGHT,
            ALPHA_MIN,
            LOSS_ACCEPTABLE,
            CALM_LOSS_RATE,
            POLLS,
            STEP_BPS,
            FLOOR_BPS,
            MIN_CHANGE);

    public Thresholds {
      MODE.require(Objects.requireNonNull(mode, MODE.name()));
      FEEDBACK_BASE.require(Objects.requireNonNull(feedbackBase, FEEDBACK_BASE.name()));
      BURSTINESS_WEIGHT.require(burstinessWeight);
      ALPHA_MIN.require(alphaMin);
      LOSS_ACCEPTABLE.require(lossAcceptable);
      CALM_LOSS_RATE.require(calmLossRate);
      require(
          calmLossRate <= lossAcceptable,
          CALM_LOSS_RATE + " must be <= " + LOSS_ACCEPTABLE + ", got " + calmLossRate);
      POLLS.require(polls);
      STEP_BPS.require(stepBps);
      FLOOR_BPS.require(floorBps);
      MIN_CHANGE.require(minChange);
      LinkStats.CAPACITY_BPS.require(capacityBps);
      Objects.requireNonNull(table, "table");
    }

    static Thresholds from(Values v) {
      return new Thresholds(
          v.get(MODE),
          v.get(FEEDBACK_BASE),
          v.get(BURSTINESS_WEIGHT),
          v.get(ALPHA_MIN),
          v.get(LOSS_ACCEPTABLE),
          v.get(CALM_LOSS_RATE),
          v.get(POLLS),
          v.get(STEP_BPS),
          v.get(FLOOR_BPS),
          v.get(MIN_CHANGE),
          v.get(LinkStats.CAPACITY_BPS),
          Table.from(v));
    }

    public boolean feedback() {
      return mode == ThresholdMode.FEEDBACK;
    }

    /** Whether R's base comes from loss tables: table mode, or feedback on a table base. */
    public boolean tableBase() {
      return mode == ThresholdMode.TABLE || (feedback() && feedbackBase == ThresholdMode.TABLE);
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
      List<Double> rateFractions,
      int runs,
      double seconds,
      long seed,
      int threads,
      long timeoutMs,
      int predictDays,
      long bufferBytes,
      long binMs)
      implements Serializable {
    public static final Key<Double> EPSILON_RATE =
        Key.number(
                "thresholds.epsilon-rate",
                "2e7",
                "ε_r (bit/s): a loss table is reused for tags whose mean background is this close")
            .check(v -> v >= 0, ">= 0");
    public static final Key<Double> EPSILON_BURSTINESS =
        Key.number(
                "thresholds.epsilon-burstiness",
                "0.05",
                "ε_b: ... and whose burstiness is this close")
            .check(v -> v >= 0, ">= 0");
    public static final Key<Double> RTT_MS =
        Key.number(
                "thresholds.table-rtt-ms",
                "100",
                "the simulated cheetah's RTT (the study's high RTT)")
            .check(v -> v > 0, "> 0");
    public static final Key<List<Double>> RATES =
        Key.of(
                "thresholds.table-rates",
                "0.05..0.9:0.05",
                Table::fractions,
                "fractions of C such as 0.05..0.9:0.05 or 0.2,0.5,0.8",
                "cheetah rates simulated, as fractions of C: values and ranges from..to:step")
            .check(
                l -> !l.isEmpty() && l.stream().allMatch(f -> f > 0 && f <= 1),
                "fractions of C in (0, 1]");
    public static final Key<Integer> RUNS =
        Key.integer("thresholds.table-runs", "20", "seeded runs per rate")
            .check(v -> v >= 1, ">= 1");
    public static final Key<Double> SECONDS =
        Key.number(
            "thresholds.table-seconds",
            "20",
            "simulated seconds per run, the first 10 % warm-up (20 runs of 20 s: about 80 s of one"
                + " core per table)");
    public static final Key<Long> SEED =
        Key.whole("thresholds.table-seed", "1", "base seed of the runs");
    public static final Key<Integer> THREADS =
        Key.integer("thresholds.table-threads", "1", "simulator threads per table")
            .check(v -> v >= 1, ">= 1");
    public static final Key<Long> TIMEOUT_MS =
        Key.whole("thresholds.table-timeout-ms", "3600000", "a table build is given up after this")
            .check(v -> v > 0, "> 0");
    public static final Key<Long> BUFFER_BYTES =
        Key.bytes(
                "thresholds.table-buffer-bytes",
                "5000000",
                "each of the simulated port's two queues (primary, scavenger)")
            .check(v -> v > 0, "> 0");
    public static final Key<Integer> PREDICT_DAYS =
        Key.integer(
                "thresholds.predict-days",
                "7",
                "the tag of an hour is the mean of the same hour on this many earlier days (0:"
                    + " never)")
            .check(v -> v >= 0, ">= 0");
    public static final List<Key<?>> KEYS =
        List.of(
            EPSILON_RATE,
            EPSILON_BURSTINESS,
            RTT_MS,
            RATES,
            RUNS,
            SECONDS,
            SEED,
            THREADS,
            TIMEOUT_MS,
            BUFFER_BYTES,
            PREDICT_DAYS);

    public Table {
      EPSILON_RATE.require(epsilonRateBps);
      EPSILON_BURSTINESS.require(epsilonBurstiness);
      RTT_MS.require(rttMs);
      rateFractions = RATES.require(List.copyOf(rateFractions));
      RUNS.require(runs);
      require(
          seconds * 0.9 >= binMs / 1000.0,
          SECONDS
              + " must leave at least one T1 bin ("
              + LinkStats.T1_MS
              + ") after the 10 % warm-up, got "
              + seconds);
      THREADS.require(threads);
      TIMEOUT_MS.require(timeoutMs);
      PREDICT_DAYS.require(predictDays);
      BUFFER_BYTES.require(bufferBytes);
    }

    static Table from(Values v) {
      return new Table(
          v.get(EPSILON_RATE),
          v.get(EPSILON_BURSTINESS),
          v.get(RTT_MS),
          v.get(RATES),
          v.get(RUNS),
          v.get(SECONDS),
          v.get(SEED),
          v.get(THREADS),
          v.get(TIMEOUT_MS),
          v.get(PREDICT_DAYS),
          v.get(BUFFER_BYTES),
          v.get(LinkStats.T1_MS));
    }

    /** A comma list of values and ranges from..to:step (to included); e.g. 0.05..0.9:0.05. */
    private static List<Double> fractions(String text) {
      List<Double> out = new ArrayList<>();
      for (String part : text.split(",")) {
        String p = part.trim();
        int dots = p.indexOf("..");
        int colon = p.indexOf(':');
        if (dots < 0) {
          out.add(Double.parseDouble(p));
          continue;
        }
        if (colon < dots) {
          throw new IllegalArgumentException(
              "has the range '" + p + "' without a step; write e.g. 0.05..0.9:0.05");
        }
        double from = Double.parseDouble(p.substring(0, dots));
        double to = Double.parseDouble(p.substring(dots + 2, colon));
        double step = Double.parseDouble(p.substring(colon + 1));
        if (!(step > 0 && to >= from)) {
          throw new IllegalArgumentException(
              "has the range '" + p + "'; a range needs from <= to and a step > 0");
        }
        long n = (long) Math.floor((to - from) / step + 1e-9) + 1;
        if (n > 1000) {
          throw new IllegalArgumentException(
              "has the range '" + p + "' of " + n + " rates; use a larger step");
        }
        for (long i = 0; i < n; i++) {
          // Rounded so that 0.05 + 2 * 0.05 is 0.15, not 0.15000000000000002.
          out.add(Math.round((from + i * step) * 1e9) / 1e9);
        }
      }
      return out;
    }
  }

  /**
   * Elephant re-routing on a datacenter fabric (docs/FABRIC.md, "The rule"): a link is congested
   * when its utilisation is above {@code utilisationThreshold} of its capacity; an elephant is a
   * flow above {@code elephantShare} of the congested link's capacity; {@code policy} says which
   * elephant is tried first. A moved flow is not moved again for {@code holdMs}, and not back onto
   * a path it left for {@code returnHoldMs}.
   */
  public record Fabric(
      double utilisationThreshold,
      double elephantShare,
      ReroutePolicy policy,
      long holdMs,
      long returnHoldMs,
      String topologyFile,
      String sflowMapFile,
      long flowIdleMs)
      implements Serializable {
    public static final Key<Double> UTILISATION_THRESHOLD =
        Key.number(
                "fabric.utilisation-threshold",
                "0.70",
                "a fabric link is congested above this fraction of its capacity; a new path fits"
                    + " when none of its links goes above it with the moved flow")
            .check(v -> v > 0 && v <= 1, "in (0, 1]");
    public static final Key<Double> ELEPHANT_SHARE =
        Key.number(
                "fabric.elephant-share",
                "0.10",
                "an elephant is a flow above this fraction of the congested link's capacity")
            .check(v -> v > 0 && v < 1, "in (0, 1)");
    public static final Key<ReroutePolicy> POLICY =
        Key.choice(
            "fabric.policy",
            ReroutePolicy.BIGGEST,
            "which elephant of a congested link is tried first: the biggest or the smallest rate",
            ReroutePolicy.BIGGEST,
            ReroutePolicy.SMALLEST);
    public static final Key<Long> HOLD_MS =
        Key.whole("fabric.hold-ms", "5000", "a flow moved is not moved again for this long")
            .check(v -> v >= 0, ">= 0");
    public static final Key<Long> RETURN_HOLD_MS =
        Key.whole(
                "fabric.return-hold-ms",
                "30000",
                "a flow moved is not moved back onto a path it left for this long (>= hold-ms)")
            .check(v -> v >= 0, ">= 0");
    public static final Key<String> TOPOLOGY_FILE =
        Key.text(
            "fabric.topology-file",
            "",
            "the fabric's topology file (docs/FABRIC.md); empty: the fabric job does not run");
    public static final Key<String> SFLOW_MAP_FILE =
        Key.text(
            "fabric.sflow-map-file",
            "",
            "the sflow-map.json of ./cheetah fabric-up --sflow, placing sFlow ports on the"
                + " fabric; required with fabric.topology-file");
    public static final Key<Long> FLOW_IDLE_MS =
        Key.whole(
                "fabric.flow-idle-ms",
                "5000",
                "a rerouted flow without sFlow samples for this long (event time) has its"
                    + " reroute removed")
            .check(v -> v >= 1, ">= 1");
    public static final List<Key<?>> KEYS =
        List.of(
            UTILISATION_THRESHOLD,
            ELEPHANT_SHARE,
            POLICY,
            HOLD_MS,
            RETURN_HOLD_MS,
            TOPOLOGY_FILE,
            SFLOW_MAP_FILE,
            FLOW_IDLE_MS);

    public Fabric {
      UTILISATION_THRESHOLD.require(utilisationThreshold);
      ELEPHANT_SHARE.require(elephantShare);
      POLICY.require(Objects.requireNonNull(policy, POLICY.name()));
      HOLD_MS.require(holdMs);
      RETURN_HOLD_MS.require(returnHoldMs);
      Objects.requireNonNull(topologyFile, TOPOLOGY_FILE.name());
      Objects.requireNonNull(sflowMapFile, SFLOW_MAP_FILE.name());
      FLOW_IDLE_MS.require(flowIdleMs);
      require(
          topologyFile.isBlank() == sflowMapFile.isBlank(),
          TOPOLOGY_FILE
              + " and "
              + SFLOW_MAP_FILE
              + " go together: the fabric job needs both (or neither, and it does not run)");
      require(
          returnHoldMs >= holdMs,
          RETURN_HOLD_MS + " must be >= " + HOLD_MS + " (" + holdMs + "), got " + returnHoldMs);
    }

    static Fabric from(Values v) {
      return new Fabric(
          v.get(UTILISATION_THRESHOLD),
          v.get(ELEPHANT_SHARE),
          v.get(POLICY),
          v.get(HOLD_MS),
          v.get(RETURN_HOLD_MS),
          v.get(TOPOLOGY_FILE),
          v.get(SFLOW_MAP_FILE),
          v.get(FLOW_IDLE_MS));
    }

    /** Whether the fabric job runs: a topology file is configured (docs/FABRIC.md, "The job"). */
    public boolean jobConfigured() {
      return !topologyFile.isBlank();
    }
  }

  /**
   * Definitions of docs/ARCHITECTURE.md, "Transfer throughput": application instances, forecasts,
   * diurnal fits, step changes and performance root-cause analysis (PRCA).
   */
  public record Throughput(
      long instanceWindowMs,
      double longFlowFactor,
      double controlFraction,
      int forecastWindow,
      double ewmaWeight,
      double forecastBandSd,
      double diurnalMaxDb,
      int stepWindow,
      double stepMinT,
      double stepMinChange,
      double slowFraction,
      double saturatedPercent,
      long peerWindowMs,
      int sitePrefixV4,
      int history,
      int pairTtlDays,
      long checkpointIntervalMs)
      implements Serializable {
    public static final Key<Long> INSTANCE_WINDOW_MS =
        Key.whole(
                "throughput.instance-window-ms",
                "5000",
                "flows of one host pair starting within this of the first one are one application"
                    + " instance")
            .check(v -> v >= 0, ">= 0");
    public static final Key<Double> LONG_FLOW_FACTOR =
        Key.number(
                "throughput.long-flow-factor",
                "3",
                "a stream lasting more than this times the median of its peers' durations is a"
                    + " long-flow artefact")
            .check(v -> v > 1, "> 1");
    public static final Key<Double> CONTROL_FRACTION =
        Key.number(
                "throughput.control-fraction",
                "0.01",
                "a flow carrying less than this fraction of its instance's largest stream is a"
                    + " control connection, not a stream")
            .check(v -> v >= 0 && v < 1, "in [0, 1)");
    public static final Key<Integer> FORECAST_WINDOW =
        Key.integer(
                "throughput.forecast-window",
                "5",
                "the forecast is the mean and standard deviation of this many previous observations")
            .check(v -> v >= 2, ">= 2");
    public static final Key<Double> EWMA_WEIGHT =
        Key.number("throughput.ewma-weight", "0.7", "EWMA weight on the history")
            .check(v -> v >= 0 && v < 1, "in [0, 1)");
    public static final Key<Double> FORECAST_BAND_SD =
        Key.number(
                "throughput.forecast-band-sd",
                "2",
                "an observation further than this many standard deviations from the forecast mean"
                    + " is an alert")
            .check(v -> v > 0, "> 0");
    public static final Key<Double> DIURNAL_MAX_DB =
        Key.number(
                "throughput.diurnal-max-db",
                "0.2",
                "a diurnal fit whose phase error δb is below this marks the pair diurnal")
            .check(v -> v > 0, "> 0");
    public static final Key<Integer> STEP_WINDOW =
        Key.integer(
                "throughput.step-window",
                "5",
                "a step is tested between this many observations before it and as many after")
            .check(v -> v >= 2, ">= 2");
    public static final Key<Double> STEP_MIN_T =
        Key.number(
                "throughput.step-min-t",
                "5",
                "a step's two-sample t statistic (between the two windows) must reach this")
            .check(v -> v > 0, "> 0");
    public static final Key<Double> STEP_MIN_CHANGE =
        Key.number(
                "throughput.step-min-change",
                "0.2",
                "a step changes the mean by at least this fraction of the earlier mean")
            .check(v -> v > 0, "> 0");
    public static final Key<Double> SLOW_FRACTION =
        Key.number(
                "throughput.slow-fraction",
                "0.8",
                "a transfer below this fraction of its peers' best cluster median is slow")
            .check(v -> v > 0 && v < 1, "in (0, 1)");
    public static final Key<Double> SATURATED_PERCENT =
        Key.number(
                "throughput.saturated-percent",
                "90",
                "a host resource used at least this much (%) during a transfer is saturated")
            .check(v -> v > 0 && v <= 100, "in (0, 100]");
    public static final Key<Long> PEER_WINDOW_MS =
        Key.whole(
                "throughput.peer-window-ms",
                "3600000",
                "peers' transfers this close in time to a slow one show whether all were slow"
                    + " together (network)")
            .check(v -> v > 0, "> 0");
    public static final Key<Integer> SITE_PREFIX_V4 =
        Key.integer(
                "throughput.site-prefix-v4",
                "24",
                "IPv4 hosts in one prefix of this length are one site (IPv6: twice it); peers are"
                    + " host pairs between the same two sites")
            .check(v -> v >= 0 && v <= 32, "in 0..32");
    public static final Key<Integer> HISTORY =
        Key.integer(
                "throughput.history",
                "1000",
                "the throughput job keeps this many latest observations per series (diurnal fits,"
                    + " steps) and transfers per host pair (PRCA); older ones are forgotten")
            .check(v -> v >= 10, ">= 10");
    public static final Key<Integer> PAIR_TTL_DAYS =
        Key.integer(
                "throughput.pair-ttl-days",
                "8",
                "the throughput job forgets a host pair's series after this many days (event time)"
                    + " without an observation")
            .check(v -> v >= 1, ">= 1");
    public static final Key<Long> CHECKPOINT_INTERVAL_MS =
        Key.whole(
                "throughput.checkpoint-interval-ms",
                "10000",
                "the throughput job's checkpoint interval (the other jobs': flink.checkpoint-interval-ms):"
                    + " its state holds every host pair's series, written in full at each"
                    + " checkpoint, and its rows and alerts, committed at each, come minutes after"
                    + " their flows anyway")
            .check(v -> v > 0, "> 0");
    public static final List<Key<?>> KEYS =
        List.of(
            INSTANCE_WINDOW_MS,
            LONG_FLOW_FACTOR,
            CONTROL_FRACTION,
            FORECAST_WINDOW,
            EWMA_WEIGHT,
            FORECAST_BAND_SD,
            DIURNAL_MAX_DB,
            STEP_WINDOW,
            STEP_MIN_T,
            STEP_MIN_CHANGE,
            SLOW_FRACTION,
            SATURATED_PERCENT,
            PEER_WINDOW_MS,
            SITE_PREFIX_V4,
            HISTORY,
            PAIR_TTL_DAYS,
            CHECKPOINT_INTERVAL_MS);

    public Throughput {
      INSTANCE_WINDOW_MS.require(instanceWindowMs);
      LONG_FLOW_FACTOR.require(longFlowFactor);
      CONTROL_FRACTION.require(controlFraction);
      FORECAST_WINDOW.require(forecastWindow);
      EWMA_WEIGHT.require(ewmaWeight);
      FORECAST_BAND_SD.require(forecastBandSd);
      DIURNAL_MAX_DB.require(diurnalMaxDb);
      STEP_WINDOW.require(stepWindow);
      STEP_MIN_T.require(stepMinT);
      STEP_MIN_CHANGE.require(stepMinChange);
      SLOW_FRACTION.require(slowFraction);
      SATURATED_PERCENT.require(saturatedPercent);
      PEER_WINDOW_MS.require(peerWindowMs);
      SITE_PREFIX_V4.require(sitePrefixV4);
      HISTORY.require(history);
      PAIR_TTL_DAYS.require(pairTtlDays);
      CHECKPOINT_INTERVAL_MS.require(checkpointIntervalMs);
    }

    static Throughput from(Values v) {
      return new Throughput(
          v.get(INSTANCE_WINDOW_MS),
          v.get(LONG_FLOW_FACTOR),
          v.get(CONTROL_FRACTION),
          v.get(FORECAST_WINDOW),
          v.get(EWMA_WEIGHT),
          v.get(FORECAST_BAND_SD),
          v.get(DIURNAL_MAX_DB),
          v.get(STEP_WINDOW),
          v.get(STEP_MIN_T),
          v.get(STEP_MIN_CHANGE),
          v.get(SLOW_FRACTION),
          v.get(SATURATED_PERCENT),
          v.get(PEER_WINDOW_MS),
          v.get(SITE_PREFIX_V4),
          v.get(HISTORY),
          v.get(PAIR_TTL_DAYS),
          v.get(CHECKPOINT_INTERVAL_MS));
    }

    /** The defaults (tests and the offline command without --config). */
    public static Throughput defaults() {
      return CheetahConfig.defaultConfig().throughput();
    }
  }

  public static final Key<String> DATA_DIR =
      Key.text(
          "data-dir",
          ".cheetah/data",
          "Kafka log, checkpoints, savepoints, warehouse, logs, redirect keys");

  /** A component's keys under a title, as ./cheetah config --markdown groups them. */
  public record Section(String title, List<Key<?>> keys) {}

  /** Every key, by component: the only list of keys there is. */
  public static final List<Section> SECTIONS =
      List.of(
          new Section(
              "Detection: [NetFlow cheetah](docs/ARCHITECTURE.md#netflow-cheetah), [parallel flowset](docs/ARCHITECTURE.md#parallel-flowset)",
              Detection.KEYS),
          new Section("Kafka", Kafka.KEYS),
          new Section(
              "Flink: the MiniCluster, and every job wherever it runs (see [The job jar](#the-job-jar))",
              Flink.KEYS),
          new Section(
              "Restarts: how every failing job restarts (see [Restarts](#restarts))",
              Restarts.KEYS),
          new Section("NetFlow: the goflow2 collector", Netflow.KEYS),
          new Section("Warehouse", Warehouse.KEYS),
          new Section(
              "Link statistics: [burstiness](docs/ARCHITECTURE.md#burstiness)", LinkStats.KEYS),
          new Section(
              "Rate threshold R: [definition](docs/ARCHITECTURE.md#rate-threshold-r), [the threshold job](docs/SIMULATOR.md#the-threshold-job)",
              Thresholds.KEYS),
          new Section(
              "Loss tables (thresholds.mode table, or feedback on a table base)", Table.KEYS),
          new Section(
              "Redirects: [redirect commands](docs/ARCHITECTURE.md#redirect-commands), [docs/REDIRECTS.md](docs/REDIRECTS.md)",
              Redirects.KEYS),
          new Section("Fabric: [elephant re-routing](docs/FABRIC.md#the-rule)", Fabric.KEYS),
          new Section(
              "Transfer throughput: [definitions](docs/ARCHITECTURE.md#transfer-throughput)",
              Throughput.KEYS),
          new Section("Data", List.of(DATA_DIR)));

  private static final Map<String, Key<?>> BY_NAME = byName();

  private static Map<String, Key<?>> byName() {
    Map<String, Key<?>> m = new TreeMap<>();
    for (Section s : SECTIONS) {
      for (Key<?> k : s.keys()) {
        if (m.put(k.name(), k) != null) {
          throw new IllegalStateException("configuration key " + k.name() + " is declared twice");
        }
      }
    }
    return m;
  }

  /** Every key with its default, sorted (for --help and docs). */
  public static Map<String, String> defaultValues() {
    Map<String, String> d = new TreeMap<>();
    BY_NAME.forEach((name, k) -> d.put(name, k.defaultValue()));
    return d;
  }

  public static CheetahConfig defaultConfig() {
    return load(Optional.empty(), Map.of());
  }

  /** Every key with the value in effect after the file and the overrides, sorted. */
  public static Map<String, String> effectiveValues(
      Optional<Path> file, Map<String, String> overrides) {
    Map<String, String> v = defaultValues();
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
    Values v = new Values(effectiveValues(file, overrides));
    return new CheetahConfig(
        Detection.from(v),
        Kafka.from(v),
        Flink.from(v),
        Netflow.from(v),
        Warehouse.from(v),
        LinkStats.from(v),
        Redirects.from(v),
        Thresholds.from(v),
        Fabric.from(v),
        Throughput.from(v),
        Path.of(v.get(DATA_DIR)));
  }

  private static void put(Map<String, String> v, String key, String value, String origin) {
    if (!BY_NAME.containsKey(key)) {
      throw new ConfigException(
          "unknown configuration key '"
              + key
              + "' (from "
              + origin
              + "); known keys: "
              + String.join(", ", BY_NAME.keySet()));
    }
    v.put(key, value);
  }

  /** Empty, or a URI with a scheme (file:///..., s3://...): Flink needs to know the file system. */
  private static boolean isDirectoryUri(String text) {
    if (text.isEmpty()) {
      return true;
    }
    try {
      java.net.URI uri = new java.net.URI(text);
      return uri.getScheme() != null && uri.getScheme().length() > 1 && uri.getPath() != null;
    } catch (java.net.URISyntaxException e) {
      return false;
    }
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
