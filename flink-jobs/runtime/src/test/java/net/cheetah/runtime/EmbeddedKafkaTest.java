package net.cheetah.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import net.cheetah.core.Topics;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

@Tag("integration")
class EmbeddedKafkaTest {

  private static final String TOPIC = "test.transactions";

  @TempDir Path dataDirectory;

  @Test
  void servesTransactionsOnLoopbackAndKeepsDataAcrossRestarts() throws Exception {
    EmbeddedKafka.Config config = EmbeddedKafka.Config.defaults(dataDirectory).withPorts(0, 0);
    int brokerPort;
    int controllerPort;
    String clusterId;
    long rssBefore = ListeningSockets.residentMebibytes();
    try (EmbeddedKafka kafka = new EmbeddedKafka(config)) {
      kafka.start();
      System.out.printf(
          "embedded Kafka: first start (format included) %d ms, JVM RSS %d -> %d MiB%n",
          kafka.startDuration().toMillis(), rssBefore, ListeningSockets.residentMebibytes());
      brokerPort = kafka.brokerPort();
      controllerPort = kafka.controllerPort();
      clusterId = kafka.clusterId();
      assertThat(kafka.bootstrapServers()).isEqualTo("127.0.0.1:" + brokerPort);

      assertThat(ListeningSockets.ofThisProcess())
          .filteredOn(l -> l.port() == brokerPort || l.port() == controllerPort)
          .extracting(ListeningSockets.Listener::address)
          .containsExactlyInAnyOrder("127.0.0.1", "127.0.0.1");

      TopicLayout topics = new TopicLayout(TopicLayout.Config.embedded());
      assertThat(topics.createAll(kafka)).containsExactlyInAnyOrderElementsOf(Topics.ALL);
      assertThat(topics.createAll(kafka)).as("second creation").isEmpty();
      assertThat(kafka.createTopic(TopicSpec.of(TOPIC, 1))).isTrue();
      try (Admin admin = kafka.newAdmin()) {
        Map<String, TopicDescription> described =
            admin.describeTopics(List.of("flows.v1", "thresholds.v1")).allTopicNames().get();
        assertThat(described.get("flows.v1").partitions()).hasSize(2);
        ConfigResource thresholds = new ConfigResource(ConfigResource.Type.TOPIC, "thresholds.v1");
        Config thresholdsConfig =
            admin.describeConfigs(List.of(thresholds)).all().get().get(thresholds);
        assertThat(thresholdsConfig.get("cleanup.policy").value()).isEqualTo("compact");
      }

      try (KafkaProducer<String, String> producer = transactionalProducer(kafka)) {
        producer.initTransactions();
        inTransaction(producer, List.of("a", "b", "c"));
        producer.beginTransaction();
        producer.send(new ProducerRecord<>(TOPIC, "x"));
        producer.send(new ProducerRecord<>(TOPIC, "y"));
        producer.flush();
        producer.abortTransaction();
        inTransaction(producer, List.of("d"));
      }
      assertThat(KafkaRecords.readCommitted(kafka.bootstrapServers(), TOPIC))
          .containsExactly("a", "b", "c", "d");
    }

    try (EmbeddedKafka again = new EmbeddedKafka(config.withPorts(brokerPort, controllerPort))) {
      again.start();
      System.out.printf("embedded Kafka: restart %d ms%n", again.startDuration().toMillis());
      assertThat(again.clusterId()).isEqualTo(clusterId);
      assertThat(KafkaRecords.readCommitted(again.bootstrapServers(), TOPIC))
          .containsExactly("a", "b", "c", "d");
      assertThat(new TopicLayout(TopicLayout.Config.embedded()).createAll(again)).isEmpty();
    }
  }

  @Test
  void refusesATakenPortWithAClearMessage() throws Exception {
    try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
      EmbeddedKafka kafka =
          new EmbeddedKafka(
              EmbeddedKafka.Config.defaults(dataDirectory).withPorts(taken.getLocalPort(), 0));
      assertThatThrownBy(kafka::start)
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("Port " + taken.getLocalPort())
          .hasMessageContaining("Kafka broker");
      assertThat(kafka.isRunning()).isFalse();
      kafka.close();
    }
  }

  private static KafkaProducer<String, String> transactionalProducer(EmbeddedKafka kafka) {
    return new KafkaProducer<>(
        Map.of(
            ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers(),
            ProducerConfig.TRANSACTIONAL_ID_CONFIG, "embedded-kafka-test",
            ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true"),
        new StringSerializer(),
        new StringSerializer());
  }

  private static void inTransaction(KafkaProducer<String, String> producer, List<String> values) {
    producer.beginTransaction();
    for (String value : values) {
      producer.send(new ProducerRecord<>(TOPIC, value));
    }
    producer.commitTransaction();
  }
}
