package net.cheetah.jobs.redirects;

import java.util.Optional;
import net.cheetah.core.flow.Address;
import net.cheetah.core.redirect.CheetahSighting;
import net.cheetah.jobs.codec.Decoders;
import net.cheetah.jobs.codec.RecordChecks;
import net.cheetah.jobs.flink.KeyedBytes;
import net.cheetah.schemas.v1.CheetahEvent;
import net.cheetah.schemas.v1.DetectionSource;
import org.apache.flink.connector.kafka.source.reader.deserializer.KafkaRecordDeserializationSchema;
import org.apache.flink.types.Either;

/**
 * cheetahs.v1 (NetFlow and probe) as sightings; the link is the exporter's address if unnamed.
 * NetFlow cheetahs are the α flows that build prefix filters.
 */
public final class Sightings {
  private Sightings() {}

  public static final String STAGE = "redirects";

  /** What it refuses goes to flows.rejected.v1 with the stage {@link #STAGE}. */
  public static KafkaRecordDeserializationSchema<Either<KeyedBytes, CheetahSighting>> reader() {
    return reader(false);
  }

  /**
   * As {@link #reader()}; with {@code withoutNetflow}, a valid NetFlow cheetah is skipped (it is
   * still checked: what it refuses is refused as before). The redirect job reads cheetahs.v1 so,
   * uncommitted, for the probe's cheetahs: the NetFlow ones there may belong to a transaction that
   * aborts, and reach it through cheetahs.control.v1 instead.
   */
  public static KafkaRecordDeserializationSchema<Either<KeyedBytes, CheetahSighting>> reader(
      boolean withoutNetflow) {
    return Decoders.of(
        STAGE,
        CheetahSighting.class,
        (v, at) -> {
          CheetahEvent e = CheetahEvent.parseFrom(v);
          RecordChecks.cheetah(e);
          if (withoutNetflow && e.getSource() == DetectionSource.DETECTION_SOURCE_NETFLOW) {
            return Optional.empty();
          }
          return of(e);
        });
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
