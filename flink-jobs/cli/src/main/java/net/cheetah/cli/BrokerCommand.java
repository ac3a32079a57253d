package net.cheetah.cli;

import java.io.InputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import net.cheetah.runtime.EmbeddedKafka;
import net.cheetah.runtime.FreePorts;
import net.cheetah.runtime.TopicLayout;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * A real Kafka broker (in-JVM KRaft) with every topic of schemas/topics.yaml, for the components
 * that are not Java (the probe, the SNMP poller, Python tools) and their tests. Prints one JSON
 * line when ready and runs until its stdin closes or it gets SIGTERM, so a test that started it
 * stops it by closing the pipe or by PID.
 */
@Command(
    name = "broker",
    mixinStandardHelpOptions = true,
    description = {
      "Start a Kafka broker (in-JVM KRaft, 127.0.0.1) with every Cheetah topic created, print",
      "{\"event\":\"ready\",\"bootstrap\":\"127.0.0.1:PORT\"} on stdout, and run until stdin",
      "closes or SIGTERM. For tests and for running the probe or the poller by hand."
    })
final class BrokerCommand implements Callable<Integer> {
  @Option(
      names = "--port",
      defaultValue = "0",
      description = "Broker port on 127.0.0.1 (default: a free one).")
  int port;

  @Option(
      names = "--data",
      description = "Log directory (default: a fresh temporary directory, deleted on exit).")
  Path data;

  @Option(
      names = "--partitions",
      defaultValue = "1",
      description = "Partitions per topic (default ${DEFAULT-VALUE}).")
  int partitions;

  @Option(names = "--no-stdin", description = "Do not stop when stdin closes (run until SIGTERM).")
  boolean ignoreStdin;

  @Override
  public Integer call() throws Exception {
    Path dir = data != null ? data : Files.createTempDirectory("cheetah-broker-");
    boolean temporary = data == null;
    int brokerPort = port == 0 ? FreePorts.pick() : port;
    EmbeddedKafka kafka =
        new EmbeddedKafka(
            EmbeddedKafka.Config.defaults(dir).withPorts(brokerPort, FreePorts.pick()));
    CountDownLatch stop = new CountDownLatch(1);
    CountDownLatch closed = new CountDownLatch(1);
    // On SIGTERM the JVM exits once its hooks return: hold it until the broker has closed.
    Thread hook =
        new Thread(
            () -> {
              stop.countDown();
              try {
                closed.await(30, java.util.concurrent.TimeUnit.SECONDS);
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
            },
            "broker-stop");
    Runtime.getRuntime().addShutdownHook(hook);
    try (kafka) {
      kafka.start();
      new TopicLayout(TopicLayout.Config.embedded().withPartitions(partitions, partitions))
          .createAll(kafka);
      PrintStream out = System.out;
      out.println("{\"event\":\"ready\",\"bootstrap\":\"" + kafka.bootstrapServers() + "\"}");
      out.flush();
      if (!ignoreStdin) {
        Thread watcher = new Thread(() -> drain(System.in, stop), "broker-stdin");
        watcher.setDaemon(true);
        watcher.start();
      }
      stop.await();
    } finally {
      if (temporary) {
        deleteTree(dir);
      }
      closed.countDown();
    }
    return 0;
  }

  private static void drain(InputStream in, CountDownLatch stop) {
    try {
      byte[] buf = new byte[256];
      while (in.read(buf) >= 0) {
        // Anything written to stdin is ignored; only its end matters.
      }
    } catch (java.io.IOException e) {
      // A broken stdin means the parent is gone: stop as for EOF.
    }
    stop.countDown();
  }

  private static void deleteTree(Path dir) throws java.io.IOException {
    if (!Files.exists(dir)) {
      return;
    }
    try (var walk = Files.walk(dir)) {
      for (Path p : walk.sorted(java.util.Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }
}
