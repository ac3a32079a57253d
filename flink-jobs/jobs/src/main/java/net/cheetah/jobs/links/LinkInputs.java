package net.cheetah.jobs.links;

import java.util.Optional;
import net.cheetah.jobs.codec.Decoders;
import net.cheetah.schemas.v1.CheetahEvent;
import net.cheetah.schemas.v1.DetectionSource;
import net.cheetah.schemas.v1.LinkBin;
import net.cheetah.schemas.v1.SnmpCounters;
import org.apache.flink.connector.kafka.source.reader.deserializer.KafkaRecordDeserializationSchema;

/** Readers of the link-statistics job's three topics, each into {@link LinkInput}. */
public final class LinkInputs {
  private LinkInputs() {}

  /** probe.bins.v1: every bin of a named link. */
  public static KafkaRecordDeserializationSchema<LinkInput> bins() {
    return Decoders.of(
        LinkInput.class,
        v -> {
          LinkBin b = LinkBin.parseFrom(v);
          return b.getLinkId().isEmpty()
              ? Optional.empty()
              : Optional.of(
                  LinkInput.bin(
                      b.getLinkId(), b.getBinStartMs(), b.getBytes(), b.getCheetahBytes()));
        });
  }

  /**
   * cheetahs.v1: NetFlow cheetahs on a named link, as a span at their mean rate (the probe's own
   * cheetahs are already in its bins' cheetah bytes).
   */
  public static KafkaRecordDeserializationSchema<LinkInput> netflowCheetahs() {
    return Decoders.of(
        LinkInput.class,
        v -> {
          CheetahEvent e = CheetahEvent.parseFrom(v);
          if (e.getSource() != DetectionSource.DETECTION_SOURCE_NETFLOW
              || e.getLinkId().isEmpty()) {
            return Optional.empty();
          }
          return Optional.of(
              LinkInput.cheetah(
                  e.getLinkId(), e.getFlowId(), e.getStartMs(), e.getEndMs(), e.getRateBps()));
        });
  }

  /** snmp.counters.v1: the link's speed (ifHighSpeed, Mb/s) as its capacity. */
  public static KafkaRecordDeserializationSchema<LinkInput> capacities() {
    return Decoders.of(
        LinkInput.class,
        v -> {
          SnmpCounters c = SnmpCounters.parseFrom(v);
          return c.getLinkId().isEmpty() || c.getIfHighSpeedMbps() == 0
              ? Optional.empty()
              : Optional.of(LinkInput.capacity(c.getLinkId(), c.getIfHighSpeedMbps() * 1e6));
        });
  }
}
