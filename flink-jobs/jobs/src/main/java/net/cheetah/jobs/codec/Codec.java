package net.cheetah.jobs.codec;

import com.google.protobuf.ByteString;
import net.cheetah.core.flow.Address;
import net.cheetah.core.flow.CheetahEvent;
import net.cheetah.core.flow.Flow;
import net.cheetah.core.flow.FlowKey;
import net.cheetah.core.flow.Flowset;
import net.cheetah.schemas.v1.CheetahEventType;
import net.cheetah.schemas.v1.DetectionSource;
import net.cheetah.schemas.v1.FlowRecord;

/** Conversions between the cheetah.v1 wire messages and the analytics values. */
public final class Codec {
  private Codec() {}

  public static ByteString addr(Address a) {
    return ByteString.copyFrom(a.toBytes16());
  }

  public static Address addr(ByteString b) {
    return Address.fromBytes(b.toByteArray());
  }

  public static Flow flow(FlowRecord r) {
    FlowKey k =
        new FlowKey(
            addr(r.getExporter()),
            addr(r.getSrcAddr()),
            addr(r.getDstAddr()),
            r.getSrcPort(),
            r.getDstPort(),
            r.getProto());
    return new Flow(
        k, r.getStartMs(), r.getEndMs(), r.getBytes(), r.getPackets(), r.getSrcAs(), r.getDstAs());
  }

  public static net.cheetah.schemas.v1.CheetahEvent toProto(CheetahEvent e) {
    FlowKey k = e.key();
    return net.cheetah.schemas.v1.CheetahEvent.newBuilder()
        .setFlowId(e.flowId())
        .setType(
            switch (e.kind()) {
              case START -> CheetahEventType.CHEETAH_EVENT_TYPE_START;
              case UPDATE -> CheetahEventType.CHEETAH_EVENT_TYPE_UPDATE;
              case END -> CheetahEventType.CHEETAH_EVENT_TYPE_END;
            })
        .setSource(DetectionSource.DETECTION_SOURCE_NETFLOW)
        .setEventMs(e.eventMs())
        .setSeq(e.seq())
        .setExporter(addr(k.exporter()))
        .setSrcAddr(addr(k.src()))
        .setDstAddr(addr(k.dst()))
        .setSrcPort(k.srcPort())
        .setDstPort(k.dstPort())
        .setProto(k.proto())
        .setStartMs(e.startMs())
        .setEndMs(e.endMs())
        .setBytes(e.bytes())
        .setPackets(e.packets())
        .setPeakIntervalBytes(e.peakIntervalBytes())
        .setPeakIntervalStartMs(e.peakIntervalStartMs())
        .setRateBps(e.rateBps())
        .setRecords(e.records())
        .setSrcAs(e.srcAs())
        .setDstAs(e.dstAs())
        .build();
  }

  public static net.cheetah.schemas.v1.Flowset toProto(Flowset s) {
    return net.cheetah.schemas.v1.Flowset.newBuilder()
        .setFlowsetId(s.flowsetId())
        .setSrcAddr(addr(s.src()))
        .setDstAddr(addr(s.dst()))
        .setSrcAs(s.srcAs())
        .setDstAs(s.dstAs())
        .setNFlows(s.nFlows())
        .setSingle(s.single())
        .setStartMs(s.startMs())
        .setEndMs(s.endMs())
        .setBytes(s.bytes())
        .setDurationS(s.durationS())
        .setRateBps(s.rateBps())
        .addAllMemberFlowIds(s.memberFlowIds())
        .setClosedMs(s.closedMs())
        .build();
  }

  /** 8-byte big-endian Kafka key. */
  /** The mode a published R came from, as thresholds.v1 writes it. */
  public static net.cheetah.schemas.v1.ThresholdMode toProto(
      net.cheetah.core.threshold.ThresholdMode m) {
    return switch (m) {
      case FORMULA -> net.cheetah.schemas.v1.ThresholdMode.THRESHOLD_MODE_FORMULA;
      case TABLE -> net.cheetah.schemas.v1.ThresholdMode.THRESHOLD_MODE_TABLE;
      case FEEDBACK -> net.cheetah.schemas.v1.ThresholdMode.THRESHOLD_MODE_FEEDBACK;
    };
  }

  public static byte[] key(long v) {
    byte[] b = new byte[8];
    for (int i = 0; i < 8; i++) {
      b[i] = (byte) (v >>> (56 - 8 * i));
    }
    return b;
  }
}
