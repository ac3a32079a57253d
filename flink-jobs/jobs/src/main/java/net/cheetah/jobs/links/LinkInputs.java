package net.cheetah.jobs.links;

import java.util.Optional;
import net.cheetah.jobs.codec.Decoders;
import net.cheetah.jobs.codec.RecordChecks;
import net.cheetah.jobs.flink.KeyedBytes;
import net.cheetah.schemas.v1.CheetahEvent;
import net.cheetah.schemas.v1.DetectionSource;
import net.cheetah.schemas.v1.LinkBin;
import net.cheetah.schemas.v1.SnmpCounters;
import org.apache.flink.connector.kafka.source.reader.deserializer.KafkaRecordDeserializationSchema;
import org.apache.flink.types.Either;

/**
 * Readers of the link-statistics job's three topics, each into {@link LinkInput}; what they refuse
 * goes to flows.rejected.v1 with the stage {@link #STAGE} (Decoders, RecordChecks).
 */
public final class LinkInputs {
  public static final String STAGE = "link-stats";

  private LinkInputs() {}

  /** probe.bins.v1: every bin of a named link. */
  public static KafkaRecordDeserializationSchema<Either<KeyedBytes, LinkInput>> bins() {
    return Decoders.of(
        STAGE,
        LinkInput.class,
        (v, at) -> {
          LinkBin b = LinkBin.parseFrom(v);
          RecordChecks.bin(b, at);
          return Optional.of(
              LinkInput.bin(b.getLinkId(), b.getBinStartMs(), b.getBytes(), b.getCheetahBytes()));
        });
  }

  /**
   * cheetahs.v1: NetFlow cheetahs on a named link, as a span at their mean rate (the probe's own
   * cheetahs are already in its bins' cheetah bytes; NetFlow cheetahs without a link are for the
   * other readers: both ignored, and counted).
   */
  public static KafkaRecordDeserializationSchema<Either<KeyedBytes, LinkInput>> netflowCheetahs() {
    return Decoders.of(
        STAGE,
        LinkInput.class,
        (v, at) -> {
          CheetahEvent e = CheetahEvent.parseFrom(v);
          RecordChecks.cheetah(e);
          if (e.getSource() != DetectionSource.DETECTION_SOURCE_NETFLOW
              || e.getLinkId().isEmpty()) {
            return Optional.empty();
          }
          return Optional.of(
              LinkInput.cheetah(
                  e.getLinkId(), e.getFlowId(), e.getStartMs(), e.getEndMs(), e.getRateBps()));
        });
  }

  /** snmp.counters.v1: the link's speed (ifHighSpeed, Mb/s) as its capacity; 0 = unknown. */
  public static KafkaRecordDeserializationSchema<Either<KeyedBytes, LinkInput>> capacities() {
    return Decoders.of(
        STAGE,
        LinkInput.class,
        (v, at) -> {
          SnmpCounters c = SnmpCounters.parseFrom(v);
          RecordChecks.snmp(c, at);
          return c.getIfHighSpeedMbps() == 0
              ? Optional.empty()
              : Optional.of(LinkInput.capacity(c.getLinkId(), c.getIfHighSpeedMbps() * 1e6));
        });
  }
}
