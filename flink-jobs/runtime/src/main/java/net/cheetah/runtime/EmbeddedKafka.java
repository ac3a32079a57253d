package net.cheetah.runtime;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import kafka.server.KafkaConfig;
import kafka.server.KafkaRaftServer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.metadata.storage.Formatter;
import org.apache.kafka.server.common.MetadataVersion;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A single-node Kafka broker (KRaft, combined broker and controller) inside this JVM, listening on
 * 127.0.0.1 only, storing its log under {@code <dataDirectory>/kafka}. The storage is formatted on
 * first start and reused afterwards, so topics and records survive restarts.
 */
public final class EmbeddedKafka implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(EmbeddedKafka.class);
  private static final int NODE_ID = 1;
  private static final String BROKER_LISTENER = "PLAINTEXT";
  private static final String CONTROLLER_LISTENER = "CONTROLLER";

  /**
   * Broker settings.
   *
   * @param dataDirectory the Cheetah data directory; the broker uses {@code <it>/kafka}
   * @param brokerPort client port on 127.0.0.1 (0 = pick a free one at start)
   * @param controllerPort KRaft controller port on 127.0.0.1 (0 = pick a free one at start)
   * @param brokerOverrides broker properties applied last (for example {@code
   *     log.retention.check.interval.ms})
   * @param startTimeout how long {@link #start()} waits for the broker to serve requests
   */
  public record Config(
      Path dataDirectory,
      int brokerPort,
      int controllerPort,
      Map<String, String> brokerOverrides,
      Duration startTimeout) {

    /** Next to, not on, a real Kafka's 9092/9093. */
    public static final int DEFAULT_BROKER_PORT = 19092;

    public static final int DEFAULT_CONTROLLER_PORT = 19093;
    public static final Duration DEFAULT_START_TIMEOUT = Duration.ofSeconds(60);

    public Config {
      brokerOverrides = Map.copyOf(brokerOverrides);
    }

    public static Config defaults(Path dataDirectory) {
      return new Config(
          dataDirectory,
          DEFAULT_BROKER_PORT,
          DEFAULT_CONTROLLER_PORT,
          Map.of(),
          DEFAULT_START_TIMEOUT);
    }

    public Config withPorts(int broker, int controller) {
      return new Config(dataDirectory, broker, controller, brokerOverrides, startTimeout);
    }

    public Config withBrokerOverrides(Map<String, String> overrides) {
      return new Config(dataDirectory, brokerPort, controllerPort, overrides, startTimeout);
    }

    public Config withStartTimeout(Duration timeout) {
      return new Config(dataDirectory, brokerPort, controllerPort, brokerOverrides, timeout);
    }

    /** Where the broker keeps its log and KRaft metadata. */
    public Path logDirectory() {
      return dataDirectory.resolve("kafka");
    }
  }

  private final Config config;
  private KafkaRaftServer server; // guarded by this
  private int brokerPort;
  private int controllerPort;
  private String clusterId = "";
  private Duration startDuration = Duration.ZERO;

  /** Inert: nothing is written or bound until {@link #start()}. */
  public EmbeddedKafka(Config config) {
    this.config = config;
  }

  public Config config() {
    return config;
  }

  /**
   * Formats the storage if needed, starts the broker and waits until it answers. Fails, leaving
   * nothing running, with what went wrong and what to do.
   */
  public synchronized void start() {
    if (server != null) {
      throw new IllegalStateException("The embedded Kafka broker is already running");
    }
    long begin = System.nanoTime();
    int broker = FreePorts.resolve(config.brokerPort());
    int controller = FreePorts.resolve(config.controllerPort());
    if (broker == controller) {
      throw new IllegalArgumentException(
          "The Kafka broker and controller ports must differ, both are " + broker);
    }
    FreePorts.requireFree(broker, "embedded Kafka broker", "the Kafka broker port");
    FreePorts.requireFree(controller, "embedded Kafka controller", "the Kafka controller port");
    Path logDir = config.logDirectory().toAbsolutePath();
    KafkaConfig kafkaConfig;
    try {
      kafkaConfig = KafkaConfig.fromProps(brokerProperties(logDir, broker, controller));
    } catch (RuntimeException e) {
      throw new IllegalArgumentException(
          "Invalid embedded Kafka broker settings: "
              + e.getMessage()
              + ". Check the broker overrides "
              + config.brokerOverrides().keySet()
              + ".",
          e);
    }
    clusterId = formatIfNeeded(logDir);
    KafkaRaftServer starting = new KafkaRaftServer(kafkaConfig, Time.SYSTEM);
    try {
      starting.startup();
      brokerPort = broker;
      controllerPort = controller;
      awaitServing(broker);
    } catch (RuntimeException e) {
      shutdownQuietly(starting);
      throw new IllegalStateException(
          "The embedded Kafka broker did not start on "
              + FreePorts.LOOPBACK
              + ":"
              + broker
              + " (controller "
              + controller
              + ", data "
              + logDir
              + "): "
              + e.getMessage()
              + ". If another process took a port, stop it or choose other ports (0 picks free"
              + " ones); if the data directory is damaged, move it away to start empty.",
          e);
    }
    server = starting;
    startDuration = Duration.ofNanos(System.nanoTime() - begin);
    LOG.info(
        "Embedded Kafka {} ready at {} in {} (cluster {})",
        org.apache.kafka.common.utils.AppInfoParser.getVersion(),
        bootstrapServers(),
        Durations.describe(startDuration),
        clusterId);
  }

  /** {@code 127.0.0.1:<brokerPort>}; the broker must have been started. */
  public synchronized String bootstrapServers() {
    requireRunning();
    return FreePorts.LOOPBACK + ":" + brokerPort;
  }

  /** The bound client port (resolved when configured as 0). */
  public synchronized int brokerPort() {
    requireRunning();
    return brokerPort;
  }

  /** The bound controller port (resolved when configured as 0). */
  public synchronized int controllerPort() {
    requireRunning();
    return controllerPort;
  }

  /** The cluster id written when the storage was formatted. */
  public synchronized String clusterId() {
    requireRunning();
    return clusterId;
  }

  /** Wall time of the last {@link #start()}, formatting included. */
  public synchronized Duration startDuration() {
    return startDuration;
  }

  public synchronized boolean isRunning() {
    return server != null;
  }

  /** A new admin client for this broker; the caller closes it. */
  public Admin newAdmin() {
    return Admin.create(clientProperties());
  }

  /** {@code bootstrap.servers} and a client id, as a start for producer/consumer configs. */
  public Map<String, Object> clientProperties() {
    Map<String, Object> properties = new LinkedHashMap<>();
    properties.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers());
    return properties;
  }

  /** Creates those of {@code topics} that do not exist yet; returns the names it created. */
  public Set<String> createTopics(Collection<TopicSpec> topics) {
    try (Admin admin = newAdmin()) {
      return TopicCreator.createMissing(admin, topics, Duration.ofSeconds(30));
    }
  }

  /** Creates the topic unless it exists; returns whether it was created. */
  public boolean createTopic(TopicSpec topic) {
    return !createTopics(List.of(topic)).isEmpty();
  }

  /** Stops the broker (a controlled shutdown; the data stays). Safe to call more than once. */
  @Override
  public synchronized void close() {
    if (server == null) {
      return;
    }
    long begin = System.nanoTime();
    KafkaRaftServer stopping = server;
    server = null;
    stopping.shutdown();
    stopping.awaitShutdown();
    LOG.info(
        "Embedded Kafka stopped in {}",
        Durations.describe(Duration.ofNanos(System.nanoTime() - begin)));
  }

  private Properties brokerProperties(Path logDir, int broker, int controller) {
    Properties p = new Properties();
    p.put("process.roles", "broker,controller");
    p.put("node.id", String.valueOf(NODE_ID));
    // A static voter set: nothing about the controller's address is persisted, so ports may
    // change between restarts.
    p.put("controller.quorum.voters", NODE_ID + "@" + FreePorts.LOOPBACK + ":" + controller);
    p.put(
        "listeners",
        BROKER_LISTENER
            + "://"
            + FreePorts.LOOPBACK
            + ":"
            + broker
            + ","
            + CONTROLLER_LISTENER
            + "://"
            + FreePorts.LOOPBACK
            + ":"
            + controller);
    p.put("advertised.listeners", BROKER_LISTENER + "://" + FreePorts.LOOPBACK + ":" + broker);
    p.put("controller.listener.names", CONTROLLER_LISTENER);
    p.put("inter.broker.listener.name", BROKER_LISTENER);
    p.put("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT");
    p.put("log.dirs", logDir.toString());
    p.put("metadata.log.dir", logDir.toString());
    // One node: every internal topic has one replica, and one in-sync replica suffices.
    p.put("num.partitions", "1");
    p.put("default.replication.factor", "1");
    p.put("min.insync.replicas", "1");
    p.put("offsets.topic.replication.factor", "1");
    p.put("offsets.topic.num.partitions", "4");
    p.put("transaction.state.log.replication.factor", "1");
    p.put("transaction.state.log.min.isr", "1");
    p.put("transaction.state.log.num.partitions", "4");
    p.put("share.coordinator.state.topic.replication.factor", "1");
    p.put("share.coordinator.state.topic.min.isr", "1");
    // Flink's exactly-once sink keeps transactions open across checkpoints and restarts.
    p.put("transaction.max.timeout.ms", String.valueOf(TimeUnit.HOURS.toMillis(1)));
    p.put("group.initial.rebalance.delay.ms", "0");
    // The broker is unfenced on its first heartbeat after registering: don't wait 2 s for it.
    p.put("broker.heartbeat.interval.ms", "500");
    // Topics come only from Topics/TopicSpec, never from a typo in a client.
    p.put("auto.create.topics.enable", "false");
    p.putAll(config.brokerOverrides());
    return p;
  }

  /** Formats the log directory unless it holds meta.properties; returns the cluster id. */
  private static String formatIfNeeded(Path logDir) {
    Path meta = logDir.resolve("meta.properties");
    if (Files.exists(meta)) {
      return readClusterId(meta);
    }
    String newClusterId = Uuid.randomUuid().toString();
    ByteArrayOutputStream output = new ByteArrayOutputStream();
    try {
      Files.createDirectories(logDir);
      new Formatter()
          .setPrintStream(new PrintStream(output, true, StandardCharsets.UTF_8))
          .setNodeId(NODE_ID)
          .setClusterId(newClusterId)
          .setDirectories(List.of(logDir.toString()))
          .setMetadataLogDirectory(logDir.toString())
          .setControllerListenerName(CONTROLLER_LISTENER)
          .setReleaseVersion(MetadataVersion.LATEST_PRODUCTION)
          .run();
    } catch (Exception e) {
      throw new IllegalStateException(
          "Could not format the Kafka storage in "
              + logDir
              + ": "
              + e.getMessage()
              + ". Check that the directory is writable; if it holds a damaged broker, move it"
              + " away to start empty.",
          e);
    }
    LOG.info("Formatted Kafka storage {}: {}", logDir, output.toString(StandardCharsets.UTF_8));
    return newClusterId;
  }

  private static String readClusterId(Path meta) {
    Properties properties = new Properties();
    try (InputStream in = Files.newInputStream(meta)) {
      properties.load(in);
    } catch (IOException e) {
      throw new IllegalStateException("Cannot read " + meta + ": " + e.getMessage(), e);
    }
    return Optional.ofNullable(properties.getProperty("cluster.id"))
        .orElseThrow(
            () ->
                new IllegalStateException(
                    meta + " has no cluster.id: the Kafka storage is damaged; move it away"));
  }

  private void awaitServing(int broker) {
    Map<String, Object> properties = new LinkedHashMap<>();
    properties.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, FreePorts.LOOPBACK + ":" + broker);
    try (Admin admin = Admin.create(properties)) {
      Wait.until(
          "the Kafka broker on port " + broker + " to answer",
          config.startTimeout(),
          Duration.ofMillis(100),
          () -> {
            try {
              return !admin.describeCluster().nodes().get(5, TimeUnit.SECONDS).isEmpty();
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
              throw new IllegalStateException(e);
            } catch (Exception e) {
              return false;
            }
          });
    }
  }

  private static void shutdownQuietly(KafkaRaftServer server) {
    try {
      server.shutdown();
      server.awaitShutdown();
    } catch (RuntimeException e) {
      LOG.warn("Shutting down a broker that failed to start failed too", e);
    }
  }

  private void requireRunning() {
    if (server == null) {
      throw new IllegalStateException("The embedded Kafka broker is not running: call start()");
    }
  }
}
