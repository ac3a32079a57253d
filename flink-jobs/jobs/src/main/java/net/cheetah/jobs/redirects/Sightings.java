package net.cheetah.jobs.redirects;

import java.util.Optional;
import net.cheetah.analytics.Address;
import net.cheetah.analytics.redirects.CheetahSighting;
import net.cheetah.jobs.codec.Decoders;
import net.cheetah.schemas.v1.CheetahEvent;
import net.cheetah.schemas.v1.DetectionSource;
import org.apache.flink.connector.kafka.source.reader.deserializer.KafkaRecordDeserializationSchema;

/**
 * cheetahs.v1 (NetFlow and probe) as sightings; the link is the exporter's address if unnamed.
 * NetFlow cheetahs are the α flows that build prefix filters.
 */
public final class Sightings {
  private Sightings() {}

  public static KafkaRecordDeserializationSchema<CheetahSighting> reader() {
    return Decoders.of(CheetahSighting.class, v -> of(CheetahEvent.parseFrom(v)));
  }

  static Optional<CheetahSighting> of(CheetahEvent e) {
    CheetahSighting.Kind kind =
        switch (e.getType()) {
          case CHEETAH_EVENT_TYPE_START -> CheetahSighting.Kind.START;
          case CHEETAH_EVENT_TYPE_UPDATE -> CheetahSighting.Kind.UPDATE;
          case CHEETAH_EVENT_TYPE_END -> CheetahSighting.Kind.END;
          default -> null;
        };
    if (kind == null || e.getFlowId().isEmpty()) {
      return Optional.empty();
    }
    String link =
        !e.getLinkId().isEmpty()
            ? e.getLinkId()
            : e.getExporter().size() == 16
                ? Address.fromBytes(e.getExporter().toByteArray()).toString()
                : "";
    return Optional.of(
        new CheetahSighting(
            e.getFlowId(),
            kind,
            link,
            Address.fromBytes(e.getSrcAddr().toByteArray()),
            Address.fromBytes(e.getDstAddr().toByteArray()),
            e.getSrcPort(),
            e.getDstPort(),
            e.getProto(),
            e.getRateBps(),
            e.getThresholdVersion(),
            e.getSource() == DetectionSource.DETECTION_SOURCE_NETFLOW,
            e.getEventMs()));
  }
}
