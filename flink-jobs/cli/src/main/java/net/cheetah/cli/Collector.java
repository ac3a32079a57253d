package net.cheetah.cli;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.Supplier;
import net.cheetah.config.CheetahConfig;
import net.cheetah.core.Topics;
import net.cheetah.runtime.ChildProcess;
import net.cheetah.runtime.FreePorts;
import net.cheetah.runtime.ProcessComponent;

/**
 * The goflow2 collector (ingest/goflow2) as a child process (stopped with SIGTERM: it flushes its
 * flows and refused datagrams to Kafka first): NetFlow v5/v9/IPFIX on UDP
 * 127.0.0.1:netflow.udp-port and sFlow v5 on UDP 127.0.0.1:netflow.sflow-udp-port into
 * flows.goflow2.v1, sFlow interface counter samples into snmp.counters.v1 (docs/FABRIC.md, "Through
 * the collector"), refused datagrams into flows.rejected.v1 (it publishes them itself). Every value
 * it relies on is passed as a flag; ready once it prints its {@code ready} line.
 */
final class Collector extends ProcessComponent {
  /** How long goflow2 batches flows before sending them to Kafka. */
  static final String FLUSH_FREQUENCY = "500ms";

  /** Its Kafka principal on a secure cluster (helm/gen_chart_data.py USERS). */
  static final String PRINCIPAL = "cheetah-collector";

  /**
   * goflow2's flags for TLS to brokers whose certificates chain to {@code caPem} and SCRAM-SHA-512
   * (user and password from KAFKA_SASL_USER and KAFKA_SASL_PASS_FILE in its environment); the
   * refused-datagram producer uses the same.
   */
  static List<String> securityFlags(Path caPem) {
    return List.of(
        "-transport.kafka.tls",
        "-transport.kafka.tls.ca",
        caPem.toString(),
        "-transport.kafka.sasl",
        "scram-sha512");
  }

  private final CheetahConfig.Netflow cfg;
  private final Tools tools;
  private final Path logs;
  private final boolean freePorts;
  private final Supplier<String> bootstrap;
  private final Consumer<String> say;
  private final AtomicLong rejected = new AtomicLong();
  private int udpPort;
  private int sflowPort;
  private int metricsPort;

  /**
   * @param freePorts free loopback ports instead of netflow.udp-port, netflow.sflow-udp-port and
   *     netflow.metrics-port
   * @param bootstrap the broker to publish to, asked at start
   */
  Collector(
      CheetahConfig.Netflow cfg,
      Tools tools,
      Path logs,
      boolean freePorts,
      Supplier<String> bootstrap,
      Consumer<String> say) {
    this.cfg = cfg;
    this.tools = tools;
    this.logs = logs;
    this.freePorts = freePorts;
    this.bootstrap = bootstrap;
    this.say = say;
  }

  /**
   * The collector's command line: every port, topic, address and interval it uses. The one builder
   * of both the embedded stack's and the cluster's goflow2 (its security flags come after).
   */
  static List<String> command(
      Path program,
      int udpPort,
      int sflowPort,
      int metricsPort,
      long receiveBufferBytes,
      String bootstrap) {
    return List.of(
        program.toString(),
        "-listen",
        listen(udpPort, sflowPort),
        // netflow.receive-buffer-bytes: it says what the kernel granted in its ready line.
        "-rcvbuf",
        Long.toString(receiveBufferBytes),
        "-addr",
        "127.0.0.1:" + metricsPort,
        "-templates.path",
        "",
        "-format",
        "bin",
        "-transport",
        "kafka",
        "-transport.kafka.brokers",
        bootstrap,
        "-transport.kafka.topic",
        Topics.GOFLOW2,
        // Keyed by exporter (docs/ARCHITECTURE.md, "Data flow"): each exporter's records stay in
        // order in one partition, so event time within a partition only moves forward.
        "-transport.kafka.hashing",
        "-key",
        "sampler_address",
        "-transport.kafka.flushfreq",
        FLUSH_FREQUENCY,
        "-rejected.kafka.brokers",
        bootstrap,
        "-rejected.kafka.topic",
        Topics.REJECTED,
        // sFlow interface counters (a fabric's links: docs/FABRIC.md, "The job"), as the SNMP
        // poller's records, with the same brokers and security as the flows.
        "-counters.kafka.brokers",
        bootstrap,
        "-counters.kafka.topic",
        Topics.SNMP_COUNTERS,
        // Refuse datagrams whose length fields lie (length_mismatch) rather than decode them.
        "-strict=true",
        "-loglevel",
        "warn");
  }

  /** goflow2's {@code -listen}: NetFlow/IPFIX and sFlow, each on its loopback UDP port. */
  static String listen(int udpPort, int sflowPort) {
    return "netflow://127.0.0.1:"
        + udpPort
        + "?workers=1,sflow://127.0.0.1:"
        + sflowPort
        + "?workers=1";
  }

  @Override
  public void start() {
    udpPort = freePorts ? FreePorts.pick() : cfg.udpPort();
    sflowPort = freePorts ? FreePorts.pick() : cfg.sflowUdpPort();
    metricsPort = freePorts ? FreePorts.pick() : cfg.metricsPort();
    List<String> cmd =
        new java.util.ArrayList<>(
            command(
                tools.require(tools.goflow2(), "the goflow2 collector"),
                udpPort,
                sflowPort,
                metricsPort,
                cfg.receiveBufferBytes(),
                bootstrap.get()));
    // Never outlive the JVM (and its ports) once it dies, kill -9 included: our lifeline
    // (ChildProcess.Config.withLifeline) is its stdin. (Cluster mode starts the same command as a
    // daemon, without it.)
    cmd.add("-exit-on-stdin-eof");
    process =
        new ChildProcess(
            ChildProcess.Config.of("goflow2", logs, cmd).withLifeline(), this::onLine, l -> {});
    say.accept(
        "starting goflow2 (NetFlow v5/v9/IPFIX on udp 127.0.0.1:"
            + udpPort
            + ", sFlow v5 on udp 127.0.0.1:"
            + sflowPort
            + ")");
    process.start();
    process.awaitLine(l -> l.contains("\"ready\""), Duration.ofSeconds(30));
    watchExit("goflow2");
  }

  /**
   * Counts the datagrams the collector refused (it published each to flows.rejected.v1); says the
   * UDP receive buffer the kernel granted, from the ready line.
   */
  private void onLine(String line) {
    try {
      Map<String, String> event = FlatJson.parse(line);
      if ("rejected".equals(event.get("event"))) {
        rejected.incrementAndGet();
      } else if ("ready".equals(event.get("event"))) {
        say.accept(receiveBufferLine(event));
      }
    } catch (IllegalArgumentException e) {
      say.accept("unreadable line from goflow2 (" + e.getMessage() + "): " + line);
    }
  }

  /**
   * What the ready line says of the UDP receive buffer: granted and asked, and a warning with the
   * remedy when the kernel granted less (it doubles the value asked, capped at 2 x rmem_max).
   */
  static String receiveBufferLine(Map<String, String> ready) {
    long asked = Long.parseLong(ready.getOrDefault("rcvbuf_asked", "0"));
    long granted = Long.parseLong(ready.getOrDefault("rcvbuf_bytes", "0"));
    if (asked == 0) {
      return String.format(
          Locale.ROOT,
          "goflow2's UDP receive buffer: %,d bytes (the kernel's default; %s=0)",
          granted,
          CheetahConfig.Netflow.RECEIVE_BUFFER_BYTES.name());
    }
    if (granted >= 2 * asked) {
      return String.format(
          Locale.ROOT,
          "goflow2's UDP receive buffer: %,d bytes granted (%s=%d, doubled by the kernel)",
          granted,
          CheetahConfig.Netflow.RECEIVE_BUFFER_BYTES.name(),
          asked);
    }
    return String.format(
        Locale.ROOT,
        "WARNING: goflow2's UDP receive buffer is %,d bytes, below the %,d asked (%s=%d, doubled"
            + " by the kernel): net.core.rmem_max caps it, so bursts may be dropped (goflow2's"
            + " metric cheetah_goflow2_socket_drops_total counts them). Raise the cap as root:"
            + " sysctl -w net.core.rmem_max=%d",
        granted,
        2 * asked,
        CheetahConfig.Netflow.RECEIVE_BUFFER_BYTES.name(),
        asked,
        asked);
  }

  /** goflow2's Prometheus endpoint, once started. */
  String metricsUrl() {
    return "http://127.0.0.1:" + metricsPort + "/metrics";
  }

  /** The UDP port NetFlow/IPFIX goes to, once started. */
  int udpPort() {
    return udpPort;
  }

  /** The UDP port sFlow goes to, once started. */
  int sflowPort() {
    return sflowPort;
  }

  /** Datagrams the collector refused since it started. */
  long rejectedDatagrams() {
    return rejected.get();
  }
}
