package net.cheetah.jobs.codec;

import com.google.protobuf.InvalidProtocolBufferException;
import net.cheetah.analytics.Flow;
import net.cheetah.schemas.v1.FlowRecord;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.connector.kafka.source.reader.deserializer.KafkaRecordDeserializationSchema;
import org.apache.flink.util.Collector;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Kafka readers of the jobs' own topics. These topics are written only by Cheetah's jobs (after
 * validation), so an undecodable record means a bug or a foreign producer: it is logged with its
 * position and skipped, never allowed to stop the job.
 */
public final class Decoders {
  private static final Logger LOG = LoggerFactory.getLogger(Decoders.class);

  private Decoders() {}

  public static KafkaRecordDeserializationSchema<Flow> flows() {
    return new FlowDecoder();
  }

  /** Parses a record's value; empty = a valid record this reader does not want. */
  @FunctionalInterface
  public interface Parser<T> extends java.io.Serializable {
    java.util.Optional<T> parse(byte[] value) throws InvalidProtocolBufferException;
  }

  /** A reader of one of the jobs' topics: undecodable records are logged and skipped. */
  public static <T> KafkaRecordDeserializationSchema<T> of(Class<T> type, Parser<T> parser) {
    return new KafkaRecordDeserializationSchema<>() {
      @Override
      public void deserialize(ConsumerRecord<byte[], byte[]> r, Collector<T> out) {
        try {
          parser.parse(r.value()).ifPresent(out::collect);
        } catch (InvalidProtocolBufferException | IllegalArgumentException e) {
          skip(r, e);
        }
      }

      @Override
      public TypeInformation<T> getProducedType() {
        return TypeInformation.of(type);
      }
    };
  }

  private static void skip(ConsumerRecord<byte[], byte[]> r, Exception e) {
    LOG.warn(
        "skipping an undecodable record at {}-{} offset {}: {}",
        r.topic(),
        r.partition(),
        r.offset(),
        e.getMessage());
  }

  private static final class FlowDecoder implements KafkaRecordDeserializationSchema<Flow> {
    @Override
    public void deserialize(ConsumerRecord<byte[], byte[]> r, Collector<Flow> out) {
      try {
        out.collect(Codec.flow(FlowRecord.parseFrom(r.value())));
      } catch (InvalidProtocolBufferException | IllegalArgumentException e) {
        skip(r, e);
      }
    }

    @Override
    public TypeInformation<Flow> getProducedType() {
      return TypeInformation.of(Flow.class);
    }
  }
}
