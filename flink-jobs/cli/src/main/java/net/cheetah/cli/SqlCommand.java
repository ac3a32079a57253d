package net.cheetah.cli;

import java.net.HttpURLConnection;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import net.cheetah.config.CheetahConfig;
import net.cheetah.jobs.ConfigOptions;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(
    name = "sql",
    mixinStandardHelpOptions = true,
    description = {
      "Query the warehouse: the running stack's (HTTP on 127.0.0.1:warehouse.http-port), or",
      "the data directory directly when no stack is running.",
      "Example: ./cheetah sql \"SELECT n_flows, count() FROM flowsets FINAL GROUP BY n_flows\""
    })
final class SqlCommand implements Callable<Integer> {
  @Parameters(paramLabel = "QUERY", description = "ClickHouse SQL.")
  String query;

  @Option(
      names = "--format",
      defaultValue = "PrettyCompactMonoBlock",
      description = "ClickHouse output format (default ${DEFAULT-VALUE}).")
  String format;

  @Mixin ConfigOptions config;

  @Override
  public Integer call() throws Exception {
    CheetahConfig cfg = config.load();
    Tools tools = Tools.fromEnvironment();
    String url = "http://127.0.0.1:" + cfg.warehouse().httpPort();
    List<String> cmd =
        new ArrayList<>(List.of(tools.python().toString(), "-m", "cheetah_warehouse", "query"));
    if (reachable(url)) {
      cmd.addAll(List.of("--url", url));
    } else {
      cmd.addAll(List.of("--data", Warehouse.dir(cfg.dataDir()).toString()));
    }
    cmd.addAll(List.of("--format", format, query));
    ProcessBuilder pb = new ProcessBuilder(cmd).inheritIO();
    pb.environment().put("PYTHONPATH", tools.home().resolve("clickhouse/warehouse").toString());
    return pb.start().waitFor();
  }

  static boolean reachable(String url) {
    try {
      HttpURLConnection c = (HttpURLConnection) URI.create(url + "/ping").toURL().openConnection();
      c.setConnectTimeout(500);
      c.setReadTimeout(2000);
      return c.getResponseCode() == 200;
    } catch (java.io.IOException e) {
      return false;
    }
  }
}
