package net.cheetah.jobs.thresholds;

import java.util.Optional;
import net.cheetah.jobs.codec.Decoders;
import net.cheetah.jobs.codec.RecordChecks;
import net.cheetah.jobs.flink.KeyedBytes;
import net.cheetah.schemas.v1.LinkStats;
import net.cheetah.schemas.v1.SnmpCounters;
import org.apache.flink.connector.kafka.source.reader.deserializer.KafkaRecordDeserializationSchema;
import org.apache.flink.types.Either;

/**
 * Readers of the threshold job's topics; what they refuse goes to flows.rejected.v1 with the stage
 * {@link #STAGE} (Decoders, RecordChecks).
 */
public final class ThresholdInputs {
  public static final String STAGE = "thresholds";

  private ThresholdInputs() {}

  /**
   * A window with a negative or non-finite rate, burstiness or capacity cannot give a threshold: it
   * is refused here rather than failing the operator. A window without bins gives none either, and
   * is ignored (counted).
   */
  public static KafkaRecordDeserializationSchema<Either<KeyedBytes, ThresholdInput>> stats() {
    return Decoders.of(
        STAGE,
        ThresholdInput.class,
        (v, at) -> {
          LinkStats s = LinkStats.parseFrom(v);
          RecordChecks.linkStats(s);
          if (s.getBins() == 0) {
            return Optional.empty();
          }
          return Optional.of(
              ThresholdInput.stats(
                  s.getLinkId(),
                  s.getWindowStartMs(),
                  s.getWindowEndMs(),
                  s.getMeanBgBps(),
                  s.getBurstiness(),
                  s.getCapacityBps(),
                  s.getSliding()));
        });
  }

  /** Packets are unicast out packets plus discards: the discard rate's denominator. */
  public static KafkaRecordDeserializationSchema<Either<KeyedBytes, ThresholdInput>> polls() {
    return Decoders.of(
        STAGE,
        ThresholdInput.class,
        (v, at) -> {
          SnmpCounters c = SnmpCounters.parseFrom(v);
          RecordChecks.snmp(c, at);
          return Optional.of(
              ThresholdInput.poll(
                  c.getLinkId(),
                  c.getPolledMs(),
                  c.getIfHcOutUcastPkts(),
                  c.getIfOutDiscards(),
                  c.getCountersReset()));
        });
  }
}
