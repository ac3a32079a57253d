package net.cheetah.jobs.redirects;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import net.cheetah.core.flow.Address;
import net.cheetah.core.redirect.CheetahSighting;
import net.cheetah.jobs.codec.Codec;
import net.cheetah.jobs.flink.KeyedBytes;
import net.cheetah.schemas.v1.CheetahEvent;
import net.cheetah.schemas.v1.CheetahEventType;
import net.cheetah.schemas.v1.DetectionSource;
import net.cheetah.schemas.v1.RejectedRecord;
import org.apache.flink.api.common.functions.util.ListCollector;
import org.apache.flink.types.Either;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;

/**
 * The redirect job's readers of cheetah events: cheetahs.v1 uncommitted keeps the probe's only
 * (NetFlow ones come on cheetahs.control.v1), and refuses a bad record of either kind as before.
 */
class SightingsTest {

  static CheetahEvent.Builder start(String flow, DetectionSource source) {
    CheetahEvent.Builder b =
        CheetahEvent.newBuilder()
            .setFlowId(flow)
            .setType(CheetahEventType.CHEETAH_EVENT_TYPE_START)
            .setSource(source)
            .setEventMs(1_000_000)
            .setSeq(1)
            .setSrcAddr(Codec.addr(Address.parse("198.18.1.10")))
            .setDstAddr(Codec.addr(Address.parse("198.18.2.20")))
            .setSrcPort(40000)
            .setDstPort(5201)
            .setProto(6)
            .setStartMs(990_000)
            .setEndMs(1_000_000)
            .setRateBps(2e9);
    return source == DetectionSource.DETECTION_SOURCE_NETFLOW
        ? b.setExporter(Codec.addr(Address.parse("10.0.0.1")))
        : b.setLinkId("esnet-a");
  }

  static List<Either<KeyedBytes, CheetahSighting>> read(boolean withoutNetflow, CheetahEvent e)
      throws Exception {
    List<Either<KeyedBytes, CheetahSighting>> out = new ArrayList<>();
    Sightings.reader(withoutNetflow)
        .deserialize(
            new ConsumerRecord<>("cheetahs.v1", 0, 7, new byte[0], e.toByteArray()),
            new ListCollector<>(out));
    return out;
  }

  @Test
  void withoutNetflowKeepsTheProbesCheetahsAndSkipsNetflowOnes() throws Exception {
    CheetahEvent probe = start("p-1", DetectionSource.DETECTION_SOURCE_PROBE).build();
    CheetahEvent netflow = start("n-1", DetectionSource.DETECTION_SOURCE_NETFLOW).build();

    assertThat(read(true, probe))
        .singleElement()
        .satisfies(x -> assertThat(x.right().flowId()).isEqualTo("p-1"))
        .satisfies(x -> assertThat(x.right().link()).isEqualTo("esnet-a"));
    assertThat(read(true, netflow)).isEmpty();
    // The control topic's reader takes both kinds; a NetFlow cheetah's link is its exporter.
    assertThat(read(false, netflow))
        .singleElement()
        .satisfies(x -> assertThat(x.right().link()).isEqualTo("10.0.0.1"))
        .satisfies(x -> assertThat(x.right().alpha()).isTrue());
  }

  @Test
  void aBadNetflowRecordIsStillRefusedWhereNetflowIsSkipped() throws Exception {
    CheetahEvent bad = start("", DetectionSource.DETECTION_SOURCE_NETFLOW).build();
    List<Either<KeyedBytes, CheetahSighting>> out = read(true, bad);
    assertThat(out).singleElement().satisfies(x -> assertThat(x.isLeft()).isTrue());
    RejectedRecord r = RejectedRecord.parseFrom(out.get(0).left().value());
    assertThat(List.of(r.getStage(), r.getReason()))
        .containsExactly("redirects", "missing_flow_id");
  }
}
