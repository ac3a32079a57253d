package net.cheetah.jobs.normalize;

import com.google.protobuf.ByteString;
import com.google.protobuf.CodedInputStream;
import com.google.protobuf.InvalidProtocolBufferException;
import java.io.IOException;
import java.util.Arrays;
import java.util.function.Consumer;
import net.cheetah.core.flow.Address;
import net.cheetah.core.flow.FlowKey;
import net.cheetah.jobs.codec.Codec;
import net.cheetah.jobs.codec.Wire;
import net.cheetah.schemas.goflow2.FlowMessage;
import net.cheetah.schemas.v1.FlowRecord;
import net.cheetah.schemas.v1.FlowSource;
import net.cheetah.schemas.v1.RejectedRecord;

/**
 * goflow2 FlowMessage → canonical flows.v1 record (docs/ARCHITECTURE.md, "Data flow"): counts
 * scaled by the sampling rate (the rate kept), times in epoch ms, exporter identity as a 16-byte
 * address. Anything that cannot be a real flow is refused with a stable reason code and kept as a
 * RejectedRecord. One instance per thread: {@link #normalizeEncoded} writes into a buffer of its
 * own.
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

  /** Receives an accepted record as the normalize job writes it to flows.v1. */
  @FunctionalInterface
  public interface Encoded {
    /**
     * @param tupleHash the 5-tuple's hash ({@link FlowKey#tupleHash()}), the record's Kafka key
     * @param flowRecord the encoded {@code FlowRecord}
     */
    void accept(long tupleHash, byte[] flowRecord);
  }

  private final Wire wire = new Wire();
  private final byte[] out = new byte[256];
  private int at;

  /**
   * As {@link #normalize(byte[], Origin, Consumer, Consumer)}, with each accepted record encoded. A
   * value of one regular message that is a plausible flow is read and written by hand, without
   * protobuf-java's messages and builders (most of the normalize job's CPU, docs/BENCHMARKS.md,
   * section 2); any other value goes the message way, so a rejection is always that way's own.
   * NormalizerTest holds both ways to the same bytes.
   */
  public void normalizeEncoded(
      byte[] value, Origin origin, Encoded accepted, Consumer<RejectedRecord> rejected) {
    if (!fast(value, accepted)) {
      normalize(
          value,
          origin,
          (FlowRecord f) -> accepted.accept(Codec.flow(f).key().tupleHash(), f.toByteArray()),
          rejected);
    }
  }

  /** Whether the value was one regular message of a plausible flow, and written. */
  boolean fast(byte[] value, Encoded accepted) {
    Wire in = wire.reset(value, 0, value.length);
    int len = in.length();
    if (in.bad || len == 0 || in.position() + len != value.length) {
      return false; // not exactly one message (or none)
    }
    in.reset(value, in.position(), len);
    int type = 0, srcOff = 0, srcLen = 0, dstOff = 0, dstLen = 0, samplerOff = 0, samplerLen = 0;
    int srcAs = 0, dstAs = 0, inIf = 0, outIf = 0, proto = 0, srcPort = 0, dstPort = 0;
    int ipTos = 0, tcpFlags = 0, etype = 0, domain = 0;
    long samplingRate = 0, bytes = 0, packets = 0, received = 0, start = 0, end = 0;
    long v9StartS = 0, v9EndS = 0, v9StartMs = 0, v9EndMs = 0;
    while (!in.atEnd()) {
      int tag = in.tag();
      int field = tag >>> 3;
      int w = tag & 7;
      if (w == Wire.VARINT) {
        long x = in.varint();
        switch (field) {
          case 1 -> type = (int) x;
          case 3 -> samplingRate = x;
          case 9 -> bytes = x;
          case 10 -> packets = x;
          case 14 -> srcAs = (int) x;
          case 15 -> dstAs = (int) x;
          case 18 -> inIf = (int) x;
          case 19 -> outIf = (int) x;
          case 20 -> proto = (int) x;
          case 21 -> srcPort = (int) x;
          case 22 -> dstPort = (int) x;
          case 23 -> ipTos = (int) x;
          case 26 -> tcpFlags = (int) x;
          case 30 -> etype = (int) x;
          case 70 -> domain = (int) x;
          case 110 -> received = x;
          case 111 -> start = x;
          case 112 -> end = x;
          case 1150 -> v9StartS = x;
          case 1151 -> v9EndS = x;
          case 1152 -> v9StartMs = x;
          case 1153 -> v9EndMs = x;
          default -> {} // sequence_num, or a field this message does not have
        }
      } else if (w == Wire.LENGTH_DELIMITED && (field == 6 || field == 7 || field == 11)) {
        int n = in.bytes();
        if (field == 6) {
          srcOff = in.start();
          srcLen = n;
        } else if (field == 7) {
          dstOff = in.start();
          dstLen = n;
        } else {
          samplerOff = in.start();
          samplerLen = n;
        }
      } else {
        // Unknown, or a known field in another wire type: protobuf-java's generated parser
        // matches on the whole tag and keeps such a field as an unknown one, unread.
        in.skip(w);
      }
      if (in.bad) {
        return false;
      }
    }
    if (type == FlowMessage.FlowType.NETFLOW_V9_VALUE) { // as withV9Times
      long s = v9Ms(v9StartMs, v9StartS);
      long e = v9Ms(v9EndMs, v9EndS);
      if (s != 0 || e != 0) {
        start = s * 1_000_000;
        end = e * 1_000_000;
      }
    }
    if ((samplerLen != 4 && samplerLen != 16)
        || check(
                start,
                end,
                received,
                etype,
                srcLen,
                dstLen,
                proto,
                srcPort,
                dstPort,
                packets,
                bytes,
                samplingRate)
            != null) {
      return false; // refused (or an exporter without an address): the message way says how
    }
    long rate = Math.max(1, samplingRate);
    FlowMessage.FlowType t = FlowMessage.FlowType.forNumber(type);
    int sourceNumber = source(t == null ? FlowMessage.FlowType.UNRECOGNIZED : t).getNumber();
    // FlowRecord's fields in number order, zeros left out: protobuf-java's own encoding.
    at = 0;
    addr16(1, value, samplerOff, samplerLen);
    uint32(2, domain);
    uint32(3, sourceNumber);
    uint64(4, received / 1_000_000);
    uint64(5, start / 1_000_000);
    uint64(6, end / 1_000_000);
    addr16(7, value, srcOff, srcLen);
    addr16(8, value, dstOff, dstLen);
    uint32(9, srcPort);
    uint32(10, dstPort);
    uint32(11, proto);
    uint64(12, bytes * rate);
    uint64(13, packets * rate);
    uint64(14, rate);
    uint32(15, srcAs);
    uint32(16, dstAs);
    uint32(17, inIf);
    uint32(18, outIf);
    uint32(19, tcpFlags);
    uint32(20, ipTos);
    uint32(21, etype);
    long hash =
        FlowKey.tupleHash(
            Address.fromBytes(value, srcOff, srcLen),
            Address.fromBytes(value, dstOff, dstLen),
            srcPort,
            dstPort,
            proto);
    accepted.accept(hash, Arrays.copyOf(out, at));
    return true;
  }

  private void varint(long v) {
    while ((v & ~0x7FL) != 0) {
      out[at++] = (byte) ((v & 0x7F) | 0x80);
      v >>>= 7;
    }
    out[at++] = (byte) v;
  }

  private void uint64(int field, long v) {
    if (v != 0) {
      varint(field << 3);
      varint(v);
    }
  }

  private void uint32(int field, int v) {
    uint64(field, v & 0xFFFF_FFFFL);
  }

  /** An address field as {@link #addr16(ByteString)} writes it: 16 bytes, IPv4 mapped. */
  private void addr16(int field, byte[] b, int off, int len) {
    varint(field << 3 | Wire.LENGTH_DELIMITED);
    varint(16);
    if (len == 4) {
      Arrays.fill(out, at, at + 10, (byte) 0);
      out[at + 10] = (byte) 0xFF;
      out[at + 11] = (byte) 0xFF;
      System.arraycopy(b, off, out, at + 12, 4);
    } else {
      System.arraycopy(b, off, out, at, 16);
    }
    at += 16;
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
    long start = v9Ms(m.getV9FlowStartMilliseconds(), m.getV9FlowStartSeconds());
    long end = v9Ms(m.getV9FlowEndMilliseconds(), m.getV9FlowEndSeconds());
    if (start == 0 && end == 0) {
      return m;
    }
    return m.toBuilder()
        .setTimeFlowStartNs(start * 1_000_000)
        .setTimeFlowEndNs(end * 1_000_000)
        .build();
  }

  /** A v9 time from its milliseconds field, or else its seconds field. */
  private static long v9Ms(long ms, long s) {
    return ms > 0 ? ms : s * 1000;
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
