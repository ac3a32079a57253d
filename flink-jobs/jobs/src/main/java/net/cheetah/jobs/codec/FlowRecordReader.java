package net.cheetah.jobs.codec;

import com.google.protobuf.InvalidProtocolBufferException;
import net.cheetah.core.flow.Address;
import net.cheetah.core.flow.Flow;
import net.cheetah.core.flow.FlowKey;
import net.cheetah.jobs.codec.Decoders.Refused;
import net.cheetah.schemas.v1.FlowRecord;

/**
 * A flows.v1 value straight to a {@link Flow}, without protobuf-java's message and builder: the
 * cheetah and throughput jobs read every record of the topic, and the generated parser (a builder,
 * a message, three byte strings and their copies per record) was most of their sources' CPU
 * (docs/BENCHMARKS.md, section 2).
 *
 * <p>It reads the wire format of {@code FlowRecord} (schemas/cheetah/v1/flows.proto) for the fields
 * a {@link Flow} has and the checks need, skips the others and unknown fields, and keeps the last
 * value of a repeated field and skips a known field in another wire type, as protobuf does. The
 * checks are {@link RecordChecks}'s own. Anything else, a value protobuf would refuse or that this
 * reader does not read (a group, a truncated or over-long field), goes to protobuf-java and {@link
 * RecordChecks#flow(FlowRecord, long)}, so it has exactly their outcome and error text.
 * FlowRecordReaderTest holds the two to the same result on valid, mutated and random bytes.
 */
public final class FlowRecordReader {
  private FlowRecordReader() {}

  /**
   * The record in {@code v}, checked as {@link RecordChecks#flow(FlowRecord, long)} checks it.
   *
   * @param recordMs the Kafka record's timestamp (0 or less when it has none)
   */
  public static Flow read(byte[] v, long recordMs) throws InvalidProtocolBufferException, Refused {
    Flow f = fast(v, recordMs);
    return f != null ? f : RecordChecks.flow(FlowRecord.parseFrom(v), recordMs);
  }

  /** The record, or null when protobuf-java must decide. */
  static Flow fast(byte[] v, long recordMs) throws Refused {
    int exporterOff = 0, exporterLen = 0, srcOff = 0, srcLen = 0, dstOff = 0, dstLen = 0;
    long receivedMs = 0, startMs = 0, endMs = 0, bytes = 0, packets = 0;
    int srcPort = 0, dstPort = 0, proto = 0, srcAs = 0, dstAs = 0;
    Wire in = new Wire().reset(v, 0, v.length);
    while (!in.atEnd()) {
      int tag = in.tag();
      int field = tag >>> 3;
      int wire = tag & 7;
      if (wire == Wire.VARINT) {
        long x = in.varint();
        switch (field) {
          case 4 -> receivedMs = x;
          case 5 -> startMs = x;
          case 6 -> endMs = x;
          case 9 -> srcPort = (int) x;
          case 10 -> dstPort = (int) x;
          case 11 -> proto = (int) x;
          case 12 -> bytes = x;
          case 13 -> packets = x;
          case 15 -> srcAs = (int) x;
          case 16 -> dstAs = (int) x;
          default -> {} // observation_domain, source, sampling_rate, ..., or unknown
        }
      } else if (wire == Wire.LENGTH_DELIMITED && (field == 1 || field == 7 || field == 8)) {
        int len = in.bytes();
        if (field == 1) {
          exporterOff = in.start();
          exporterLen = len;
        } else if (field == 7) {
          srcOff = in.start();
          srcLen = len;
        } else {
          dstOff = in.start();
          dstLen = len;
        }
      } else {
        // Unknown, or a known field in another wire type: protobuf-java's generated parser
        // matches on the whole tag and keeps such a field as an unknown one, unread.
        in.skip(wire);
      }
      if (in.bad) {
        return null;
      }
    }
    RecordChecks.flow(
        exporterLen,
        srcLen,
        dstLen,
        startMs,
        endMs,
        Math.max(recordMs, receivedMs),
        srcPort,
        dstPort,
        proto,
        bytes,
        packets);
    FlowKey k =
        new FlowKey(
            Address.fromBytes(v, exporterOff, exporterLen),
            Address.fromBytes(v, srcOff, srcLen),
            Address.fromBytes(v, dstOff, dstLen),
            srcPort,
            dstPort,
            proto);
    return new Flow(k, startMs, endMs, bytes, packets, srcAs, dstAs);
  }
}
