package net.cheetah.jobs.codec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
import com.google.protobuf.CodedOutputStream;
import com.google.protobuf.InvalidProtocolBufferException;
import java.io.ByteArrayOutputStream;
import java.util.Arrays;
import java.util.SplittableRandom;
import net.cheetah.core.flow.Address;
import net.cheetah.core.flow.Flow;
import net.cheetah.core.flow.FlowKey;
import net.cheetah.jobs.codec.Decoders.Refused;
import net.cheetah.schemas.v1.FlowRecord;
import net.cheetah.schemas.v1.FlowSource;
import org.junit.jupiter.api.Test;

/**
 * The hand-written flows.v1 reader against protobuf-java's parser and the same checks: the same
 * flow, the same refusal (reason and text) or the same undecodable error, for valid records,
 * records with unknown and repeated fields, mutated records and random bytes.
 */
class FlowRecordReaderTest {
  private static final long T0 = 1_790_000_000_000L;

  @Test
  void readsAHandEncodedRecord() throws Exception {
    // FlowRecord{exporter=10.0.0.1, start=1000, end=3000, src=192.0.2.1, dst=198.51.100.7,
    // sport=443, dport=50000, proto=6, bytes=1500, packets=1, src_as=64500}, written byte by byte.
    byte[] v = {
      0x0A,
      4,
      10,
      0,
      0,
      1, // 1: exporter
      0x28,
      (byte) 0xE8,
      0x07, // 5: start_ms 1000
      0x30,
      (byte) 0xB8,
      0x17, // 6: end_ms 3000
      0x3A,
      4,
      (byte) 192,
      0,
      2,
      1, // 7: src_addr
      0x42,
      4,
      (byte) 198,
      51,
      100,
      7, // 8: dst_addr
      0x48,
      (byte) 0xBB,
      0x03, // 9: src_port 443
      0x50,
      (byte) 0xD0,
      (byte) 0x86,
      0x03, // 10: dst_port 50000
      0x58,
      6, // 11: proto
      0x60,
      (byte) 0xDC,
      0x0B, // 12: bytes 1500
      0x68,
      1, // 13: packets
      0x78,
      (byte) 0xF4,
      (byte) 0xF7,
      0x03, // 15: src_as 64500
    };
    Flow f = FlowRecordReader.read(v, 0);
    assertThat(f)
        .isEqualTo(
            new Flow(
                new FlowKey(
                    Address.parse("10.0.0.1"),
                    Address.parse("192.0.2.1"),
                    Address.parse("198.51.100.7"),
                    443,
                    50000,
                    6),
                1000,
                3000,
                1500,
                1,
                64500,
                0));
  }

  @Test
  void aLaterValueOfAFieldWinsAndUnknownFieldsAreSkipped() throws Exception {
    FlowRecord a = valid(new SplittableRandom(1)).build();
    FlowRecord b = FlowRecord.newBuilder().setBytes(a.getBytes() + 7).setDstPort(9).build();
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    a.writeTo(out);
    CodedOutputStream c = CodedOutputStream.newInstance(out);
    c.writeUInt64(999, 12345); // unknown varint
    c.writeBytes(1000, ByteString.copyFromUtf8("unknown")); // unknown bytes
    c.writeFixed32(1001, 7);
    c.writeFixed64(1002, 8);
    c.flush();
    b.writeTo(out);
    Flow f = FlowRecordReader.read(out.toByteArray(), 0);
    assertThat(f.bytes()).isEqualTo(a.getBytes() + 7);
    assertThat(f.key().dstPort()).isEqualTo(9);
    assertThat(f.key().srcPort()).isEqualTo(a.getSrcPort());
  }

  @Test
  void refusalsAndBrokenBytesAreProtobufsAndTheChecksOwn() {
    assertThatThrownBy(() -> FlowRecordReader.read(new byte[] {0x0A, 5, 1}, 0))
        .isInstanceOf(InvalidProtocolBufferException.class);
    byte[] noTimes = valid(new SplittableRandom(2)).clearStartMs().build().toByteArray();
    assertThatThrownBy(() -> FlowRecordReader.read(noTimes, 0))
        .isInstanceOf(Refused.class)
        .extracting(e -> ((Refused) e).reason())
        .isEqualTo("missing_times");
  }

  /** 300,000 cases: valid and nearly valid records, then mutated, then random bytes. */
  @Test
  void agreesWithProtobufJavaOnEveryInput() throws Exception {
    SplittableRandom rnd = new SplittableRandom(20261127);
    int flows = 0, refused = 0, undecodable = 0, fast = 0;
    for (int i = 0; i < 300_000; i++) {
      byte[] v;
      int kind = i % 3;
      if (kind == 0) {
        v = encoded(rnd);
      } else if (kind == 1) {
        v = Fuzz.mutate(encoded(rnd), rnd);
      } else {
        v = Fuzz.bytes(rnd, rnd.nextInt(0, 80));
      }
      long recordMs = rnd.nextInt(4) == 0 ? 0 : T0 + rnd.nextLong(-7_200_000, 7_200_000);
      String want = outcome(v, recordMs, true);
      String got = outcome(v, recordMs, false);
      assertThat(got).as("case %d, bytes %s", i, Arrays.toString(v)).isEqualTo(want);
      if (fastDecides(v, recordMs)) {
        fast++;
      }
      if (want.startsWith("flow")) {
        flows++;
      } else if (want.startsWith("refused")) {
        refused++;
      } else {
        undecodable++;
      }
    }
    // Each outcome is exercised, not just one.
    assertThat(flows).isGreaterThan(40_000);
    // ... and the reader decides them itself: every flow and refusal of a record without extras.
    assertThat(fast).isGreaterThan(flows + refused / 2);
    assertThat(refused).isGreaterThan(20_000);
    assertThat(undecodable).isGreaterThan(20_000);
  }

  /** Whether the reader's own decoding decided (a flow or a refusal), not protobuf-java's. */
  private static boolean fastDecides(byte[] v, long recordMs) {
    try {
      return FlowRecordReader.fast(v, recordMs) != null;
    } catch (Refused e) {
      return true;
    }
  }

  private static String outcome(byte[] v, long recordMs, boolean reference) {
    try {
      Flow f =
          reference
              ? RecordChecks.flow(FlowRecord.parseFrom(v), recordMs)
              : FlowRecordReader.read(v, recordMs);
      return "flow " + f;
    } catch (Refused e) {
      return "refused " + e.reason() + ": " + e.getMessage();
    } catch (InvalidProtocolBufferException e) {
      return "undecodable: " + e.getMessage();
    } catch (RuntimeException e) {
      return "runtime " + e;
    }
  }

  private static FlowRecord.Builder valid(SplittableRandom r) {
    long start = T0 + r.nextLong(-3_600_000, 60_000);
    return FlowRecord.newBuilder()
        .setExporter(addr(r, r.nextBoolean() ? 4 : 16))
        .setObservationDomain(r.nextInt(1000))
        .setSource(FlowSource.forNumber(r.nextInt(1, 4)))
        .setReceivedMs(start + 120_000)
        .setStartMs(start)
        .setEndMs(start + r.nextLong(0, 300_000))
        .setSrcAddr(addr(r, r.nextBoolean() ? 4 : 16))
        .setDstAddr(addr(r, r.nextBoolean() ? 4 : 16))
        .setSrcPort(r.nextInt(65536))
        .setDstPort(r.nextInt(65536))
        .setProto(r.nextInt(256))
        .setPackets(1 + r.nextInt(1000))
        .setBytes(40_000 + r.nextLong(1L << 40))
        .setSamplingRate(1 + r.nextInt(100))
        .setSrcAs(r.nextInt())
        .setDstAs(r.nextInt())
        .setInIf(r.nextInt())
        .setTcpFlags(r.nextInt(256));
  }

  /** A valid record, or one with a field at an edge or beyond it, and sometimes extras. */
  private static byte[] encoded(SplittableRandom r) {
    FlowRecord.Builder b = valid(r);
    switch (r.nextInt(12)) {
      case 0 -> b.setSrcAddr(addr(r, r.nextInt(20)));
      case 1 -> b.setEndMs(b.getStartMs() - 1 - r.nextInt(1000));
      case 2 -> b.setSrcPort(r.nextBoolean() ? 65536 + r.nextInt(1000) : -1 - r.nextInt(1000));
      case 3 -> b.setProto(256 + r.nextInt(10));
      case 4 -> b.setBytes(r.nextBoolean() ? 0 : -r.nextLong(1, Long.MAX_VALUE));
      case 5 -> b.setPackets(b.getBytes() + 1);
      case 6 -> b.setEndMs(b.getStartMs() + 8L * 24 * 3600 * 1000);
      case 7 -> b.setStartMs(0);
      case 8 -> b.setReceivedMs(T0 - 86_400_000L).setEndMs(T0 + 7_300_000);
      default -> {}
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try {
      b.build().writeTo(out);
      CodedOutputStream c = CodedOutputStream.newInstance(out);
      int extras = r.nextInt(4) == 0 ? r.nextInt(1, 4) : 0;
      for (int i = 0; i < extras; i++) {
        int field = r.nextInt(3) == 0 ? r.nextInt(1, 22) : r.nextInt(22, 5000);
        switch (r.nextInt(5)) {
          case 0 -> c.writeUInt64(field, r.nextLong());
          case 1 -> c.writeFixed64(field, r.nextLong());
          case 2 -> c.writeFixed32(field, r.nextInt());
          case 3 -> c.writeBytes(field, addr(r, r.nextInt(20)));
          default -> {
            c.writeTag(field, 3); // a group, empty
            c.writeTag(field, 4);
          }
        }
      }
      c.flush();
      if (r.nextInt(8) == 0) {
        valid(r).build().writeTo(out); // a second record merged into the first
      }
    } catch (java.io.IOException e) {
      throw new IllegalStateException(e);
    }
    return out.toByteArray();
  }

  private static ByteString addr(SplittableRandom r, int len) {
    return ByteString.copyFrom(Fuzz.bytes(r, len));
  }
}
