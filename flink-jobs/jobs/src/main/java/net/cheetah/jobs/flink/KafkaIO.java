package net.cheetah.jobs.flink;

import java.io.Serializable;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import org.apache.flink.api.common.eventtime.TimestampAssigner;
import org.apache.flink.api.common.eventtime.TimestampAssignerSupplier;
import org.apache.flink.api.common.eventtime.WatermarkGenerator;
import org.apache.flink.api.common.eventtime.WatermarkGeneratorSupplier;
import org.apache.flink.api.common.eventtime.WatermarkOutput;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.java.typeutils.EitherTypeInfo;
import org.apache.flink.connector.base.DeliveryGuarantee;
import org.apache.flink.connector.kafka.sink.KafkaRecordSerializationSchema;
import org.apache.flink.connector.kafka.sink.KafkaSink;
import org.apache.flink.connector.kafka.source.KafkaSource;
import org.apache.flink.connector.kafka.source.enumerator.initializer.OffsetsInitializer;
import org.apache.flink.connector.kafka.source.reader.deserializer.KafkaRecordDeserializationSchema;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.ProcessFunction;
import org.apache.flink.types.Either;
import org.apache.flink.util.Collector;
import org.apache.flink.util.OutputTag;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.OffsetResetStrategy;
import org.apache.kafka.clients.producer.ProducerRecord;

/** Kafka sources and exactly-once sinks as every Cheetah job uses them. */
public final class KafkaIO {
  private KafkaIO() {}

  /**
   * The brokers and the client properties that authenticate a job as its own principal (none with
   * kafka.security.protocol PLAINTEXT; {@code JobSettings#kafka}).
   */
  public record Access(String bootstrap, Map<String, String> security) implements Serializable {
    public Access {
      java.util.Objects.requireNonNull(bootstrap, "bootstrap");
      security = Map.copyOf(security);
    }

    /** Brokers that take any client (kafka.security.protocol PLAINTEXT). */
    public static Access plain(String bootstrap) {
      return new Access(bootstrap, Map.of());
    }

    void addTo(Properties p) {
      security.forEach(p::setProperty);
    }
  }

  /**
   * Reads committed records only (producers are transactional; see {@link Isolation}). A job
   * restored from a savepoint resumes from its offsets there; a job started without one resumes
   * from its group's committed offsets (committed on checkpoints), and only a new group starts from
   * the earliest record.
   */
  public static KafkaSource<KafkaRecord> source(Access bootstrap, String topic, String groupId) {
    return source(bootstrap, topic, groupId, new RecordDeserializer());
  }

  /**
   * A source that decodes in the reader, so that a WatermarkStrategy given to fromSource runs per
   * partition: partitions become readable a transaction at a time and are read unevenly, so a
   * watermark over their merged stream would run ahead of the slower one.
   */
  public static <T> KafkaSource<T> source(
      Access bootstrap, String topic, String groupId, KafkaRecordDeserializationSchema<T> decoder) {
    return source(bootstrap, topic, groupId, decoder, Isolation.COMMITTED);
  }

  /**
   * Which records of a topic a source reads. A read_committed consumer stops at a partition's first
   * open transaction, so on a topic that a transactional producer shares with plain producers (the
   * probe's cheetahs on cheetahs.v1), the plain producers' records wait for that transaction's
   * commit: {@link #ALL} reads them at once, and the decoder must drop what the transactional
   * producer wrote (it may be aborted).
   */
  public enum Isolation {
    COMMITTED("read_committed"),
    ALL("read_uncommitted");

    final String level;

    Isolation(String level) {
      this.level = level;
    }
  }

  /**
   * As {@link #source(Access, String, String, KafkaRecordDeserializationSchema)}, any isolation.
   */
  public static <T> KafkaSource<T> source(
      Access bootstrap,
      String topic,
      String groupId,
      KafkaRecordDeserializationSchema<T> decoder,
      Isolation isolation) {
    Properties security = new Properties();
    bootstrap.addTo(security);
    return KafkaSource.<T>builder()
        .setBootstrapServers(bootstrap.bootstrap())
        .setProperties(security)
        .setTopics(topic)
        .setGroupId(groupId)
        .setStartingOffsets(OffsetsInitializer.committedOffsets(OffsetResetStrategy.EARLIEST))
        .setProperty("isolation.level", isolation.level)
        .setProperty("partition.discovery.interval.ms", "10000")
        .setDeserializer(decoder)
        .build();
  }

  /**
   * A topic read through a checking decoder ({@code Decoders}), without watermarks when {@code
   * watermarks} is empty: the values it accepted, and the records it refused, bound for
   * flows.rejected.v1 (see {@link #rejectedSink}).
   */
  public static <T> Checked<T> checked(
      StreamExecutionEnvironment env,
      Access bootstrap,
      String topic,
      String groupId,
      KafkaRecordDeserializationSchema<Either<KeyedBytes, T>> decoder,
      Optional<WatermarkStrategy<T>> watermarks,
      String uid) {
    return checked(env, bootstrap, topic, groupId, decoder, watermarks, uid, Isolation.COMMITTED);
  }

  /** As the other {@code checked}, reading the records {@code isolation} selects. */
  public static <T> Checked<T> checked(
      StreamExecutionEnvironment env,
      Access bootstrap,
      String topic,
      String groupId,
      KafkaRecordDeserializationSchema<Either<KeyedBytes, T>> decoder,
      Optional<WatermarkStrategy<T>> watermarks,
      String uid,
      Isolation isolation) {
    SingleOutputStreamOperator<T> values =
        env.fromSource(
                source(bootstrap, topic, groupId, decoder, isolation),
                watermarks.map(KafkaIO::<T>onValues).orElse(WatermarkStrategy.noWatermarks()),
                topic)
            .uid(uid)
            .process(new SplitRejected<T>())
            .returns(valuesOf(decoder))
            .name("checked " + topic)
            .uid(uid + "-checked");
    return new Checked<>(values, values.getSideOutput(REJECTED));
  }

  /** The type of the values a checking decoder accepts (its serializer may be written by hand). */
  private static <T> TypeInformation<T> valuesOf(
      KafkaRecordDeserializationSchema<Either<KeyedBytes, T>> decoder) {
    return ((EitherTypeInfo<KeyedBytes, T>) decoder.getProducedType()).getRightType();
  }

  /** A topic's accepted values, and its refused records as flows.rejected.v1 records. */
  public record Checked<T>(DataStream<T> values, DataStream<KeyedBytes> rejected) {}

  private static final OutputTag<KeyedBytes> REJECTED =
      new OutputTag<>("rejected", TypeInformation.of(KeyedBytes.class));

  /** Values downstream, rejections to the side. */
  private static final class SplitRejected<T> extends ProcessFunction<Either<KeyedBytes, T>, T> {
    @Override
    public void processElement(Either<KeyedBytes, T> e, Context ctx, Collector<T> out) {
      if (e.isRight()) {
        out.collect(e.right());
      } else {
        ctx.output(REJECTED, e.left());
      }
    }
  }

  /**
   * A watermark strategy of the values applied to a decoder's output: rejections neither move event
   * time nor count as activity.
   */
  static <T> WatermarkStrategy<Either<KeyedBytes, T>> onValues(WatermarkStrategy<T> s) {
    return new WatermarkStrategy<>() {
      @Override
      public WatermarkGenerator<Either<KeyedBytes, T>> createWatermarkGenerator(
          WatermarkGeneratorSupplier.Context ctx) {
        WatermarkGenerator<T> g = s.createWatermarkGenerator(ctx);
        return new WatermarkGenerator<>() {
          @Override
          public void onEvent(Either<KeyedBytes, T> e, long ts, WatermarkOutput out) {
            if (e.isRight()) {
              g.onEvent(e.right(), ts, out);
            }
          }

          @Override
          public void onPeriodicEmit(WatermarkOutput out) {
            g.onPeriodicEmit(out);
          }
        };
      }

      @Override
      public TimestampAssigner<Either<KeyedBytes, T>> createTimestampAssigner(
          TimestampAssignerSupplier.Context ctx) {
        TimestampAssigner<T> a = s.createTimestampAssigner(ctx);
        return (e, ts) -> e.isRight() ? a.extractTimestamp(e.right(), ts) : ts;
      }
    };
  }

  /** The sink of a job's rejections: flows.rejected.v1, exactly once. */
  public static KafkaSink<KeyedBytes> rejectedSink(Access bootstrap, String jobName) {
    return exactlyOnceSink(bootstrap, net.cheetah.core.Topics.REJECTED, jobName + "-rejected");
  }

  /** Transactional sink: records become visible when the checkpoint that covers them completes. */
  public static KafkaSink<KeyedBytes> exactlyOnceSink(
      Access bootstrap, String topic, String txPrefix) {
    if (net.cheetah.core.Topics.AT_LEAST_ONCE.contains(topic)) {
      throw new IllegalArgumentException(
          topic + " is delivery: at-least-once in schemas/topics.yaml; use atLeastOnceSink");
    }
    Properties p = new Properties();
    bootstrap.addTo(p);
    // Longer than any checkpoint, within the broker's transaction.max.timeout.ms (15 min).
    p.setProperty("transaction.timeout.ms", "600000");
    p.setProperty("compression.type", "lz4");
    // Fewer, larger batches: each batch allocates its lz4 buffers (~130 KB) and is one more append
    // on the broker. At 10^5 records/s a 16-KB batch filled every millisecond (11 % of the e2e
    // benchmark's allocation); at 3,000 records/s, a 5-ms linger made 400 batches a second, most
    // of what the stack's JVM allocated (docs/BENCHMARKS.md, sections 2 and 9). A transaction's
    // records are invisible to read_committed consumers until its checkpoint commits (every 2 s),
    // and the commit flushes them, so waiting up to 50 ms for a batch costs them nothing.
    p.setProperty("linger.ms", "50");
    p.setProperty("batch.size", "262144");
    return KafkaSink.<KeyedBytes>builder()
        .setBootstrapServers(bootstrap.bootstrap())
        .setKafkaProducerConfig(p)
        .setDeliveryGuarantee(DeliveryGuarantee.EXACTLY_ONCE)
        .setTransactionalIdPrefix(txPrefix)
        .setRecordSerializer(new RecordSerializer(topic))
        .build();
  }

  /**
   * At-least-once sink: records are sent as they come and flushed on every checkpoint, never held
   * for a commit. For commands, whose consumers deduplicate by id (docs/REDIRECTS.md). Only for
   * topics the manifest marks {@code delivery: at-least-once} (schemas/topics.yaml): their
   * consumers, the warehouse included, expect repeats.
   */
  public static KafkaSink<KeyedBytes> atLeastOnceSink(Access bootstrap, String topic) {
    requireAtLeastOnce(topic);
    return KafkaSink.<KeyedBytes>builder()
        .setBootstrapServers(bootstrap.bootstrap())
        .setKafkaProducerConfig(atLeastOnceProducerConfig(bootstrap))
        .setDeliveryGuarantee(DeliveryGuarantee.AT_LEAST_ONCE)
        .setRecordSerializer(new RecordSerializer(topic))
        .build();
  }

  /**
   * The producer settings of every at-least-once writer ({@link #atLeastOnceSink}, and {@code
   * ./cheetah guard} outside Flink): idempotent (a retry never duplicates or reorders within a
   * partition), acknowledged by every in-sync replica, sent at once.
   */
  public static Properties atLeastOnceProducerConfig(Access bootstrap) {
    Properties p = new Properties();
    bootstrap.addTo(p);
    p.setProperty("enable.idempotence", "true");
    p.setProperty("acks", "all");
    p.setProperty("linger.ms", "0");
    return p;
  }

  /** Throws unless the manifest marks {@code topic} {@code delivery: at-least-once}. */
  public static void requireAtLeastOnce(String topic) {
    if (!net.cheetah.core.Topics.AT_LEAST_ONCE.contains(topic)) {
      throw new IllegalArgumentException(
          topic
              + " is not delivery: at-least-once in schemas/topics.yaml, so its consumers do not"
              + " expect repeats; mark it there or use exactlyOnceSink");
    }
  }

  private static final class RecordDeserializer
      implements KafkaRecordDeserializationSchema<KafkaRecord> {
    @Override
    public void deserialize(ConsumerRecord<byte[], byte[]> r, Collector<KafkaRecord> out) {
      byte[] v = r.value() == null ? new byte[0] : r.value();
      out.collect(new KafkaRecord(r.topic(), r.partition(), r.offset(), r.timestamp(), v));
    }

    @Override
    public TypeInformation<KafkaRecord> getProducedType() {
      return KafkaRecordSerializer.TYPE;
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
