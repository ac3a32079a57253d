package net.cheetah.cli;

import java.nio.file.Path;
import java.util.function.Consumer;
import net.cheetah.config.CheetahConfig;
import net.cheetah.runtime.Component;
import net.cheetah.runtime.EmbeddedKafka;
import net.cheetah.runtime.FreePorts;
import net.cheetah.runtime.TopicLayout;

/**
 * The stack's Kafka: the in-JVM KRaft broker with every topic created (kafka.port,
 * kafka.controller-port, kafka.partitions), or the cluster kafka.bootstrap names, which is used as
 * it is.
 */
final class Broker implements Component {
  private final CheetahConfig.Kafka cfg;
  private final Path data;
  private final boolean freePorts;
  private final Consumer<String> say;
  private EmbeddedKafka kafka;
  private String bootstrap = "";

  /**
   * @param data the broker's log directory parent (the embedded broker writes under it)
   * @param freePorts free loopback ports instead of kafka.port and kafka.controller-port
   */
  Broker(CheetahConfig.Kafka cfg, Path data, boolean freePorts, Consumer<String> say) {
    this.cfg = cfg;
    this.data = data;
    this.freePorts = freePorts;
    this.say = say;
  }

  /** The broker the stack of {@code cfg} uses (the embedded one unless kafka.bootstrap is set). */
  static String bootstrap(CheetahConfig cfg) {
    return external(cfg.kafka()) ? cfg.kafka().bootstrap() : "127.0.0.1:" + cfg.kafka().port();
  }

  private static boolean external(CheetahConfig.Kafka k) {
    return !k.bootstrap().isBlank();
  }

  @Override
  public void start() {
    if (external(cfg)) {
      bootstrap = cfg.bootstrap();
    } else {
      say.accept("starting Kafka (KRaft, in-JVM)");
      kafka =
          new EmbeddedKafka(
              EmbeddedKafka.Config.defaults(data)
                  .withPorts(port(cfg.port()), port(cfg.controllerPort())));
      kafka.start();
      bootstrap = kafka.bootstrapServers();
      new TopicLayout(
              TopicLayout.Config.embedded().withPartitions(cfg.partitions(), cfg.partitions()))
          .createAll(kafka);
    }
    say.accept("Kafka at " + bootstrap);
  }

  private int port(int configured) {
    return freePorts ? FreePorts.pick() : configured;
  }

  /** HOST:PORT of the bootstrap servers, once started. */
  String bootstrap() {
    if (bootstrap.isEmpty()) {
      throw new IllegalStateException("the broker is not started yet");
    }
    return bootstrap;
  }

  @Override
  public boolean running() {
    return kafka != null ? kafka.isRunning() : !bootstrap.isEmpty();
  }

  @Override
  public void stop() {
    if (kafka != null) {
      kafka.close();
      kafka = null;
    }
    bootstrap = "";
  }
}
