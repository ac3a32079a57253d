package net.cheetah.runtime;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/** Plain producer/consumer helpers for tests against a broker. */
final class KafkaRecords {
  private KafkaRecords() {}

  static void produce(String bootstrapServers, String topic, List<String> values) {
    try (KafkaProducer<String, String> producer =
        new KafkaProducer<>(
            Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
                bootstrapServers,
                ProducerConfig.ACKS_CONFIG,
                "all"),
            new StringSerializer(),
            new StringSerializer())) {
      for (String value : values) {
        producer.send(new ProducerRecord<>(topic, value, value));
      }
      producer.flush();
    }
  }

  /**
   * Every committed record of {@code topic}, read with isolation.level=read_committed up to the
   * last stable offset of each partition, in partition then offset order.
   */
  static List<String> readCommitted(String bootstrapServers, String topic) {
    try (KafkaConsumer<String, String> consumer =
        new KafkaConsumer<>(
            Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers,
                ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed",
                ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false"),
            new StringDeserializer(),
            new StringDeserializer())) {
      List<TopicPartition> partitions =
          consumer.partitionsFor(topic).stream()
              .map(info -> new TopicPartition(topic, info.partition()))
              .collect(Collectors.toList());
      consumer.assign(partitions);
      consumer.seekToBeginning(partitions);
      Map<TopicPartition, Long> end = consumer.endOffsets(partitions); // LSO when read_committed
      Map<TopicPartition, List<String>> values = new java.util.LinkedHashMap<>();
      partitions.forEach(p -> values.put(p, new ArrayList<>()));
      Wait.until(
          "reading " + topic + " up to offsets " + end,
          Duration.ofSeconds(20),
          Duration.ofMillis(1),
          () -> {
            for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(100))) {
              values.get(new TopicPartition(topic, record.partition())).add(record.value());
            }
            return partitions.stream().allMatch(p -> consumer.position(p) >= end.get(p));
          });
      return values.values().stream().flatMap(List::stream).collect(Collectors.toList());
    }
  }
}
