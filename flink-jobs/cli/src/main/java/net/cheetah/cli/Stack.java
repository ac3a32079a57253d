package net.cheetah.cli;

import com.google.protobuf.ByteString;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import net.cheetah.config.CheetahConfig;
import net.cheetah.core.Topics;
import net.cheetah.core.flow.Address;
import net.cheetah.jobs.CheetahJob;
import net.cheetah.jobs.JobSettings;
import net.cheetah.jobs.LinkStatsJob;
import net.cheetah.jobs.NormalizeJob;
import net.cheetah.jobs.RedirectJob;
import net.cheetah.jobs.ThresholdJob;
import net.cheetah.jobs.redirects.RedirectKeys;
import net.cheetah.runtime.ChildProcess;
import net.cheetah.runtime.EmbeddedKafka;
import net.cheetah.runtime.FreePorts;
import net.cheetah.runtime.TopicLayout;
import net.cheetah.schemas.v1.RejectedRecord;
import org.apache.flink.api.common.JobStatus;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * The embedded stack (docs/ARCHITECTURE.md, "Embedded"): the in-JVM broker, a MiniCluster running
 * every job, the warehouse and the goflow2 collector as child processes. Started in dependency
 * order; {@link #stopCleanly} stops input first, then takes job savepoints (committing their
 * output) and lets the warehouse catch up, so that the next start loses nothing.
 *
 * <p>Jobs restart by the configured strategy (flink.restart-*, {@link FlinkJobs}); every restart is
 * reported as a warning with its cause, and a job that fails for good is reported loudly and
 * completes {@link #jobFailure()}, so that nothing waits on a dead pipeline.
 */
final class Stack implements AutoCloseable {
  static final String WAREHOUSE_GROUP_PREFIX = "cheetah-warehouse";

  private final CheetahConfig cfg;
  private final Tools tools;
  private final Path data;
  private final boolean freePorts;
  private final Consumer<String> say;
  private final AtomicLong rejectedDatagrams = new AtomicLong();
  private EmbeddedKafka kafka;
  private FlinkJobs flink;
  private ChildProcess warehouse;
  private ChildProcess collector;
  private KafkaProducer<byte[], byte[]> rejectedProducer;
  private String bootstrap;
  private String warehouseUrl;
  private int netflowPort;

  /**
   * @param freePorts pick free loopback ports instead of the configured ones (the demo)
   */
  Stack(CheetahConfig cfg, Tools tools, Path data, boolean freePorts, Consumer<String> say) {
    this.cfg = cfg;
    this.tools = tools;
    this.data = data.toAbsolutePath();
    this.freePorts = freePorts;
    this.say = say;
  }

  static Path warehouseDir(CheetahConfig cfg) {
    return cfg.dataDir().resolve("warehouse");
  }

  /** The broker the stack of {@code cfg} uses (the embedded one unless kafka.bootstrap is set). */
  static String bootstrap(CheetahConfig cfg) {
    return cfg.kafka().bootstrap().isBlank()
        ? "127.0.0.1:" + cfg.kafka().port()
        : cfg.kafka().bootstrap();
  }

  String bootstrap() {
    return bootstrap;
  }

  String warehouseUrl() {
    return warehouseUrl;
  }

  int netflowPort() {
    return netflowPort;
  }

  /**
   * The redirect signing keys: redirects.keys-file, or DATA/keys/redirects.json, created with a
   * fresh random key the first time (docs/REDIRECTS.md; give adapters the same file).
   */
  Path redirectKeys() throws IOException {
    String configured = cfg.redirects().keysFile();
    if (!configured.isBlank()) {
      return Path.of(configured);
    }
    Path file = data.resolve("keys").resolve("redirects.json");
    if (!Files.exists(file)) {
      RedirectKeys.create(file, "k" + java.time.LocalDate.now(java.time.ZoneOffset.UTC));
      say.accept("created redirect signing key " + file);
    }
    return file;
  }

  String flinkUrl() {
    return flink.restUrl();
  }

  long rejectedDatagrams() {
    return rejectedDatagrams.get();
  }

  /**
   * How often each job of this stack restarted, from the Flink REST API ({@code numRestarts}), by
   * job name. A restarted job lost nothing (exactly-once), but something threw: 0 is the only
   * healthy value. Fails when a job's count is not reported yet (a second after its start).
   */
  Map<String, Long> jobRestarts() {
    return flink.restarts();
  }

  /** The state of each job of this stack, by name (RUNNING while healthy). */
  Map<String, JobStatus> jobStatuses() {
    return flink.statuses();
  }

  /**
   * Completes, with what to tell the user, once a job has ended by itself: FAILED after its restart
   * attempts (flink.restart-attempts) were used up, or cancelled from outside. The stack cannot
   * produce complete results after that; whoever waits on it should stop and exit non-zero.
   */
  CompletableFuture<String> jobFailure() {
    return flink.failure();
  }

  /** Throws with the failure's description if a job of this stack ended by itself. */
  void requireJobsRunning() {
    if (flink.failure().isDone()) {
      throw new IllegalStateException(flink.failure().join());
    }
  }

  private int port(int configured) {
    return freePorts ? FreePorts.pick() : configured;
  }

  void start() throws IOException {
    Files.createDirectories(data);
    Path logs = data.resolve("logs");
    Files.createDirectories(logs);
    if (cfg.kafka().bootstrap().isBlank()) {
      say.accept("starting Kafka (KRaft, in-JVM)");
      kafka =
          new EmbeddedKafka(
              EmbeddedKafka.Config.defaults(data)
                  .withPorts(port(cfg.kafka().port()), port(cfg.kafka().controllerPort())));
      kafka.start();
      bootstrap = kafka.bootstrapServers();
      int p = cfg.kafka().partitions();
      new TopicLayout(TopicLayout.Config.embedded().withPartitions(p, p)).createAll(kafka);
    } else {
      bootstrap = cfg.kafka().bootstrap();
    }
    say.accept("Kafka at " + bootstrap);

    say.accept(
        "starting the Flink MiniCluster and the jobs (normalize; cheetahs + flowsets; link stats;"
            + " thresholds; redirects)");
    flink = new FlinkJobs(cfg, data, freePorts, say);
    flink.start();
    JobSettings settings = new JobSettings(bootstrap, cfg.detection());
    flink.submit(NormalizeJob.NAME, env -> NormalizeJob.addTo(env, settings));
    flink.submit(CheetahJob.NAME, env -> CheetahJob.addTo(env, settings));
    flink.submit(LinkStatsJob.NAME, env -> LinkStatsJob.addTo(env, bootstrap, cfg.linkStats()));
    flink.submit(ThresholdJob.NAME, env -> ThresholdJob.addTo(env, bootstrap, cfg.thresholds()));
    Path keys = redirectKeys();
    flink.submit(
        RedirectJob.NAME,
        env -> RedirectJob.addTo(env, bootstrap, cfg.redirects().settings(), keys));
    flink.awaitRunning(Duration.ofSeconds(60));
    say.accept("Flink jobs running; dashboard " + flink.restUrl());

    say.accept("starting the warehouse (ClickHouse engine in-process)");
    int whPort = port(cfg.warehouse().httpPort());
    FreePorts.requireFree(whPort, "the warehouse", "warehouse.http-port");
    List<String> wh =
        List.of(
            tools.require(tools.python(), "the Python venv").toString(),
            "-m",
            "cheetah_warehouse",
            "serve",
            "--data",
            data.resolve("warehouse").toString(),
            "--http-port",
            Integer.toString(whPort),
            "--kafka-brokers",
            bootstrap,
            "--kafka-group-prefix",
            WAREHOUSE_GROUP_PREFIX,
            "--migrations",
            tools.home().resolve("clickhouse/migrations").toString(),
            "--schemas",
            tools.home().resolve("schemas").toString());
    warehouse =
        new ChildProcess(
            ChildProcess.Config.of("warehouse", logs, wh)
                .withEnvironment(
                    Map.of("PYTHONPATH", tools.home().resolve("clickhouse/warehouse").toString()))
                .withStopTimeout(Duration.ofSeconds(60)));
    warehouse.start();
    String ready = warehouse.awaitLine(l -> l.startsWith("READY "), Duration.ofSeconds(180));
    warehouseUrl = ready.substring("READY ".length()).trim();
    say.accept("warehouse at " + warehouseUrl);

    startCollector(logs);
  }

  private void startCollector(Path logs) {
    netflowPort = port(cfg.netflow().udpPort());
    int metrics = port(cfg.netflow().metricsPort());
    Properties p = new Properties();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ProducerConfig.ACKS_CONFIG, "all");
    p.put(ProducerConfig.LINGER_MS_CONFIG, "20");
    rejectedProducer = new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer());
    List<String> cmd =
        List.of(
            tools.require(tools.goflow2(), "the goflow2 collector").toString(),
            "-listen",
            "netflow://127.0.0.1:" + netflowPort + "?workers=1",
            "-format",
            "bin",
            "-transport",
            "kafka",
            "-transport.kafka.brokers",
            bootstrap,
            "-transport.kafka.topic",
            Topics.GOFLOW2,
            // Keyed by exporter (docs/ARCHITECTURE.md, "Data flow"): each exporter's records stay
            // in order in one partition, so event time within a partition only moves forward.
            "-transport.kafka.hashing",
            "-key",
            "sampler_address",
            "-transport.kafka.flushfreq",
            "500ms",
            "-addr",
            "127.0.0.1:" + metrics,
            "-templates.path",
            "",
            "-loglevel",
            "warn");
    collector =
        new ChildProcess(
            ChildProcess.Config.of("goflow2", logs, cmd), this::onCollectorLine, l -> {});
    say.accept("starting goflow2 (NetFlow v5/v9/IPFIX on udp 127.0.0.1:" + netflowPort + ")");
    collector.start();
    collector.awaitLine(l -> l.contains("\"ready\""), Duration.ofSeconds(30));
  }

  /**
   * The collector prints one JSON line per datagram goflow2 could not decode. This runs on the
   * thread draining the collector's stdout, so it never throws: a line it cannot read is logged.
   */
  private void onCollectorLine(String line) {
    try {
      publishRejected(line);
    } catch (RuntimeException e) {
      say.accept("unreadable line from goflow2 (" + e.getMessage() + "): " + line);
    }
  }

  private void publishRejected(String line) {
    Map<String, String> m = FlatJson.parse(line);
    if (!"rejected".equals(m.get("event"))) {
      return;
    }
    RejectedRecord.Builder r =
        RejectedRecord.newBuilder()
            .setStage("goflow2")
            .setReason(m.getOrDefault("reason", "undecodable_datagram"))
            .setDetail(m.getOrDefault("detail", ""))
            .setPayload(
                ByteString.copyFrom(Base64.getDecoder().decode(m.getOrDefault("payload_b64", ""))))
            .setReceivedMs(Long.parseLong(m.getOrDefault("received_ns", "0")) / 1_000_000);
    try {
      r.setExporter(ByteString.copyFrom(Address.parse(m.getOrDefault("exporter", "")).toBytes16()));
    } catch (IllegalArgumentException e) {
      // keep the record without an exporter
    }
    rejectedDatagrams.incrementAndGet();
    rejectedProducer.send(new ProducerRecord<>(Topics.REJECTED, r.build().toByteArray()));
  }

  /**
   * Stops input, then each job with a savepoint (in pipeline order, committing what it wrote), then
   * waits for the warehouse to store everything committed, then stops the rest.
   */
  void stopCleanly(Duration warehouseCatchUp) throws Exception {
    if (collector != null) {
      say.accept("stopping goflow2 (flushing to Kafka)");
      collector.stop();
      collector = null;
    }
    if (rejectedProducer != null) {
      rejectedProducer.flush();
    }
    flink.stopWithSavepoints();
    if (warehouse != null) {
      say.accept("waiting for the warehouse to store everything committed");
      long lag = awaitWarehouseCaughtUp(warehouseCatchUp);
      if (lag != 0) {
        say.accept(
            "warning: the warehouse had not confirmed "
                + (lag < 0 ? "its position" : lag + " committed records")
                + " after "
                + warehouseCatchUp.toSeconds()
                + " s; it resumes from its committed offsets at the next start");
      }
    }
    close();
  }

  /**
   * Until every warehouse consumer group has committed the end of its topics; returns the lag left
   * when {@code timeout} passes first (0 = caught up, -1 = unknown).
   */
  long awaitWarehouseCaughtUp(Duration timeout) throws InterruptedException {
    Properties p = new Properties();
    p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    try (Admin admin = Admin.create(p)) {
      long deadline = System.nanoTime() + timeout.toNanos();
      long lag = warehouseLag(admin);
      while (lag != 0 && System.nanoTime() < deadline) {
        Thread.sleep(250);
        lag = warehouseLag(admin);
      }
      return lag;
    }
  }

  /** Records committed to result topics that the warehouse has not consumed yet (-1 = unknown). */
  long warehouseLag(Admin admin) {
    try {
      List<String> groups =
          admin.listConsumerGroups().all().get().stream()
              .map(g -> g.groupId())
              .filter(g -> g.startsWith(WAREHOUSE_GROUP_PREFIX))
              .toList();
      if (groups.isEmpty()) {
        return -1;
      }
      long lag = 0;
      for (String g : groups) {
        Map<TopicPartition, OffsetAndMetadata> committed =
            admin.listConsumerGroupOffsets(g).partitionsToOffsetAndMetadata().get();
        Map<TopicPartition, OffsetSpec> latest = new LinkedHashMap<>();
        committed.keySet().forEach(tp -> latest.put(tp, OffsetSpec.latest()));
        Map<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> ends =
            admin
                .listOffsets(
                    latest,
                    new org.apache.kafka.clients.admin.ListOffsetsOptions(
                        IsolationLevel.READ_COMMITTED))
                .all()
                .get();
        for (var e : committed.entrySet()) {
          long end = ends.get(e.getKey()).offset();
          long at = e.getValue() == null ? 0 : e.getValue().offset();
          // The last transaction's commit marker takes one offset that the Kafka engine does not
          // commit past: one behind the end is caught up.
          lag += Math.max(0, end - at - 1);
        }
      }
      return lag;
    } catch (Exception e) {
      return -1;
    }
  }

  @Override
  public void close() {
    List<AutoCloseable> parts = new ArrayList<>();
    if (collector != null) {
      parts.add(collector);
    }
    if (rejectedProducer != null) {
      parts.add(() -> rejectedProducer.close(Duration.ofSeconds(5)));
    }
    if (warehouse != null) {
      parts.add(warehouse);
    }
    if (flink != null) {
      parts.add(flink);
    }
    if (kafka != null) {
      parts.add(kafka);
    }
    for (AutoCloseable c : parts) {
      try {
        c.close();
      } catch (Exception e) {
        say.accept("while stopping: " + e.getMessage());
      }
    }
    collector = null;
    rejectedProducer = null;
    warehouse = null;
    flink = null;
    kafka = null;
  }
}
