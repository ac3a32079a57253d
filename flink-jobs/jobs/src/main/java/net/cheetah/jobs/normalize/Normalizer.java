package net.cheetah.jobs.normalize;

import com.google.protobuf.ByteString;
import com.google.protobuf.CodedInputStream;
import com.google.protobuf.InvalidProtocolBufferException;
import java.io.IOException;
import java.util.function.Consumer;
import net.cheetah.schemas.goflow2.FlowMessage;
import net.cheetah.schemas.v1.FlowRecord;
import net.cheetah.schemas.v1.FlowSource;
import net.cheetah.schemas.v1.RejectedRecord;

/**
 * goflow2 FlowMessage → canonical flows.v1 record (docs/ARCHITECTURE.md, "Data flow"): counts
 * scaled by the sampling rate (the rate kept), times in epoch ms, exporter identity as a 16-byte
 * address. Anything that cannot be a real flow is refused with a stable reason code and kept as a
 * RejectedRecord.
 */
public final class Normalizer {
  /** Smallest IPv4/IPv6 header: fewer bytes per packet than this cannot be real traffic. */
  private static final long MIN_V4_PACKET = 20;

  private static final long MIN_V6_PACKET = 40;

  /** Largest packet (IPv6 jumbograms aside) one record may average. */
  private static final long MAX_PACKET = 65_535;

  /** A flow record never lasts longer than this (a broken clock does). */
  private static final long MAX_DURATION_MS = 7L * 24 * 3600 * 1000;

  /** Records may be up to this far ahead of their receive time (clock skew). */
  private static final long MAX_FUTURE_MS = 3600_000;

  public static final int ETYPE_IPV4 = 0x0800;
  public static final int ETYPE_IPV6 = 0x86DD;

  /** Where the input came from, kept with a rejection so it can be found again. */
  public record Origin(String topic, int partition, long offset) {}

  private final String stage;

  public Normalizer(String stage) {
    this.stage = stage;
  }

  /**
   * Decodes one Kafka value of flows.goflow2.v1 (one or more varint length-delimited messages, as
   * goflow2's "bin" format writes them) and normalises every message in it.
   */
  public void normalize(
      byte[] value,
      Origin origin,
      Consumer<FlowRecord> accepted,
      Consumer<RejectedRecord> rejected) {
    if (value.length == 0) {
      // An empty value (or a tombstone) holds no message: kept, not skipped without a trace.
      rejected.accept(
          reject("empty_value", "an empty record holds no goflow2 FlowMessage", origin)
              .setPayload(ByteString.EMPTY)
              .build());
      return;
    }
    CodedInputStream in = CodedInputStream.newInstance(value);
    try {
      while (!in.isAtEnd()) {
        int len = in.readRawVarint32();
        if (len < 0 || len > value.length) {
          throw new InvalidProtocolBufferException("length prefix " + len + " exceeds the record");
        }
        int limit = in.pushLimit(len);
        FlowMessage m = FlowMessage.parseFrom(in);
        if (!in.isAtEnd()) {
          throw new InvalidProtocolBufferException("message ends before its length prefix");
        }
        in.popLimit(limit);
        normalize(m, origin, accepted, rejected);
      }
    } catch (IOException | RuntimeException e) {
      rejected.accept(
          reject(
                  "malformed_message",
                  "not a length-delimited goflow2 FlowMessage: " + e.getMessage(),
                  origin)
              .setPayload(ByteString.copyFrom(value))
              .build());
    }
  }

  public void normalize(
      FlowMessage m,
      Origin origin,
      Consumer<FlowRecord> accepted,
      Consumer<RejectedRecord> rejected) {
    m = withV9Times(m);
    String problem = check(m);
    if (problem != null) {
      int colon = problem.indexOf(':');
      rejected.accept(
          reject(problem.substring(0, colon), problem.substring(colon + 2), origin)
              .setPayload(m.toByteString())
              .setExporter(addr16(m.getSamplerAddress()))
              .setReceivedMs(m.getTimeReceivedNs() / 1_000_000)
              .build());
      return;
    }
    long rate = Math.max(1, m.getSamplingRate());
    accepted.accept(
        FlowRecord.newBuilder()
            .setExporter(addr16(m.getSamplerAddress()))
            .setObservationDomain(m.getObservationDomainId())
            .setSource(source(m.getType()))
            .setReceivedMs(m.getTimeReceivedNs() / 1_000_000)
            .setStartMs(m.getTimeFlowStartNs() / 1_000_000)
            .setEndMs(m.getTimeFlowEndNs() / 1_000_000)
            .setSrcAddr(addr16(m.getSrcAddr()))
            .setDstAddr(addr16(m.getDstAddr()))
            .setSrcPort(m.getSrcPort())
            .setDstPort(m.getDstPort())
            .setProto(m.getProto())
            .setBytes(m.getBytes() * rate)
            .setPackets(m.getPackets() * rate)
            .setSamplingRate(rate)
            .setSrcAs(m.getSrcAs())
            .setDstAs(m.getDstAs())
            .setInIf(m.getInIf())
            .setOutIf(m.getOutIf())
            .setTcpFlags(m.getTcpFlags())
            .setIpTos(m.getIpTos())
            .setEtype(m.getEtype())
            .build());
  }

  /**
   * A NetFlow v9 record timed by IEs 150-153 carries its times in the collector's extra fields
   * (schemas/goflow2/flow.proto); goflow2 itself put the datagram's header time in the ns fields.
   */
  static FlowMessage withV9Times(FlowMessage m) {
    if (m.getType() != FlowMessage.FlowType.NETFLOW_V9) {
      return m;
    }
    long start =
        m.getV9FlowStartMilliseconds() > 0
            ? m.getV9FlowStartMilliseconds()
            : m.getV9FlowStartSeconds() * 1000;
    long end =
        m.getV9FlowEndMilliseconds() > 0
            ? m.getV9FlowEndMilliseconds()
            : m.getV9FlowEndSeconds() * 1000;
    if (start == 0 && end == 0) {
      return m;
    }
    return m.toBuilder()
        .setTimeFlowStartNs(start * 1_000_000)
        .setTimeFlowEndNs(end * 1_000_000)
        .build();
  }

  /** Null when the message is a plausible flow, else "reason: detail". */
  static String check(FlowMessage m) {
    return check(
        m.getTimeFlowStartNs(),
        m.getTimeFlowEndNs(),
        m.getTimeReceivedNs(),
        m.getEtype(),
        m.getSrcAddr().size(),
        m.getDstAddr().size(),
        m.getProto(),
        m.getSrcPort(),
        m.getDstPort(),
        m.getPackets(),
        m.getBytes(),
        m.getSamplingRate());
  }

  /**
   * The checks of {@link #check(FlowMessage)} on the message's fields, for a reader that has them
   * without a message (`cheetah analyze`'s nfcapd reader): null when they are a plausible flow,
   * else "reason: detail". One rule for both: the message form calls this.
   *
   * @param srcLen bytes of the source address (4 or 16; anything else is refused)
   * @param dstLen bytes of the destination address
   */
  public static String check(
      long start,
      long end,
      long received,
      int etype,
      int srcLen,
      int dstLen,
      int proto,
      int srcPort,
      int dstPort,
      long packets,
      long bytes,
      long samplingRate) {
    if (start == 0 || end == 0) {
      return "missing_times: flow start " + start + " ns, end " + end + " ns (0 = absent)";
    }
    if (end < start) {
      return "inverted_times: flow ends (" + end + " ns) before it starts (" + start + " ns)";
    }
    if ((end - start) / 1_000_000 > MAX_DURATION_MS) {
      return "implausible_duration: flow lasts "
          + (end - start) / 1_000_000_000
          + " s, more than 7 days";
    }
    if (received > 0 && start / 1_000_000 > received / 1_000_000 + MAX_FUTURE_MS) {
      return "future_times: flow starts "
          + (start - received) / 1_000_000_000
          + " s after it was received";
    }
    if (etype == ETYPE_IPV4
        ? srcLen != 4 && srcLen != 16
        : etype == ETYPE_IPV6 ? srcLen != 16 : true) {
      return "unknown_etype: etype 0x"
          + Integer.toHexString(etype)
          + " with "
          + srcLen
          + "-byte addresses (only IPv4/IPv6 flows are analysed)";
    }
    if (dstLen != srcLen) {
      return "bad_address: source has " + srcLen + " bytes but destination " + dstLen;
    }
    if (proto > 255) {
      return "unknown_protocol: IP protocol " + proto + " is not in 0..255";
    }
    if (srcPort > 65535 || dstPort > 65535) {
      return "bad_port: ports " + srcPort + " -> " + dstPort + " exceed 65535";
    }
    if (packets == 0 || bytes == 0) {
      return "impossible_counts: " + bytes + " bytes in " + packets + " packets (a flow has both)";
    }
    long minPacket = etype == ETYPE_IPV6 ? MIN_V6_PACKET : MIN_V4_PACKET;
    if (bytes < packets * minPacket || bytes / packets > MAX_PACKET) {
      return "impossible_counts: "
          + bytes
          + " bytes in "
          + packets
          + " packets is "
          + bytes / packets
          + " bytes per packet (possible: "
          + minPacket
          + ".."
          + MAX_PACKET
          + ")";
    }
    long rate = Math.max(1, samplingRate);
    if (Math.multiplyHigh(bytes, rate) != 0 || bytes * rate < 0) {
      return "counter_overflow: "
          + bytes
          + " bytes scaled by sampling rate "
          + rate
          + " overflows 64 bits";
    }
    return null;
  }

  private RejectedRecord.Builder reject(String reason, String detail, Origin origin) {
    return RejectedRecord.newBuilder()
        .setStage(stage)
        .setReason(reason)
        .setDetail(detail)
        .setSourceTopic(origin.topic())
        .setSourcePartition(origin.partition())
        .setSourceOffset(origin.offset());
  }

  private static FlowSource source(FlowMessage.FlowType t) {
    return switch (t) {
      case NETFLOW_V5 -> FlowSource.FLOW_SOURCE_NETFLOW_V5;
      case NETFLOW_V9 -> FlowSource.FLOW_SOURCE_NETFLOW_V9;
      case IPFIX -> FlowSource.FLOW_SOURCE_IPFIX;
      case SFLOW_5 -> FlowSource.FLOW_SOURCE_SFLOW;
      default -> FlowSource.FLOW_SOURCE_UNSPECIFIED;
    };
  }

  /** 4-byte IPv4 becomes IPv4-mapped IPv6; 16 bytes stay; anything else is left empty. */
  static ByteString addr16(ByteString a) {
    if (a.size() == 16) {
      return a;
    }
    if (a.size() == 4) {
      byte[] b = new byte[16];
      b[10] = (byte) 0xFF;
      b[11] = (byte) 0xFF;
      a.copyTo(b, 12);
      return ByteString.copyFrom(b);
    }
    return ByteString.EMPTY;
  }
}
