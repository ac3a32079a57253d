package net.cheetah.cli;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import net.cheetah.config.CheetahConfig;
import net.cheetah.core.Topics;
import net.cheetah.jobs.flink.KafkaIO;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import picocli.CommandLine.Option;

/**
 * The brokers of the redirect topics as an operator's command reaches them ({@code ./cheetah
 * guard}, {@code ./cheetah keys}): the --bootstrap option, the check that they answer and are
 * Cheetah's, and a topic read from start to end.
 */
final class RedirectBroker {
  private RedirectBroker() {}

  /** --bootstrap, a picocli mixin. */
  static final class Bootstrap {
    @Option(
        names = "--bootstrap",
        paramLabel = "HOST:PORT",
        description =
            "The Kafka brokers (default: kafka.bootstrap if set, else the embedded stack's broker"
                + " of ./cheetah up at 127.0.0.1:kafka.port; for ./cheetah cluster, the bootstrap"
                + " that ./cheetah cluster status prints).")
    String bootstrap;

    /**
     * --bootstrap, or the stack's broker, with {@code principal}'s credentials when
     * kafka.security.* asks for them; the brokers must answer and hold the redirect topics.
     */
    KafkaIO.Access connect(CheetahConfig cfg, String principal) {
      boolean given = bootstrap != null;
      String b = given ? bootstrap.trim() : Broker.bootstrap(cfg);
      if (b.isEmpty()) {
        throw new IllegalArgumentException("--bootstrap must be HOST:PORT[,HOST:PORT...]");
      }
      String where =
          given
              ? "--bootstrap " + b
              : !cfg.kafka().bootstrap().isBlank()
                  ? "kafka.bootstrap " + b
                  : b + " (the embedded stack's kafka.port)";
      if (!anyListening(b)) {
        // Checked first: the admin client would retry for seconds, logging every attempt.
        throw new IllegalStateException(
            "no Kafka broker answers at "
                + where
                + ": start the stack (./cheetah up), or pass --bootstrap HOST:PORT");
      }
      KafkaIO.Access access = new KafkaIO.Access(b, cfg.kafka().clientSecurity(principal));
      Set<String> topics;
      Properties p = new Properties();
      p.putAll(access.security());
      p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, b);
      p.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 10_000);
      p.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 5_000);
      try (Admin admin = Admin.create(p)) {
        topics = admin.listTopics().names().get(10, TimeUnit.SECONDS);
      } catch (ExecutionException | java.util.concurrent.TimeoutException e) {
        throw new IllegalStateException(
            "no Kafka broker answers at "
                + where
                + ": start the stack (./cheetah up), or pass --bootstrap HOST:PORT");
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while asking " + where + " for its topics");
      }
      for (String t :
          List.of(Topics.REDIRECTS_COMMANDS, Topics.REDIRECTS_DECISIONS, Topics.REDIRECTS_ACKS)) {
        if (!topics.contains(t)) {
          throw new IllegalStateException(
              "the brokers at "
                  + where
                  + " have no topic "
                  + t
                  + "; are they Cheetah's? (the stack creates every topic of"
                  + " schemas/topics.yaml)"
                  + (access.security().isEmpty()
                      ? ""
                      : ", or may " + principal + " not describe it? (its ACLs)"));
        }
      }
      return access;
    }
  }

  /** True when some HOST:PORT of {@code bootstrap} accepts a TCP connection within 2 s. */
  static boolean anyListening(String bootstrap) {
    for (String hp : bootstrap.split(",")) {
      int colon = hp.lastIndexOf(':');
      if (colon <= 0) {
        throw new IllegalArgumentException(
            "--bootstrap must be HOST:PORT[,HOST:PORT...], got '" + bootstrap + "'");
      }
      int port;
      try {
        port = Integer.parseInt(hp.substring(colon + 1).trim());
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException(
            "--bootstrap must be HOST:PORT[,HOST:PORT...], got '" + bootstrap + "'");
      }
      String host = hp.substring(0, colon).trim().replace("[", "").replace("]", "");
      try (java.net.Socket s = new java.net.Socket()) {
        s.connect(new java.net.InetSocketAddress(host, port), 2000);
        return true;
      } catch (java.io.IOException | IllegalArgumentException e) {
        // try the next one
      }
    }
    return false;
  }

  /** A decoder of one record's value. */
  interface Decoder<T> {
    T parse(byte[] value) throws com.google.protobuf.InvalidProtocolBufferException;
  }

  /**
   * Every record of {@code topic} from the start of its retention to its end as of now, decoded;
   * records that do not decode are skipped with a warning (prefixed {@code who}) saying how many
   * and where.
   */
  static <T> List<T> read(KafkaIO.Access bootstrap, String topic, Decoder<T> decoder, String who) {
    Properties p = new Properties();
    p.putAll(bootstrap.security());
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap.bootstrap());
    p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    // Records of an aborted transaction were never published (the commands' producers are not
    // transactional; an aborted write is a probe's, e.g. cluster security-check's).
    p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    p.put(ConsumerConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "15000");
    List<T> out = new ArrayList<>();
    List<String> bad = new ArrayList<>();
    try (KafkaConsumer<byte[], byte[]> c =
        new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      List<TopicPartition> parts =
          c.partitionsFor(topic, Duration.ofSeconds(15)).stream()
              .map(PartitionInfo::partition)
              .map(n -> new TopicPartition(topic, n))
              .toList();
      c.assign(parts);
      c.seekToBeginning(parts);
      Map<TopicPartition, Long> end = c.endOffsets(parts, Duration.ofSeconds(15));
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      while (parts.stream().anyMatch(tp -> c.position(tp) < end.get(tp))) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException(
              "reading "
                  + topic
                  + " at "
                  + bootstrap.bootstrap()
                  + " did not reach its end within 60 s");
        }
        for (ConsumerRecord<byte[], byte[]> rec : c.poll(Duration.ofMillis(500))) {
          if (rec.offset() >= end.get(new TopicPartition(topic, rec.partition()))) {
            continue; // arrived after we looked: the next run sees it
          }
          try {
            out.add(decoder.parse(rec.value() == null ? new byte[0] : rec.value()));
          } catch (com.google.protobuf.InvalidProtocolBufferException e) {
            bad.add(rec.partition() + "@" + rec.offset());
          }
        }
      }
    }
    if (!bad.isEmpty()) {
      System.err.println(
          who
              + ": warning: skipped "
              + bad.size()
              + " record(s) of "
              + topic
              + " that do not decode (partition@offset: "
              + String.join(", ", bad.subList(0, Math.min(10, bad.size())))
              + (bad.size() > 10 ? ", ..." : "")
              + ")");
    }
    return out;
  }
}
