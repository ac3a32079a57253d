package net.cheetah.jobs.normalize;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import com.google.protobuf.CodedOutputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.SplittableRandom;
import net.cheetah.jobs.codec.Codec;
import net.cheetah.jobs.codec.Fuzz;
import net.cheetah.schemas.goflow2.FlowMessage;
import net.cheetah.schemas.v1.FlowRecord;
import org.junit.jupiter.api.Test;

/**
 * The normalize job's hand-written way ({@link Normalizer#normalizeEncoded}) against the message
 * way it replaced (protobuf-java's parser and builder, the key from {@code Codec.flow}): the same
 * flows.v1 keys and bytes and the same rejections, on valid, edge, mutated and random values.
 */
class NormalizerEncodedTest {
  private static final long T0 = 1_790_000_000_000L; // ms
  private static final HexFormat HEX = HexFormat.of();
  private final Normalizer.Origin origin = new Normalizer.Origin("flows.goflow2.v1", 0, 7);

  @Test
  void aGoflow2RecordIsWrittenAsProtobufWritesIt() throws Exception {
    FlowMessage m = valid(new SplittableRandom(3)).build();
    byte[] value = delimited(m);
    assertThat(new Normalizer("normalize").fast(value, (h, f) -> {})).isTrue();
    assertThat(encoded(value)).isEqualTo(reference(value)).hasSize(1);
  }

  /** 200,000 values: valid and edge records, several per value, mutated, random bytes. */
  @Test
  void agreesWithTheMessageWayOnEveryInput() throws Exception {
    SplittableRandom rnd = new SplittableRandom(112026);
    Normalizer n = new Normalizer("normalize");
    int accepted = 0, fast = 0, rejected = 0;
    for (int i = 0; i < 200_000; i++) {
      byte[] v;
      switch (i % 4) {
        case 0, 1 -> v = delimited(record(rnd));
        case 2 -> v = Fuzz.mutate(delimited(record(rnd)), rnd);
        default -> {
          if (rnd.nextInt(4) == 0) {
            v = delimited(record(rnd), record(rnd));
          } else {
            v = Fuzz.bytes(rnd, rnd.nextInt(0, 90));
          }
        }
      }
      List<String> want = reference(v);
      assertThat(encoded(v)).as("case %d, value %s", i, HEX.formatHex(v)).isEqualTo(want);
      if (n.fast(v, (h, f) -> {})) {
        fast++;
      }
      for (String s : want) {
        if (s.startsWith("flow")) {
          accepted++;
        } else {
          rejected++;
        }
      }
    }
    assertThat(accepted).isGreaterThan(60_000);
    assertThat(rejected).isGreaterThan(60_000);
    // The hand-written way decides the plain records itself (values of several messages, and
    // known fields in another wire type, go the message way).
    assertThat(fast).isGreaterThan(accepted * 2 / 3);
  }

  private List<String> encoded(byte[] value) {
    List<String> out = new ArrayList<>();
    new Normalizer("normalize")
        .normalizeEncoded(
            value,
            origin,
            (hash, f) -> out.add("flow " + HEX.formatHex(Codec.key(hash)) + " " + HEX.formatHex(f)),
            bad -> out.add("rejected " + HEX.formatHex(bad.toByteArray())));
    return out;
  }

  /** What the normalize job wrote before the hand-written way. */
  private List<String> reference(byte[] value) {
    List<String> out = new ArrayList<>();
    new Normalizer("normalize")
        .normalize(
            value,
            origin,
            (FlowRecord f) ->
                out.add(
                    "flow "
                        + HEX.formatHex(Codec.key(Codec.flow(f).key().tupleHash()))
                        + " "
                        + HEX.formatHex(f.toByteArray())),
            bad -> out.add("rejected " + HEX.formatHex(bad.toByteArray())));
    return out;
  }

  private static FlowMessage.Builder valid(SplittableRandom r) {
    boolean v6 = r.nextInt(4) == 0;
    long start = T0 * 1_000_000 + r.nextLong(0, 3_600_000_000_000L);
    long packets = 1 + r.nextInt(2000);
    FlowMessage.Builder b =
        FlowMessage.newBuilder()
            .setType(FlowMessage.FlowType.forNumber(r.nextInt(1, 5)))
            .setSamplerAddress(bytes(r, r.nextBoolean() ? 4 : 16))
            .setTimeReceivedNs(start + 90_000_000_000L)
            .setTimeFlowStartNs(start)
            .setTimeFlowEndNs(start + r.nextLong(0, 60_000_000_000L))
            .setSrcAddr(bytes(r, v6 ? 16 : 4))
            .setDstAddr(bytes(r, v6 ? 16 : 4))
            .setEtype(v6 ? Normalizer.ETYPE_IPV6 : Normalizer.ETYPE_IPV4)
            .setProto(r.nextInt(256))
            .setSrcPort(r.nextInt(65536))
            .setDstPort(r.nextInt(65536))
            .setPackets(packets)
            .setBytes(packets * (40 + r.nextInt(1460)))
            .setSequenceNum(r.nextInt());
    if (r.nextBoolean()) {
      b.setSamplingRate(r.nextInt(3) == 0 ? 0 : 1 + r.nextInt(4096));
    }
    if (r.nextBoolean()) {
      b.setSrcAs(r.nextInt()).setDstAs(r.nextInt()).setInIf(r.nextInt()).setOutIf(r.nextInt());
      b.setTcpFlags(r.nextInt(256)).setIpTos(r.nextInt(256)).setObservationDomainId(r.nextInt());
    }
    return b;
  }

  /** A valid record, or one with a field at an edge or beyond it, and sometimes extras. */
  private static byte[] record(SplittableRandom r) throws IOException {
    FlowMessage.Builder b = valid(r);
    long ms = b.getTimeFlowStartNs() / 1_000_000;
    switch (r.nextInt(16)) {
      case 0 -> b.setType(FlowMessage.FlowType.NETFLOW_V9).setV9FlowStartSeconds(ms / 1000);
      case 1 ->
          b.setType(FlowMessage.FlowType.NETFLOW_V9)
              .setV9FlowStartMilliseconds(ms)
              .setV9FlowEndMilliseconds(ms + r.nextInt(-1000, 60_000));
      case 2 -> b.setSamplerAddress(bytes(r, r.nextInt(20)));
      case 3 -> b.setDstAddr(bytes(r, r.nextInt(20)));
      case 4 -> b.setTimeFlowEndNs(b.getTimeFlowStartNs() - 1);
      case 5 -> b.setSrcPort(r.nextBoolean() ? 65536 : -1 - r.nextInt(100));
      case 6 -> b.setProto(r.nextBoolean() ? 256 : -7);
      case 7 -> b.setBytes(r.nextLong()).setPackets(r.nextLong());
      case 8 -> b.setSamplingRate(-1 - r.nextLong(Long.MAX_VALUE));
      case 9 -> b.setEtype(r.nextInt(0x10000));
      case 10 -> b.setTimeReceivedNs(r.nextLong()).setTimeFlowStartNs(r.nextLong());
      case 11 -> b.setTypeValue(r.nextInt(-3, 9));
      default -> {}
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    b.build().writeTo(out);
    CodedOutputStream c = CodedOutputStream.newInstance(out);
    for (int k = r.nextInt(4) == 0 ? r.nextInt(1, 4) : 0; k > 0; k--) {
      int field = r.nextInt(3) == 0 ? r.nextInt(1, 32) : r.nextInt(1, 1200);
      switch (r.nextInt(5)) {
        case 0 -> c.writeUInt64(field, r.nextLong());
        case 1 -> c.writeFixed64(field, r.nextLong());
        case 2 -> c.writeFixed32(field, r.nextInt());
        case 3 -> c.writeBytes(field, bytes(r, r.nextInt(20)));
        default -> {
          c.writeTag(field, 3);
          c.writeTag(field, 4);
        }
      }
    }
    c.flush();
    return out.toByteArray();
  }

  private static byte[] delimited(byte[]... messages) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    CodedOutputStream c = CodedOutputStream.newInstance(out);
    for (byte[] m : messages) {
      c.writeUInt32NoTag(m.length);
      c.writeRawBytes(m);
    }
    c.flush();
    return out.toByteArray();
  }

  private static byte[] delimited(FlowMessage m) throws IOException {
    return delimited(m.toByteArray());
  }

  private static ByteString bytes(SplittableRandom r, int len) {
    return ByteString.copyFrom(Fuzz.bytes(r, len));
  }
}
