package net.cheetah.cli;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.function.Consumer;
import java.util.function.Supplier;
import net.cheetah.config.CheetahConfig;
import net.cheetah.runtime.ChildProcess;
import net.cheetah.runtime.ConsumerLag;
import net.cheetah.runtime.FreePorts;
import net.cheetah.runtime.ProcessComponent;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;

/**
 * The warehouse (clickhouse/warehouse: ClickHouse in-process, fed from Kafka) as a child process:
 * {@code python -m cheetah_warehouse serve}, given every value it relies on as a flag, ready once
 * it prints {@code READY URL}.
 */
final class Warehouse extends ProcessComponent {
  /** Every warehouse consumer group starts with this (its --kafka-group-prefix). */
  static final String GROUP_PREFIX = "cheetah-warehouse";

  /** Its Kafka principal on a secure cluster (helm/gen_chart_data.py USERS). */
  static final String PRINCIPAL = "cheetah-warehouse";

  /** How long a consumed batch waits before it is written (its --kafka-flush-interval-ms). */
  static final long FLUSH_INTERVAL_MS = 1000;

  private final CheetahConfig.Warehouse cfg;
  private final Tools tools;
  private final Path data;
  private final Path logs;
  private final boolean freePort;
  private final Supplier<String> bootstrap;
  private final Consumer<String> say;
  private String url = "";

  /**
   * @param data the stack's data directory (the warehouse's is {@link #dir})
   * @param freePort a free port instead of warehouse.http-port
   * @param bootstrap the broker to read from, asked at start
   */
  Warehouse(
      CheetahConfig.Warehouse cfg,
      Tools tools,
      Path data,
      boolean freePort,
      Supplier<String> bootstrap,
      Consumer<String> say) {
    this.cfg = cfg;
    this.tools = tools;
    this.data = data;
    this.logs = data.resolve("logs");
    this.freePort = freePort;
    this.bootstrap = bootstrap;
    this.say = say;
  }

  /** The warehouse's data directory in the stack's. */
  static Path dir(Path data) {
    return data.resolve("warehouse");
  }

  @Override
  public void start() {
    say.accept("starting the warehouse (ClickHouse engine in-process)");
    int port = freePort ? FreePorts.pick() : cfg.httpPort();
    FreePorts.requireFree(port, "the warehouse", "warehouse.http-port");
    List<String> cmd = new java.util.ArrayList<>(command(tools, dir(data), port, bootstrap.get()));
    // Never outlive the JVM once it dies, kill -9 included: its stdin is our lifeline. (Cluster
    // mode starts the same command as a daemon, without it.)
    cmd.add("--exit-on-stdin-eof");
    process =
        new ChildProcess(
            ChildProcess.Config.of("warehouse", logs, cmd)
                .withEnvironment(environment(tools))
                .withStopTimeout(Duration.ofSeconds(60))
                .withLifeline());
    process.start();
    String ready = process.awaitLine(l -> l.startsWith("READY "), Duration.ofSeconds(180));
    url = ready.substring("READY ".length()).trim();
    watchExit("the warehouse");
    say.accept("warehouse at " + url);
  }

  /** The warehouse's command line: every directory, port and broker it uses. */
  static List<String> command(Tools tools, Path dir, int port, String bootstrap) {
    return List.of(
        tools.require(tools.python(), "the Python venv").toString(),
        "-m",
        "cheetah_warehouse",
        "serve",
        "--data",
        dir.toString(),
        "--http-port",
        Integer.toString(port),
        "--kafka-brokers",
        bootstrap,
        "--kafka-group-prefix",
        GROUP_PREFIX,
        "--kafka-flush-interval-ms",
        Long.toString(FLUSH_INTERVAL_MS),
        "--migrations",
        tools.home().resolve("clickhouse/migrations").toString(),
        "--schemas",
        tools.home().resolve("schemas").toString(),
        "--users",
        tools.home().resolve("clickhouse/users.d").toString());
  }

  /** What the warehouse's process needs in its environment. */
  static Map<String, String> environment(Tools tools) {
    return Map.of("PYTHONPATH", tools.home().resolve("clickhouse/warehouse").toString());
  }

  /** Its HTTP URL (ClickHouse protocol), once started. */
  String url() {
    return url;
  }

  /**
   * Until every warehouse consumer group has committed the end of its topics; returns the lag left
   * when {@code timeout} passes first (0 = caught up, -1 = unknown).
   */
  long awaitCaughtUp(Duration timeout) throws InterruptedException {
    return awaitCaughtUp(bootstrap.get(), Map.of(), timeout);
  }

  /** {@link #awaitCaughtUp(Duration)} for the warehouse reading from {@code bootstrap}. */
  static long awaitCaughtUp(String bootstrap, Map<String, String> security, Duration timeout)
      throws InterruptedException {
    Properties p = new Properties();
    p.putAll(security);
    p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    try (Admin admin = Admin.create(p)) {
      return ConsumerLag.awaitCaughtUp(admin, GROUP_PREFIX, timeout, security);
    }
  }
}
