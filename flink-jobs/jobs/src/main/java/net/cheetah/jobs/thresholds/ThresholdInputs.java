package net.cheetah.jobs.thresholds;

import java.util.Optional;
import net.cheetah.jobs.codec.Decoders;
import net.cheetah.schemas.v1.LinkStats;
import net.cheetah.schemas.v1.SnmpCounters;
import org.apache.flink.connector.kafka.source.reader.deserializer.KafkaRecordDeserializationSchema;

/** Readers of the threshold job's topics. */
public final class ThresholdInputs {
  private ThresholdInputs() {}

  /**
   * A window with a negative or non-finite rate or burstiness cannot give a threshold: it is
   * refused here (logged with its offset by the decoder) rather than failing the operator.
   */
  public static KafkaRecordDeserializationSchema<ThresholdInput> stats() {
    return Decoders.of(
        ThresholdInput.class,
        v -> {
          LinkStats s = LinkStats.parseFrom(v);
          if (s.getLinkId().isEmpty() || s.getBins() == 0) {
            return Optional.empty();
          }
          if (!(s.getMeanBgBps() >= 0 && s.getBurstiness() >= 0)
              || Double.isInfinite(s.getMeanBgBps())
              || Double.isInfinite(s.getBurstiness())) {
            throw new IllegalArgumentException(
                "link statistics of "
                    + s.getLinkId()
                    + " ending "
                    + s.getWindowEndMs()
                    + " have mean background "
                    + s.getMeanBgBps()
                    + " b/s and burstiness "
                    + s.getBurstiness()
                    + "; both must be finite and >= 0 (check the link-statistics job)");
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
