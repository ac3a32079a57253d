package net.cheetah.jobs.flink;

import java.util.Properties;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.connector.base.DeliveryGuarantee;
import org.apache.flink.connector.kafka.sink.KafkaRecordSerializationSchema;
import org.apache.flink.connector.kafka.sink.KafkaSink;
import org.apache.flink.connector.kafka.source.KafkaSource;
import org.apache.flink.connector.kafka.source.enumerator.initializer.OffsetsInitializer;
import org.apache.flink.connector.kafka.source.reader.deserializer.KafkaRecordDeserializationSchema;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.OffsetResetStrategy;
import org.apache.kafka.clients.producer.ProducerRecord;

/** Kafka sources and exactly-once sinks as every Cheetah job uses them. */
public final class KafkaIO {
  private KafkaIO() {}

  /**
   * Reads committed records only (producers are transactional). A job restored from a savepoint
   * resumes from its offsets there; a job started without one resumes from its group's committed
   * offsets (committed on checkpoints), and only a new group starts from the earliest record.
   */
  public static KafkaSource<KafkaRecord> source(String bootstrap, String topic, String groupId) {
    return source(bootstrap, topic, groupId, new RecordDeserializer());
  }

  /**
   * A source that decodes in the reader, so that a WatermarkStrategy given to fromSource runs per
   * partition: partitions become readable a transaction at a time and are read unevenly, so a
   * watermark over their merged stream would run ahead of the slower one.
   */
  public static <T> KafkaSource<T> source(
      String bootstrap, String topic, String groupId, KafkaRecordDeserializationSchema<T> decoder) {
    return KafkaSource.<T>builder()
        .setBootstrapServers(bootstrap)
        .setTopics(topic)
        .setGroupId(groupId)
        .setStartingOffsets(OffsetsInitializer.committedOffsets(OffsetResetStrategy.EARLIEST))
        .setProperty("isolation.level", "read_committed")
        .setProperty("partition.discovery.interval.ms", "10000")
        .setDeserializer(decoder)
        .build();
  }

  /**
   * A topic as a stream without watermarks, for operators that keep their own clock (link
   * statistics per link, thresholds, redirects): named after the topic, with a stable uid.
   */
  public static <T> org.apache.flink.streaming.api.datastream.DataStream<T> unwatermarked(
      org.apache.flink.streaming.api.environment.StreamExecutionEnvironment env,
      String bootstrap,
      String topic,
      String groupId,
      KafkaRecordDeserializationSchema<T> decoder,
      String uid) {
    return env.fromSource(
            source(bootstrap, topic, groupId, decoder),
            org.apache.flink.api.common.eventtime.WatermarkStrategy.noWatermarks(),
            topic)
        .uid(uid);
  }

  /** Transactional sink: records become visible when the checkpoint that covers them completes. */
  public static KafkaSink<KeyedBytes> exactlyOnceSink(
      String bootstrap, String topic, String txPrefix) {
    Properties p = new Properties();
    // Longer than any checkpoint, within the broker's transaction.max.timeout.ms (15 min).
    p.setProperty("transaction.timeout.ms", "600000");
    p.setProperty("compression.type", "lz4");
    p.setProperty("linger.ms", "5");
    return KafkaSink.<KeyedBytes>builder()
        .setBootstrapServers(bootstrap)
        .setKafkaProducerConfig(p)
        .setDeliveryGuarantee(DeliveryGuarantee.EXACTLY_ONCE)
        .setTransactionalIdPrefix(txPrefix)
        .setRecordSerializer(new RecordSerializer(topic))
        .build();
  }

  /**
   * At-least-once sink: records are sent as they come and flushed on every checkpoint, never held
   * for a commit. For commands, whose consumers deduplicate by id (docs/REDIRECTS.md).
   */
  public static KafkaSink<KeyedBytes> atLeastOnceSink(String bootstrap, String topic) {
    Properties p = new Properties();
    p.setProperty("enable.idempotence", "true");
    p.setProperty("acks", "all");
    p.setProperty("linger.ms", "0");
    return KafkaSink.<KeyedBytes>builder()
        .setBootstrapServers(bootstrap)
        .setKafkaProducerConfig(p)
        .setDeliveryGuarantee(DeliveryGuarantee.AT_LEAST_ONCE)
        .setRecordSerializer(new RecordSerializer(topic))
        .build();
  }

  private static final class RecordDeserializer
      implements KafkaRecordDeserializationSchema<KafkaRecord> {
    @Override
    public void deserialize(
        ConsumerRecord<byte[], byte[]> r, org.apache.flink.util.Collector<KafkaRecord> out) {
      byte[] v = r.value() == null ? new byte[0] : r.value();
      out.collect(new KafkaRecord(r.topic(), r.partition(), r.offset(), r.timestamp(), v));
    }

    @Override
    public TypeInformation<KafkaRecord> getProducedType() {
      return TypeInformation.of(KafkaRecord.class);
    }
  }

  private record RecordSerializer(String topic)
      implements KafkaRecordSerializationSchema<KeyedBytes> {
    @Override
    public ProducerRecord<byte[], byte[]> serialize(KeyedBytes e, KafkaSinkContext ctx, Long ts) {
      return new ProducerRecord<>(topic, null, ts, e.key(), e.value());
    }
  }
}
