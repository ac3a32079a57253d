package net.cheetah.jobs.codec;

import com.google.protobuf.ByteString;
import com.google.protobuf.InvalidProtocolBufferException;
import java.util.Optional;
import net.cheetah.core.flow.Flow;
import net.cheetah.jobs.flink.KeyedBytes;
import net.cheetah.jobs.throughput.FlowSerializer;
import net.cheetah.schemas.v1.RejectedRecord;
import org.apache.flink.api.common.serialization.DeserializationSchema;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.java.typeutils.EitherTypeInfo;
import org.apache.flink.connector.kafka.source.reader.deserializer.KafkaRecordDeserializationSchema;
import org.apache.flink.metrics.Counter;
import org.apache.flink.types.Either;
import org.apache.flink.util.Collector;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Kafka readers of the jobs' input topics. Every record becomes a value ({@code Right}), nothing (a
 * valid record this reader does not want, counted as {@code recordsIgnored}), or a rejection
 * ({@code Left}: a flows.rejected.v1 record with the stage, a reason code, the record's bytes and
 * where it was read; counted as {@code recordsRejected} and logged). Nothing a producer writes can
 * stop the job: undecodable bytes, empty values, tombstones and values no check foresaw are all
 * rejected (flows.rejected.v1; docs/ARCHITECTURE.md, "Data flow").
 */
public final class Decoders {
  private static final Logger LOG = LoggerFactory.getLogger(Decoders.class);

  private Decoders() {}

  /** flows.v1 as the cheetah job reads it. */
  public static KafkaRecordDeserializationSchema<Either<KeyedBytes, Flow>> flows(String stage) {
    return of(stage, FlowSerializer.TYPE, (v, at) -> Optional.of(FlowRecordReader.read(v, at)));
  }

  /**
   * Parses a record's value; empty = a valid record this reader does not want; {@link Refused} = a
   * record no valid producer writes.
   */
  @FunctionalInterface
  public interface Parser<T> extends java.io.Serializable {
    /**
     * @param value the record's value, never empty
     * @param recordMs the Kafka record's timestamp (epoch ms; 0 or less when it has none)
     */
    Optional<T> parse(byte[] value, long recordMs) throws InvalidProtocolBufferException, Refused;
  }

  /** A record a check refused: a stable reason code and a detail naming the offending value. */
  public static final class Refused extends Exception {
    private static final long serialVersionUID = 1L;
    private final String reason;

    public Refused(String reason, String detail) {
      super(detail, null, false, false);
      this.reason = reason;
    }

    public String reason() {
      return reason;
    }
  }

  /** A reader of one of the jobs' topics, refusing for {@code stage}. */
  public static <T> KafkaRecordDeserializationSchema<Either<KeyedBytes, T>> of(
      String stage, Class<T> type, Parser<T> parser) {
    return of(stage, TypeInformation.of(type), parser);
  }

  /** As the other {@code of}, with the values' type (a serializer written by hand, say). */
  public static <T> KafkaRecordDeserializationSchema<Either<KeyedBytes, T>> of(
      String stage, TypeInformation<T> type, Parser<T> parser) {
    return new Reader<>(stage, type, parser);
  }

  private static final class Reader<T>
      implements KafkaRecordDeserializationSchema<Either<KeyedBytes, T>> {
    private static final long serialVersionUID = 1L;
    private final String stage;
    private final TypeInformation<T> type;
    private final Parser<T> parser;
    private transient Counter rejected;
    private transient Counter ignored;

    Reader(String stage, TypeInformation<T> type, Parser<T> parser) {
      this.stage = stage;
      this.type = type;
      this.parser = parser;
    }

    @Override
    public void open(DeserializationSchema.InitializationContext context) {
      rejected = context.getMetricGroup().counter("recordsRejected");
      ignored = context.getMetricGroup().counter("recordsIgnored");
    }

    @Override
    public void deserialize(
        ConsumerRecord<byte[], byte[]> r, Collector<Either<KeyedBytes, T>> out) {
      byte[] v = r.value();
      if (v == null || v.length == 0) {
        out.collect(
            reject(r, "empty_value", v == null ? "a null value (tombstone)" : "an empty value"));
        return;
      }
      try {
        Optional<T> t = parser.parse(v, r.timestamp());
        if (t.isPresent()) {
          out.collect(Either.Right(t.get()));
        } else if (ignored != null) {
          ignored.inc();
        }
      } catch (InvalidProtocolBufferException e) {
        out.collect(reject(r, "undecodable", "not a protobuf message: " + e.getMessage()));
      } catch (Refused e) {
        out.collect(reject(r, e.reason(), e.getMessage()));
      } catch (RuntimeException e) {
        // A value no check foresaw must not fail the job either: kept, with what went wrong.
        out.collect(reject(r, "invalid_record", e.toString()));
      }
    }

    private Either<KeyedBytes, T> reject(
        ConsumerRecord<byte[], byte[]> r, String reason, String detail) {
      if (rejected != null) {
        rejected.inc();
      }
      LOG.warn(
          "{}: rejecting the record at {}-{} offset {} ({}): {}",
          stage,
          r.topic(),
          r.partition(),
          r.offset(),
          reason,
          detail);
      RejectedRecord bad =
          RejectedRecord.newBuilder()
              .setStage(stage)
              .setReason(reason)
              .setDetail(detail)
              .setPayload(r.value() == null ? ByteString.EMPTY : ByteString.copyFrom(r.value()))
              .setReceivedMs(Math.max(0, r.timestamp()))
              .setSourceTopic(r.topic())
              .setSourcePartition(r.partition())
              .setSourceOffset(r.offset())
              .build();
      return Either.Left(new KeyedBytes(new byte[0], bad.toByteArray()));
    }

    @Override
    public TypeInformation<Either<KeyedBytes, T>> getProducedType() {
      return new EitherTypeInfo<>(TypeInformation.of(KeyedBytes.class), type);
    }
  }
}
