package net.cheetah.cli;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Consumer;
import net.cheetah.config.CheetahConfig;
import net.cheetah.jobs.StreamJob;
import net.cheetah.jobs.flink.RestartStrategy;
import net.cheetah.runtime.FlinkRest;
import net.cheetah.runtime.FreePorts;
import net.cheetah.runtime.TopicLayout;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.Uuid;

/**
 * A real cluster on one machine ({@code ./cheetah cluster}; docs/ARCHITECTURE.md, "Runtime modes"):
 * separate processes on 127.0.0.1, each in its own session so that they outlive the command: three
 * Kafka brokers (KRaft, each broker and controller, a quorum of three; every topic replicated 3
 * times, min.insync.replicas 2), a Flink standalone session cluster (a JobManager and two
 * TaskManagers), the warehouse and goflow2 pointed at the three brokers. Everything lives in {@code
 * DATA/cluster}: configs, data, logs, and {@link ClusterState}.
 */
final class Cluster {
  static final int BROKERS = 3;

  /** TaskManagers unless told otherwise (the benchmark compares one with two). */
  static final int TASK_MANAGERS = 2;

  /** The shaded job jar (flink-jobs/jobs) and the entry point that runs any job by name. */
  static final String JOB_JAR = "flink-jobs/jobs/target/cheetah-jobs.jar";

  static final String ENTRY_CLASS = "net.cheetah.jobs.JobMain";

  private static final Duration START_TIMEOUT = Duration.ofSeconds(180);

  private final CheetahConfig cfg;
  private final Tools tools;
  private final Path dir;
  private final Consumer<String> say;

  Cluster(CheetahConfig cfg, Tools tools, Consumer<String> say) {
    this.cfg = cfg;
    this.tools = tools;
    this.dir = dir(cfg);
    this.say = say;
  }

  /** The cluster's directory: DATA/cluster. */
  static Path dir(CheetahConfig cfg) {
    return cfg.dataDir().toAbsolutePath().normalize().resolve("cluster");
  }

  Path dir() {
    return dir;
  }

  /** Where a secure cluster keeps its CA, keystores and passwords ({@link ClusterSecurity}). */
  static Path securityDir(ClusterState s) {
    return Path.of(
            s.data().kafkaSecurity().get(net.cheetah.config.CheetahConfig.Kafka.CA_FILE.name()))
        .getParent();
  }

  Optional<ClusterState> state() throws IOException {
    return ClusterState.load(dir);
  }

  /** The state of a cluster that was started, whatever of it runs now. */
  ClusterState requireState() throws IOException {
    return state()
        .orElseThrow(
            () -> new IllegalStateException("no cluster at " + dir + ": ./cheetah cluster up"));
  }

  /** The state of a cluster that runs; says how to start it otherwise. */
  ClusterState requireUp() throws IOException {
    ClusterState s = requireState();
    List<String> dead =
        s.processes().stream().filter(p -> !p.alive()).map(ClusterState.Proc::name).toList();
    if (!dead.isEmpty()) {
      throw new IllegalStateException(
          "the cluster at "
              + dir
              + " is not up ("
              + String.join(", ", dead)
              + " not running): ./cheetah cluster up");
    }
    return s;
  }

  // --- up -----------------------------------------------------------------------------------

  /**
   * Starts the cluster, or whatever of it is not running: a cluster recorded in the state (stopped
   * by {@code down}, or killed, or the machine restarted) gets each dead process started again with
   * its recorded command, ports and data; live ones are left alone.
   *
   * @param freePorts free ports for goflow2, the warehouse and the Flink REST API too (the brokers'
   *     and Flink's internal ports are always free ports)
   * @param slots task slots per TaskManager
   * @param taskManagers how many TaskManagers a new cluster gets
   * @param secure a new cluster gets Kafka security ({@link ClusterSecurity}): TLS on every
   *     listener, SCRAM, one principal per component with its ACLs
   */
  ClusterState up(boolean freePorts, int slots, int taskManagers, boolean secure)
      throws IOException {
    Optional<ClusterState> existing = state();
    ClusterState s;
    if (existing.isPresent()) {
      s = existing.get();
      List<ClusterState.Proc> dead = s.processes().stream().filter(p -> !p.alive()).toList();
      if (dead.isEmpty()) {
        say.accept("the cluster at " + dir + " is already up (./cheetah cluster status)");
        return s;
      }
      say.accept(
          "starting "
              + String.join(", ", dead.stream().map(ClusterState.Proc::name).toList())
              + " again (recorded in "
              + ClusterState.file(dir)
              + ")");
      for (ClusterState.Proc p : dead) {
        launch(s, p);
        if (p.name().startsWith("kafka-")) {
          continue; // a broker alone waits for its quorum: the next ones join it
        }
      }
      for (ClusterState.Proc p : s.processes()) {
        awaitReady(s, s.process(p.name()).orElseThrow());
      }
      createTopics(s);
      return s;
    }
    s = create(freePorts, slots, taskManagers, secure);
    try {
      for (ClusterState.Proc p : s.processes()) {
        if (p.name().equals("jobmanager")) {
          // Brokers first, with every topic, then Flink, the warehouse and goflow2.
          for (ClusterState.Proc b : s.processes()) {
            if (b.name().startsWith("kafka-")) {
              awaitReady(s, s.process(b.name()).orElseThrow());
            }
          }
          createTopics(s);
        }
        launch(s, p);
        if (!p.name().startsWith("kafka-")) {
          awaitReady(s, s.process(p.name()).orElseThrow());
        }
      }
    } catch (RuntimeException | IOException e) {
      say.accept("the cluster did not start; stopping what started");
      stopProcesses(s);
      throw e;
    }
    return s;
  }

  /** Lays out a new cluster: ports, configuration files, formatted broker storage, commands. */
  private ClusterState create(boolean freePorts, int slots, int taskManagers, boolean secure)
      throws IOException {
    Path kafkaLib = lib("kafka");
    Path flinkLib = lib("flink");
    Files.createDirectories(dir.resolve("logs"));
    Path log4j = dir.resolve("log4j2.properties");
    Files.writeString(log4j, LOG4J);

    int[] brokerPorts = new int[BROKERS];
    int[] controllerPorts = new int[BROKERS];
    int[] mtlsPorts = new int[BROKERS];
    List<String> mtls = new ArrayList<>();
    for (int i = 0; i < BROKERS; i++) {
      brokerPorts[i] = FreePorts.pick();
      controllerPorts[i] = FreePorts.pick();
      if (secure) {
        mtlsPorts[i] = FreePorts.pick();
        mtls.add("127.0.0.1:" + mtlsPorts[i]);
      }
    }
    List<String> voters = new ArrayList<>();
    List<String> bootstrap = new ArrayList<>();
    for (int i = 0; i < BROKERS; i++) {
      voters.add((i + 1) + "@127.0.0.1:" + controllerPorts[i]);
      bootstrap.add("127.0.0.1:" + brokerPorts[i]);
    }
    int restPort = port(freePorts, cfg.flink().restPort(), "flink.rest-port");
    int warehousePort = port(freePorts, cfg.warehouse().httpPort(), "warehouse.http-port");
    int netflowPort = freePorts ? FreePorts.pick() : cfg.netflow().udpPort();
    int sflowPort = freePorts ? FreePorts.pick() : cfg.netflow().sflowUdpPort();
    int metricsPort = freePorts ? FreePorts.pick() : cfg.netflow().metricsPort();
    Optional<ClusterSecurity> security =
        secure
            ? Optional.of(
                ClusterSecurity.create(
                    dir.resolve("security"),
                    KafkaPrincipals.read(tools.home()).names(),
                    String.join(",", mtls)))
            : Optional.empty();
    ClusterState s =
        ClusterState.create(
            dir,
            String.join(",", bootstrap),
            "http://127.0.0.1:" + restPort,
            "",
            netflowPort,
            security.map(ClusterSecurity::configKeys).orElse(Map.of()));

    String clusterId = Uuid.randomUuid().toString();
    while (clusterId.startsWith("-")) { // read as an option by the storage tool
      clusterId = Uuid.randomUuid().toString();
    }
    for (int i = 0; i < BROKERS; i++) {
      String name = "kafka-" + (i + 1);
      Path home = dir.resolve(name);
      Files.createDirectories(home);
      Path props = home.resolve("server.properties");
      Files.writeString(
          props,
          brokerProperties(
              i + 1,
              String.join(",", voters),
              brokerPorts[i],
              mtlsPorts[i],
              controllerPorts[i],
              home.resolve("data"),
              security));
      if (security.isPresent()) {
        Files.setPosixFilePermissions(
            props, java.nio.file.attribute.PosixFilePermissions.fromString("rw-------"));
      }
      List<String> java = java(kafkaLib, log4j, "384m", List.of());
      List<String> format = new ArrayList<>(java);
      format.addAll(
          List.of("kafka.tools.StorageTool", "format", "-t", clusterId, "-c", props.toString()));
      if (security.isPresent()) {
        format.addAll(security.get().formatArguments());
      }
      run(format, home.resolve("format.log"), "formatting the storage of " + name);
      List<String> cmd = new ArrayList<>(java);
      cmd.addAll(List.of("kafka.Kafka", props.toString()));
      s.put(
          proc(
              name,
              cmd,
              Map.of(),
              secure
                  ? Map.of(
                      "kafka",
                      brokerPorts[i],
                      "kafka-mtls",
                      mtlsPorts[i],
                      "controller",
                      controllerPorts[i])
                  : Map.of("kafka", brokerPorts[i], "controller", controllerPorts[i])));
    }

    Path flink = dir.resolve("flink");
    Path conf = flink.resolve("conf");
    Files.createDirectories(conf);
    int rpcPort = FreePorts.pick();
    int blobPort = FreePorts.pick();
    Files.writeString(conf.resolve("config.yaml"), flinkConfig(flink, restPort, rpcPort, slots));
    List<String> jm = java(flinkLib, log4j, "512m", List.of());
    jm.addAll(
        List.of(
            "org.apache.flink.runtime.entrypoint.StandaloneSessionClusterEntrypoint",
            "--configDir",
            conf.toString(),
            "-Dblob.server.port=" + blobPort,
            "-Dio.tmp.dirs=" + tmp(flink, "jobmanager")));
    s.put(
        proc(
            "jobmanager",
            jm,
            Map.of(),
            Map.of("rest", restPort, "rpc", rpcPort, "blob", blobPort)));
    for (int i = 1; i <= taskManagers; i++) {
      String name = "taskmanager-" + i;
      int tmRpc = FreePorts.pick();
      int tmData = FreePorts.pick();
      List<String> tm =
          java(
              flinkLib,
              log4j,
              "512m",
              List.of("-XX:MaxDirectMemorySize=256m", "-XX:MaxMetaspaceSize=256m"));
      tm.addAll(
          List.of(
              "org.apache.flink.runtime.taskexecutor.TaskManagerRunner",
              "--configDir",
              conf.toString(),
              "-Dtaskmanager.resource-id=" + name,
              "-Dtaskmanager.rpc.port=" + tmRpc,
              "-Dtaskmanager.data.port=" + tmData,
              "-Dio.tmp.dirs=" + tmp(flink, name)));
      s.put(proc(name, tm, Map.of(), Map.of("rpc", tmRpc, "data", tmData)));
    }

    List<String> wh =
        new ArrayList<>(
            Warehouse.command(tools, Warehouse.dir(dir), warehousePort, s.data().bootstrap()));
    if (security.isPresent()) {
      wh.addAll(
          List.of("--kafka-config", security.get().librdkafka(Warehouse.PRINCIPAL).toString()));
    }
    s.put(proc("warehouse", wh, Warehouse.environment(tools), Map.of("http", warehousePort)));
    List<String> goflow2 =
        new ArrayList<>(
            Collector.command(
                tools.require(tools.goflow2(), "the goflow2 collector"),
                netflowPort,
                sflowPort,
                metricsPort,
                cfg.netflow().receiveBufferBytes(),
                s.data().bootstrap()));
    Map<String, String> goflow2Env = Map.of();
    if (security.isPresent()) {
      ClusterSecurity sec = security.get();
      goflow2.addAll(Collector.securityFlags(sec.caPem()));
      goflow2Env =
          Map.of(
              "KAFKA_SASL_USER",
              Collector.PRINCIPAL,
              "KAFKA_SASL_PASS_FILE",
              sec.passwords().resolve(Collector.PRINCIPAL).toString());
    }
    s.put(
        proc(
            "goflow2",
            goflow2,
            goflow2Env,
            Map.of("netflow-udp", netflowPort, "sflow-udp", sflowPort, "metrics", metricsPort)));
    return s;
  }

  private ClusterState.Proc proc(
      String name, List<String> cmd, Map<String, String> env, Map<String, Integer> ports) {
    return new ClusterState.Proc(
        name,
        cmd,
        env,
        dir.resolve("logs").resolve(name + ".log").toString(),
        new TreeMap<>(ports),
        0,
        "");
  }

  private int port(boolean free, int configured, String key) {
    if (free) {
      return FreePorts.pick();
    }
    FreePorts.requireFree(configured, "the cluster", key);
    return configured;
  }

  private static String tmp(Path flink, String name) throws IOException {
    Path t = flink.resolve("tmp").resolve(name);
    Files.createDirectories(t);
    return t.toString();
  }

  /** The jars of a distribution ./cheetah setup resolved (flink-jobs/cluster-dist/NAME). */
  private Path lib(String name) {
    Path lib = tools.home().resolve("flink-jobs/cluster-dist").resolve(name).resolve("target/lib");
    if (!Files.isDirectory(lib)) {
      throw new IllegalStateException(
          "the " + name + " jars are missing at " + lib + "; run ./cheetah setup");
    }
    return lib;
  }

  /**
   * A JVM like this one (same java, the same --add-opens list: docs/ENVIRONMENT.md, "Flink on JDK
   * 17") on the jars of {@code lib}.
   */
  private static List<String> java(Path lib, Path log4j, String heap, List<String> extra) {
    List<String> cmd = new ArrayList<>();
    cmd.add(ProcessHandle.current().info().command().orElse("java"));
    for (String arg : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
      if (arg.startsWith("--add-opens")) {
        cmd.add(arg);
      }
    }
    cmd.addAll(List.of("-Xms" + heap, "-Xmx" + heap, "-XX:+UseG1GC"));
    cmd.addAll(extra);
    cmd.add("-Dlog4j2.configurationFile=" + log4j);
    cmd.add("-cp");
    cmd.add(lib + "/*");
    return cmd;
  }

  private static void run(List<String> cmd, Path log, String what) throws IOException {
    try {
      Process p =
          new ProcessBuilder(cmd)
              .redirectErrorStream(true)
              .redirectOutput(ProcessBuilder.Redirect.to(log.toFile()))
              .start();
      if (p.waitFor() != 0) {
        throw new IllegalStateException(what + " failed:\n" + Daemon.tail(log, 20));
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted " + what, e);
    }
  }

  private String brokerProperties(
      int node,
      String voters,
      int port,
      int mtlsPort,
      int controllerPort,
      Path data,
      Optional<ClusterSecurity> security)
      throws IOException {
    int partitions = cfg.kafka().partitions();
    List<String> lines =
        new ArrayList<>(
            List.of(
                "# Written by ./cheetah cluster up: one of three KRaft nodes, broker and controller.",
                "process.roles=broker,controller",
                "node.id=" + node,
                "controller.quorum.voters=" + voters,
                "listeners=PLAINTEXT://127.0.0.1:"
                    + port
                    + ",CONTROLLER://127.0.0.1:"
                    + controllerPort,
                "advertised.listeners=PLAINTEXT://127.0.0.1:" + port,
                "controller.listener.names=CONTROLLER",
                "inter.broker.listener.name=PLAINTEXT",
                "listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT",
                "log.dirs=" + data,
                "num.partitions=" + partitions,
                "default.replication.factor=" + BROKERS,
                "min.insync.replicas=" + (BROKERS - 1),
                "unclean.leader.election.enable=false",
                "auto.create.topics.enable=false",
                "offsets.topic.replication.factor=" + BROKERS,
                "offsets.topic.num.partitions=4",
                "transaction.state.log.replication.factor=" + BROKERS,
                "transaction.state.log.min.isr=" + (BROKERS - 1),
                "transaction.state.log.num.partitions=4",
                "share.coordinator.state.topic.replication.factor=" + BROKERS,
                "share.coordinator.state.topic.min.isr=" + (BROKERS - 1),
                // Flink's transactional sink keeps a transaction open across a checkpoint.
                "transaction.max.timeout.ms=3600000",
                "group.initial.rebalance.delay.ms=0",
                "num.network.threads=2",
                "num.io.threads=2"));
    if (security.isPresent()) {
      // The secure listeners replace the plaintext ones (TLS on every listener).
      List<String> secure = security.get().brokerProperties(port, mtlsPort, controllerPort);
      lines.removeIf(
          l ->
              secure.stream()
                  .anyMatch(
                      x -> !x.startsWith("#") && l.startsWith(x.substring(0, x.indexOf('=') + 1))));
      lines.addAll(secure);
    }
    lines.add("");
    return String.join("\n", lines);
  }

  private String flinkConfig(Path flink, int restPort, int rpcPort, int slots) {
    Map<String, String> c = new LinkedHashMap<>();
    c.put("jobmanager.rpc.address", "127.0.0.1");
    c.put("jobmanager.rpc.port", Integer.toString(rpcPort));
    c.put("jobmanager.bind-host", "127.0.0.1");
    c.put("jobmanager.memory.process.size", "1024m");
    c.put("rest.address", "127.0.0.1");
    c.put("rest.bind-address", "127.0.0.1");
    c.put("rest.port", Integer.toString(restPort));
    c.put("taskmanager.host", "127.0.0.1");
    c.put("taskmanager.bind-host", "127.0.0.1");
    c.put("taskmanager.numberOfTaskSlots", Integer.toString(slots));
    // Each TaskManager's resources, spelled out as Flink's start scripts would pass them (its
    // JVM: heap = framework + task heap, direct memory >= framework + task off-heap + network).
    c.put("taskmanager.cpu.cores", "1.0");
    c.put("taskmanager.memory.framework.heap.size", "128m");
    c.put("taskmanager.memory.task.heap.size", "384m");
    c.put("taskmanager.memory.framework.off-heap.size", "128m");
    c.put("taskmanager.memory.task.off-heap.size", "0m");
    c.put("taskmanager.memory.network.min", "96m");
    c.put("taskmanager.memory.network.max", "96m");
    c.put("taskmanager.memory.managed.size", "64m");
    c.put("taskmanager.memory.jvm-metaspace.size", "256m");
    c.put("taskmanager.memory.jvm-overhead.min", "192m");
    c.put("taskmanager.memory.jvm-overhead.max", "192m");
    // Spread the jobs' tasks over both TaskManagers: losing one then costs a restart, not all.
    c.put("taskmanager.load-balance.mode", "slots");
    // A lost TaskManager is noticed within seconds (two missed heartbeats or refused RPCs).
    c.put("heartbeat.interval", "2000");
    c.put("heartbeat.timeout", "20000");
    c.put("execution.checkpointing.dir", flink.resolve("checkpoints").toUri().toString());
    c.put("execution.checkpointing.savepoint-dir", flink.resolve("savepoints").toUri().toString());
    c.put("execution.checkpointing.externalized-checkpoint-retention", "RETAIN_ON_CANCELLATION");
    c.put("execution.checkpointing.interval", cfg.flink().checkpointIntervalMs() + " ms");
    c.put("execution.checkpointing.mode", "EXACTLY_ONCE");
    c.putAll(RestartStrategy.settings(cfg.flink().restarts()));
    c.put("metrics.fetcher.update-interval", "1000");
    c.put("web.upload.dir", flink.resolve("uploads").toString());
    StringBuilder yaml = new StringBuilder("# Written by ./cheetah cluster up.\n");
    c.forEach((k, v) -> yaml.append(k).append(": ").append(yamlValue(v)).append('\n'));
    return yaml.toString();
  }

  private static String yamlValue(String v) {
    return v.matches("[A-Za-z0-9_./:-]+") ? v : "'" + v.replace("'", "''") + "'";
  }

  private static final String LOG4J =
      String.join(
          "\n",
          "# Written by ./cheetah cluster up: every JVM of the cluster logs to its stdout, which",
          "# goes to DATA/cluster/logs/NAME.log.",
          "rootLogger.level = INFO",
          "rootLogger.appenderRef.out.ref = out",
          "appender.out.type = Console",
          "appender.out.name = out",
          "appender.out.layout.type = PatternLayout",
          "appender.out.layout.pattern = %d{ISO8601} %-5p %c{1} - %m%n",
          "logger.kafkaclients.name = org.apache.kafka.clients",
          "logger.kafkaclients.level = WARN",
          "");

  /** Starts one process with its recorded command and records its PID. */
  private void launch(ClusterState s, ClusterState.Proc p) throws IOException {
    say.accept("starting " + p.name() + describePorts(p));
    long offset = Daemon.logSize(p.logPath());
    Daemon.Handle h = Daemon.start(p.command(), p.env(), p.logPath());
    s.put(p.withHandle(h));
    offsets.put(p.name(), offset);
  }

  private final Map<String, Long> offsets = new LinkedHashMap<>();

  private static String describePorts(ClusterState.Proc p) {
    List<String> ports = new ArrayList<>();
    p.ports().forEach((k, v) -> ports.add(k + " " + v));
    return ports.isEmpty() ? "" : " (" + String.join(", ", ports) + ")";
  }

  /** Waits until a process just launched is ready for what comes after it. */
  private void awaitReady(ClusterState s, ClusterState.Proc p) throws IOException {
    Long offset = offsets.get(p.name());
    if (offset == null) {
      return; // it was running already
    }
    long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
    while (true) {
      if (!p.alive()) {
        throw new IllegalStateException(
            p.name()
                + " exited while starting; its log "
                + p.log()
                + ":\n"
                + Daemon.tail(p.logPath(), 30));
      }
      Optional<String> ready = ready(s, p, offset);
      if (ready.isPresent()) {
        if (p.name().equals("warehouse")) {
          s.setWarehouseUrl(ready.get().substring("READY ".length()).trim());
        }
        offsets.remove(p.name());
        return;
      }
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException(
            p.name()
                + " was not ready within "
                + START_TIMEOUT.toSeconds()
                + " s; its log "
                + p.log()
                + ":\n"
                + Daemon.tail(p.logPath(), 30));
      }
      Daemon.sleep(250);
    }
  }

  private Optional<String> ready(ClusterState s, ClusterState.Proc p, long offset) {
    String n = p.name();
    if (n.startsWith("kafka-")) {
      return Daemon.lineAfter(p.logPath(), offset, l -> l.contains("Kafka Server started"));
    }
    if (n.startsWith("taskmanager-")) {
      return Daemon.lineAfter(
          p.logPath(), offset, l -> l.contains("Successful registration at resource manager"));
    }
    if (n.equals("jobmanager")) {
      try {
        new FlinkRest(s.data().restUrl()).taskManagers();
        return Optional.of("up");
      } catch (IllegalStateException e) {
        return Optional.empty();
      }
    }
    if (n.equals("warehouse")) {
      return Daemon.lineAfter(p.logPath(), offset, l -> l.startsWith("READY "));
    }
    if (n.equals("goflow2")) {
      return Daemon.lineAfter(p.logPath(), offset, l -> l.contains("\"ready\""));
    }
    return Optional.of("started");
  }

  /**
   * Creates the missing topics of schemas/topics.yaml: 3 replicas each, 2 in sync to write; on a
   * secure cluster, each component's SCRAM credential and ACLs too.
   */
  private void createTopics(ClusterState s) throws IOException {
    try (Admin admin = admin(s.data())) {
      long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
      while (brokersUp(admin) < BROKERS) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException(
              "fewer than " + BROKERS + " brokers joined the cluster within " + START_TIMEOUT);
        }
        Daemon.sleep(250);
      }
      Set<String> created =
          new TopicLayout(
                  TopicLayout.Config.replicated(BROKERS)
                      .withPartitions(cfg.kafka().partitions(), cfg.kafka().partitions()))
              .createAll(admin, Duration.ofSeconds(60));
      if (!created.isEmpty()) {
        say.accept(
            "created "
                + created.size()
                + " topics, "
                + BROKERS
                + " replicas each, min.insync.replicas "
                + (BROKERS - 1));
      }
      if (!s.data().kafkaSecurity().isEmpty()) {
        KafkaPrincipals principals = KafkaPrincipals.read(tools.home());
        new ClusterSecurity(dir.resolve("security")).grant(admin, principals);
        say.accept(
            "Kafka security: SASL_SSL (SCRAM-SHA-512) for "
                + principals.names().size()
                + " component principals, "
                + principals.acls().size()
                + " ACLs");
      }
    }
  }

  private static int brokersUp(Admin admin) {
    try {
      return admin.describeCluster().nodes().get(10, java.util.concurrent.TimeUnit.SECONDS).size();
    } catch (Exception e) {
      return 0;
    }
  }

  /** An Admin client of the cluster as its CLI's principal (a super user when secure). */
  static Admin admin(ClusterState.Data d) {
    return admin(d.bootstrap(), d.clientSecurity(KafkaPrincipals.ADMIN));
  }

  static Admin admin(String bootstrap, Map<String, String> security) {
    Properties p = new Properties();
    p.putAll(security);
    p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 20_000);
    p.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000);
    return Admin.create(p);
  }

  // --- submit -------------------------------------------------------------------------------

  /**
   * Uploads the shaded job jar and runs every streaming job of {@link
   * StreamJob#stack(CheetahConfig)} from it through the JobManager's REST API, each from the
   * savepoint {@code down} took if there is one; waits until they run.
   *
   * @param overrides the configuration the jobs run with (the user's --config file and --set, and a
   *     command's defaults), written with the cluster's own keys into DATA/cluster/jobs.properties
   */
  Map<String, String> submit(Map<String, String> overrides, Path jar, int parallelism)
      throws IOException {
    ClusterState s = requireUp();
    if (!Files.isRegularFile(jar)) {
      throw new IllegalStateException(
          "the job jar " + jar + " is missing: ./cheetah setup builds it (flink-jobs/jobs)");
    }
    FlinkRest rest = new FlinkRest(s.data().restUrl());
    List<String> names = StreamJob.stack(cfg).stream().map(StreamJob::name).toList();
    List<String> running =
        rest.jobs().stream()
            .filter(j -> names.contains(j.name()) && !FlinkRest.ENDED.contains(j.state()))
            .map(j -> j.name() + " (" + j.state() + ")")
            .toList();
    if (!running.isEmpty()) {
      throw new IllegalStateException(
          "already submitted: "
              + String.join(", ", running)
              + "; ./cheetah cluster status shows them");
    }
    Stack.redirectKeys(cfg, cfg.dataDir().toAbsolutePath(), say);
    Path props = dir.resolve("jobs.properties");
    Properties p = new Properties();
    p.putAll(overrides);
    p.putAll(clusterKeys(s, parallelism));
    try (var w = Files.newBufferedWriter(props)) {
      p.store(w, "./cheetah cluster submit: the configuration every job runs with");
    }
    say.accept("uploading " + jar);
    String jarId = rest.uploadJar(jar);
    Map<String, String> jobs = new LinkedHashMap<>();
    for (String name : names) {
      Optional<String> savepoint = Optional.ofNullable(s.data().savepoints().get(name));
      say.accept(
          "running "
              + name
              + " (parallelism "
              + parallelism
              + savepoint.map(sp -> ", from savepoint " + sp).orElse("")
              + ")");
      String id =
          rest.runJar(
              jarId,
              ENTRY_CLASS,
              List.of("--job", name, "--config", props.toString()),
              parallelism,
              savepoint);
      jobs.put(name, id);
      s.setJobs(jobs);
    }
    s.setSavepoints(Map.of());
    awaitJobsRunning(rest, jobs, START_TIMEOUT);
    say.accept("jobs running; Flink dashboard " + s.data().restUrl());
    return jobs;
  }

  /** The keys that point a job at this cluster (they override the user's). */
  Map<String, String> clusterKeys(ClusterState s, int parallelism) {
    Path flink = dir.resolve("flink");
    Map<String, String> k = new LinkedHashMap<>();
    k.put("kafka.bootstrap", s.data().bootstrap());
    k.putAll(s.data().kafkaSecurity());
    k.put("data-dir", cfg.dataDir().toAbsolutePath().normalize().toString());
    k.put("flink.checkpoint-dir", flink.resolve("checkpoints").toUri().toString());
    k.put("flink.savepoint-dir", flink.resolve("savepoints").toUri().toString());
    k.put("flink.parallelism", Integer.toString(parallelism));
    return k;
  }

  /** Until every job's tasks all run. */
  static void awaitJobsRunning(FlinkRest rest, Map<String, String> jobs, Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    for (Map.Entry<String, String> j : jobs.entrySet()) {
      while (!allRunning(rest, j.getValue())) {
        String state = rest.state(j.getValue());
        if (FlinkRest.ENDED.contains(state)) {
          throw new IllegalStateException(
              "job " + j.getKey() + " ended " + state + ": " + rest.failures(j.getValue()));
        }
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException(
              "job " + j.getKey() + " was not running within " + timeout + " (" + state + ")");
        }
        Daemon.sleep(250);
      }
    }
  }

  static boolean allRunning(FlinkRest rest, String jobId) {
    try {
      List<net.cheetah.runtime.EmbeddedFlink.VertexProgress> v = rest.progress(jobId);
      return "RUNNING".equals(rest.state(jobId))
          && !v.isEmpty()
          && v.stream().allMatch(x -> x.status().equals("RUNNING"));
    } catch (IllegalStateException e) {
      return false;
    }
  }

  // --- status -------------------------------------------------------------------------------

  /** What runs: each process, the brokers' in-sync replicas, each job's state and restarts. */
  List<String> status() throws IOException {
    List<String> out = new ArrayList<>();
    Optional<ClusterState> st = state();
    if (st.isEmpty()) {
      out.add("no cluster at " + dir + " (./cheetah cluster up starts one)");
      return out;
    }
    ClusterState s = st.get();
    out.add("cluster at " + dir);
    out.add(String.format(Locale.ROOT, "  %-14s %-8s %-6s %s", "process", "pid", "alive", "ports"));
    for (ClusterState.Proc p : s.processes()) {
      List<String> ports = new ArrayList<>();
      p.ports().forEach((k, v) -> ports.add(k + " 127.0.0.1:" + v));
      out.add(
          String.format(
              Locale.ROOT,
              "  %-14s %-8s %-6s %s",
              p.name(),
              p.pid() == 0 ? "-" : Long.toString(p.pid()),
              p.alive() ? "yes" : "NO",
              String.join(", ", ports)));
    }
    out.add("Kafka " + s.data().bootstrap() + ":");
    out.addAll(isr(s.data()));
    if (!s.data().kafkaSecurity().isEmpty()) {
      out.add("  security: SASL_SSL (SCRAM-SHA-512), ACLs; " + dir.resolve("security"));
    }
    out.add(
        "warehouse "
            + s.data().warehouseUrl()
            + ", NetFlow/IPFIX on udp 127.0.0.1:"
            + s.data().netflowPort()
            + s.process("goflow2")
                .map(p -> p.ports().getOrDefault("sflow-udp", 0))
                .filter(p -> p > 0)
                .map(p -> ", sFlow on udp 127.0.0.1:" + p)
                .orElse(""));
    out.add("Flink " + s.data().restUrl() + ":");
    try {
      FlinkRest rest = new FlinkRest(s.data().restUrl());
      out.add(
          "  " + rest.taskManagers().size() + " TaskManagers registered: " + rest.taskManagers());
      Map<String, String> ours = new LinkedHashMap<>(s.data().jobs());
      if (ours.isEmpty()) {
        out.add("  no jobs submitted (./cheetah cluster submit)");
      }
      for (FlinkRest.Job j : rest.jobs()) {
        if (!ours.containsValue(j.id())) {
          continue;
        }
        out.add(
            String.format(
                Locale.ROOT,
                "  %-20s %-11s restarts %-4s %s",
                j.name(),
                j.state(),
                rest.restarts(j.id()).stream().mapToObj(Long::toString).findFirst().orElse("?"),
                j.id()));
      }
    } catch (IllegalStateException e) {
      out.add("  not answering: " + e.getMessage());
    }
    if (!s.data().savepoints().isEmpty()) {
      out.add("savepoints for the next submit: " + s.data().savepoints());
    }
    return out;
  }

  /** Per topic: partitions and how many have every replica in sync; each partition that has not. */
  private static List<String> isr(ClusterState.Data d) {
    List<String> out = new ArrayList<>();
    try (Admin admin = admin(d)) {
      Set<String> names = admin.listTopics().names().get(20, java.util.concurrent.TimeUnit.SECONDS);
      Map<String, TopicDescription> topics =
          new TreeMap<>(
              admin
                  .describeTopics(names)
                  .allTopicNames()
                  .get(20, java.util.concurrent.TimeUnit.SECONDS));
      int partitions = 0;
      List<String> short_ = new ArrayList<>();
      for (TopicDescription t : topics.values()) {
        for (TopicPartitionInfo pi : t.partitions()) {
          partitions++;
          if (pi.isr().size() < pi.replicas().size() || pi.leader() == null) {
            short_.add(
                String.format(
                    Locale.ROOT,
                    "%s-%d leader %s ISR %s of replicas %s",
                    t.name(),
                    pi.partition(),
                    pi.leader() == null ? "none" : pi.leader().id(),
                    pi.isr().stream().map(n -> n.id()).toList(),
                    pi.replicas().stream().map(n -> n.id()).toList()));
          }
        }
      }
      out.add(
          String.format(
              Locale.ROOT,
              "  %d brokers, %d topics, %d partitions; %d with every replica in sync",
              admin.describeCluster().nodes().get(20, java.util.concurrent.TimeUnit.SECONDS).size(),
              topics.size(),
              partitions,
              partitions - short_.size()));
      short_.forEach(x -> out.add("  under-replicated: " + x));
    } catch (Exception e) {
      out.add("  not answering: " + e.getMessage());
    }
    return out;
  }

  // --- down ---------------------------------------------------------------------------------

  /**
   * Stops the cluster cleanly: goflow2 first (it flushes), then each job with a savepoint (recorded
   * for the next submit), then the warehouse once it stored everything committed, the TaskManagers,
   * the JobManager and the brokers; each by its PID, SIGTERM then SIGKILL after a timeout.
   */
  void down() throws IOException {
    Optional<ClusterState> st = state();
    if (st.isEmpty()) {
      say.accept("no cluster at " + dir + ": nothing to stop");
      return;
    }
    ClusterState s = st.get();
    stop(s, "goflow2", Duration.ofSeconds(30));
    if (s.process("jobmanager").map(ClusterState.Proc::alive).orElse(false)) {
      FlinkRest rest = new FlinkRest(s.data().restUrl());
      Map<String, String> savepoints = new LinkedHashMap<>(s.data().savepoints());
      for (Map.Entry<String, String> j : s.data().jobs().entrySet()) {
        try {
          if (FlinkRest.ENDED.contains(rest.state(j.getValue()))) {
            continue;
          }
          say.accept("stopping " + j.getKey() + " with a savepoint");
          savepoints.put(
              j.getKey(),
              rest.stopWithSavepoint(
                  j.getValue(),
                  dir.resolve("flink/savepoints").toUri().toString(),
                  Duration.ofSeconds(120)));
          s.setSavepoints(savepoints);
        } catch (IllegalStateException e) {
          say.accept(
              "warning: "
                  + j.getKey()
                  + " took no savepoint ("
                  + e.getMessage()
                  + "); its retained checkpoints stay in "
                  + dir.resolve("flink/checkpoints"));
        }
      }
      s.setJobs(Map.of());
    }
    if (s.process("warehouse").map(ClusterState.Proc::alive).orElse(false)) {
      say.accept("waiting for the warehouse to store everything committed");
      try {
        long lag =
            Warehouse.awaitCaughtUp(
                s.data().bootstrap(),
                s.data().clientSecurity(KafkaPrincipals.ADMIN),
                Duration.ofSeconds(30));
        if (lag != 0) {
          say.accept(
              "warning: the warehouse had not caught up (lag "
                  + lag
                  + "); it resumes at the next up");
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    stopProcesses(s);
    say.accept("cluster stopped; ./cheetah cluster up starts it again with its data");
  }

  /** Stops every process, last started first; the brokers together (a quorum of 3 stops as one). */
  private void stopProcesses(ClusterState s) throws IOException {
    List<ClusterState.Proc> ps = new ArrayList<>(s.processes());
    java.util.Collections.reverse(ps);
    List<ClusterState.Proc> brokers = new ArrayList<>();
    for (ClusterState.Proc p : ps) {
      if (p.name().startsWith("kafka-")) {
        brokers.add(p);
      } else {
        stop(
            s,
            p.name(),
            p.name().equals("warehouse") ? Duration.ofSeconds(60) : Duration.ofSeconds(30));
      }
    }
    for (ClusterState.Proc b : brokers) {
      b.handle().process().ifPresent(ProcessHandle::destroy);
    }
    for (ClusterState.Proc b : brokers) {
      stop(s, b.name(), Duration.ofSeconds(60));
    }
  }

  private void stop(ClusterState s, String name, Duration timeout) throws IOException {
    Optional<ClusterState.Proc> p = s.process(name);
    if (p.isEmpty()) {
      return;
    }
    if (p.get().alive()) {
      say.accept("stopping " + name + " (pid " + p.get().pid() + ")");
      if (p.get().handle().stop(timeout)) {
        say.accept(
            "warning: " + name + " did not stop within " + timeout.toSeconds() + " s: killed");
      }
    }
    s.put(p.get().stopped());
  }

  /**
   * Sends SIGKILL to one process of the cluster, as a crash would end it; other processes may be
   * dead already (a second fault).
   */
  void kill(String name) throws IOException {
    ClusterState s = requireState();
    ClusterState.Proc p =
        s.process(name)
            .orElseThrow(
                () ->
                    new IllegalArgumentException(
                        "no process "
                            + name
                            + " in the cluster (processes: "
                            + String.join(
                                ", ", s.processes().stream().map(ClusterState.Proc::name).toList())
                            + ")"));
    if (!p.alive()) {
      throw new IllegalStateException(name + " is not running: ./cheetah cluster up starts it");
    }
    say.accept("kill -9 " + name + " (pid " + p.pid() + ")");
    p.handle().kill();
    p.handle().awaitExit(Duration.ofSeconds(30));
  }

  /** Removes the cluster's directory (data, logs, state); refuses while a process runs. */
  void wipe() throws IOException {
    Optional<ClusterState> st = state();
    if (st.isPresent()) {
      List<String> alive =
          st.get().processes().stream()
              .filter(ClusterState.Proc::alive)
              .map(ClusterState.Proc::name)
              .toList();
      if (!alive.isEmpty()) {
        throw new IllegalStateException(
            "still running: " + alive + "; ./cheetah cluster down first");
      }
    }
    DemoCommand.wipe(dir);
    say.accept("removed " + dir);
  }
}
