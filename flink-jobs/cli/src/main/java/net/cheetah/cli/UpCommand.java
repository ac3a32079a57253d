package net.cheetah.cli;

import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import net.cheetah.config.CheetahConfig;
import net.cheetah.jobs.ConfigOptions;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

@Command(
    name = "up",
    mixinStandardHelpOptions = true,
    description = {
      "Start the embedded stack and keep it running until Ctrl-C: Kafka, the Flink jobs,",
      "the warehouse (ClickHouse HTTP on 127.0.0.1:warehouse.http-port) and goflow2",
      "(NetFlow v5/v9/IPFIX on UDP 127.0.0.1:netflow.udp-port, sFlow v5 on UDP",
      "127.0.0.1:netflow.sflow-udp-port). Ctrl-C stops input first,",
      "takes job savepoints and lets the warehouse catch up; the next `up` resumes from them.",
      "If a job fails for good (flink.restart-attempts used up), or the warehouse or goflow2",
      "exits by itself, the stack stops the same way and exits 1. Data: data-dir (default",
      ".cheetah/data)."
    })
final class UpCommand implements Callable<Integer> {
  @Mixin ConfigOptions config;

  @Override
  public Integer call() throws Exception {
    CheetahConfig cfg = config.load();
    Stack stack =
        new Stack(
            cfg,
            Tools.fromEnvironment(),
            cfg.dataDir(),
            false,
            s -> System.err.println("up: " + s));
    CompletableFuture<Void> stopped = new CompletableFuture<>();
    Thread hook =
        new Thread(
            () -> {
              System.err.println("\nup: stopping cleanly");
              try {
                stack.stopCleanly(Duration.ofSeconds(60));
              } catch (Exception e) {
                System.err.println("up: clean stop failed: " + e.getMessage() + "; stopping hard");
                stack.close();
              } finally {
                stopped.complete(null);
              }
            },
            "cheetah-shutdown");
    Runtime.getRuntime().addShutdownHook(hook);
    try {
      stack.start();
    } catch (Exception e) {
      Runtime.getRuntime().removeShutdownHook(hook);
      stack.close();
      throw e;
    }
    System.err.printf(
        "up: ready. NetFlow/IPFIX -> udp://127.0.0.1:%d | sFlow -> udp://127.0.0.1:%d |"
            + " warehouse %s | Flink %s | Kafka %s%n"
            + "up: query with ./cheetah sql \"SELECT count() FROM flows\"; Ctrl-C to stop.%n",
        stack.netflowPort(),
        stack.sflowPort(),
        stack.warehouseUrl(),
        stack.flinkUrl(),
        stack.bootstrap());
    // The same, for programs that start the stack: one JSON line on stdout (the house convention).
    System.out.printf(
        "{\"event\":\"ready\",\"netflow_port\":%d,\"sflow_port\":%d,\"warehouse_url\":\"%s\","
            + "\"flink_url\":\"%s\",\"bootstrap\":\"%s\"}%n",
        stack.netflowPort(),
        stack.sflowPort(),
        stack.warehouseUrl(),
        stack.flinkUrl(),
        stack.bootstrap());
    System.out.flush();
    CompletableFuture<String> failure = stack.failure();
    CompletableFuture.anyOf(stopped, failure).join();
    if (stopped.isDone()) {
      return 0;
    }
    // A job failed for good, or a process died: exit 1, and the shutdown hook stops the rest
    // cleanly (savepoints, so the next `up` resumes where this one stopped).
    System.err.println(
        "up: stopping because the stack no longer delivers (see the ERROR above); the next"
            + " `./cheetah up` resumes where this one stopped");
    return 1;
  }
}
