package net.cheetah.jobs.thresholds;

import java.util.Optional;
import net.cheetah.jobs.codec.Decoders;
import net.cheetah.schemas.v1.LinkStats;
import net.cheetah.schemas.v1.SnmpCounters;
import org.apache.flink.connector.kafka.source.reader.deserializer.KafkaRecordDeserializationSchema;

/** Readers of the threshold job's topics. */
public final class ThresholdInputs {
  private ThresholdInputs() {}

  public static KafkaRecordDeserializationSchema<ThresholdInput> stats() {
    return Decoders.of(
        ThresholdInput.class,
        v -> {
          LinkStats s = LinkStats.parseFrom(v);
          return s.getLinkId().isEmpty() || s.getBins() == 0
              ? Optional.empty()
              : Optional.of(
                  ThresholdInput.stats(
                      s.getLinkId(),
                      s.getWindowEndMs(),
                      s.getMeanBgBps(),
                      s.getBurstiness(),
                      s.getCapacityBps()));
        });
  }

  /** Packets are unicast out packets plus discards: the discard rate's denominator. */
  public static KafkaRecordDeserializationSchema<ThresholdInput> polls() {
    return Decoders.of(
        ThresholdInput.class,
        v -> {
          SnmpCounters c = SnmpCounters.parseFrom(v);
          return c.getLinkId().isEmpty()
              ? Optional.empty()
              : Optional.of(
                  ThresholdInput.poll(
                      c.getLinkId(),
                      c.getPolledMs(),
                      c.getIfHcOutUcastPkts(),
                      c.getIfOutDiscards(),
                      c.getCountersReset()));
        });
  }
}
