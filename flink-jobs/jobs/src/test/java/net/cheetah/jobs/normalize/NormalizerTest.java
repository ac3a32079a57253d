package net.cheetah.jobs.normalize;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;
import net.cheetah.core.flow.Address;
import net.cheetah.schemas.goflow2.FlowMessage;
import net.cheetah.schemas.v1.FlowRecord;
import net.cheetah.schemas.v1.FlowSource;
import net.cheetah.schemas.v1.RejectedRecord;
import org.junit.jupiter.api.Test;

class NormalizerTest {
  private static final long T0 = 1_763_000_000_000L; // ms
  private final Normalizer n = new Normalizer("normalize");
  private final List<FlowRecord> ok = new ArrayList<>();
  private final List<RejectedRecord> bad = new ArrayList<>();
  private final Normalizer.Origin origin = new Normalizer.Origin("flows.goflow2.v1", 1, 42);

  private static FlowMessage.Builder valid() {
    return FlowMessage.newBuilder()
        .setType(FlowMessage.FlowType.NETFLOW_V9)
        .setSamplerAddress(ByteString.copyFrom(new byte[] {127, 0, 0, 1}))
        .setTimeReceivedNs((T0 + 70_000) * 1_000_000)
        .setTimeFlowStartNs(T0 * 1_000_000 + 123_456)
        .setTimeFlowEndNs((T0 + 60_000) * 1_000_000)
        .setSrcAddr(ByteString.copyFrom(new byte[] {(byte) 198, 18, 1, 10}))
        .setDstAddr(ByteString.copyFrom(new byte[] {(byte) 198, 18, 2, 20}))
        .setEtype(0x0800)
        .setProto(6)
        .setSrcPort(50000)
        .setDstPort(2811)
        .setBytes(15_000)
        .setPackets(10);
  }

  private static byte[] delimited(FlowMessage... ms) throws Exception {
    ByteArrayOutputStream o = new ByteArrayOutputStream();
    for (FlowMessage m : ms) {
      m.writeDelimitedTo(o);
    }
    return o.toByteArray();
  }

  private void run(FlowMessage m) {
    n.normalize(m, origin, ok::add, bad::add);
  }

  private String rejectReason(UnaryOperator<FlowMessage.Builder> edit) {
    run(edit.apply(valid()).build());
    assertThat(ok).isEmpty();
    assertThat(bad).hasSize(1);
    return bad.get(0).getReason();
  }

  @Test
  void scalesCountsBySamplingRateAndKeepsTheRate() {
    run(valid().setSamplingRate(100).build());
    FlowRecord r = ok.get(0);
    assertThat(r.getBytes()).isEqualTo(1_500_000);
    assertThat(r.getPackets()).isEqualTo(1_000);
    assertThat(r.getSamplingRate()).isEqualTo(100);
  }

  @Test
  void unsampledRecordsKeepTheirCountsWithRateOne() {
    run(valid().build());
    FlowRecord r = ok.get(0);
    assertThat(r.getBytes()).isEqualTo(15_000);
    assertThat(r.getSamplingRate()).isEqualTo(1);
    assertThat(r.getStartMs()).isEqualTo(T0); // ns truncated to ms
    assertThat(r.getEndMs()).isEqualTo(T0 + 60_000);
    assertThat(r.getSource()).isEqualTo(FlowSource.FLOW_SOURCE_NETFLOW_V9);
    assertThat(Address.fromBytes(r.getSrcAddr().toByteArray()).toString()).isEqualTo("198.18.1.10");
    assertThat(Address.fromBytes(r.getExporter().toByteArray()).toString()).isEqualTo("127.0.0.1");
  }

  @Test
  void decodesSeveralDelimitedMessagesInOneKafkaValue() throws Exception {
    n.normalize(
        delimited(valid().build(), valid().setSrcPort(1).build()), origin, ok::add, bad::add);
    assertThat(ok).hasSize(2);
    assertThat(bad).isEmpty();
  }

  @Test
  void garbageIsRejectedWithThePayloadKept() {
    byte[] junk = {(byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0x0F, 1, 2};
    n.normalize(junk, origin, ok::add, bad::add);
    assertThat(bad)
        .singleElement()
        .satisfies(
            r -> {
              assertThat(r.getReason()).isEqualTo("malformed_message");
              assertThat(r.getPayload().toByteArray()).isEqualTo(junk);
              assertThat(r.getSourceOffset()).isEqualTo(42);
              assertThat(r.getStage()).isEqualTo("normalize");
            });
  }

  @Test
  void anEmptyValueIsRejectedNotSkipped() {
    n.normalize(new byte[0], origin, ok::add, bad::add);
    assertThat(ok).isEmpty();
    assertThat(bad)
        .singleElement()
        .satisfies(
            r -> {
              assertThat(r.getReason()).isEqualTo("empty_value");
              assertThat(r.getPayload().isEmpty()).isTrue();
              assertThat(r.getSourceOffset()).isEqualTo(42);
            });
  }

  @Test
  void truncatedMessageIsRejected() throws Exception {
    byte[] whole = delimited(valid().build());
    byte[] cut = java.util.Arrays.copyOf(whole, whole.length - 3);
    n.normalize(cut, origin, ok::add, bad::add);
    assertThat(bad).extracting(RejectedRecord::getReason).containsExactly("malformed_message");
  }

  @Test
  void invalidRecordsAreRejectedWithTheirReason() {
    assertThat(rejectReason(b -> b.setTimeFlowStartNs(0))).isEqualTo("missing_times");
    bad.clear();
    assertThat(rejectReason(b -> b.setTimeFlowEndNs(b.getTimeFlowStartNs() - 1)))
        .isEqualTo("inverted_times");
    bad.clear();
    assertThat(rejectReason(b -> b.setPackets(0))).isEqualTo("impossible_counts");
    bad.clear();
    assertThat(rejectReason(b -> b.setBytes(19).setPackets(1))).isEqualTo("impossible_counts");
    bad.clear();
    assertThat(rejectReason(b -> b.setBytes(70_000).setPackets(1))).isEqualTo("impossible_counts");
    bad.clear();
    assertThat(rejectReason(b -> b.setEtype(0x0806))).isEqualTo("unknown_etype");
    bad.clear();
    assertThat(rejectReason(b -> b.setProto(300))).isEqualTo("unknown_protocol");
    bad.clear();
    assertThat(rejectReason(b -> b.setDstPort(70_000))).isEqualTo("bad_port");
    bad.clear();
    assertThat(rejectReason(b -> b.setDstAddr(ByteString.copyFrom(new byte[16]))))
        .isEqualTo("bad_address");
    bad.clear();
    assertThat(
            rejectReason(
                b ->
                    b.setBytes(Long.MAX_VALUE / 2)
                        .setPackets(Long.MAX_VALUE / 2000)
                        .setSamplingRate(4)))
        .isEqualTo("counter_overflow");
    bad.clear();
    assertThat(
            rejectReason(
                b ->
                    b.setTimeFlowStartNs(b.getTimeReceivedNs() + 7_200_000_000_000L)
                        .setTimeFlowEndNs(b.getTimeReceivedNs() + 7_300_000_000_000L)))
        .isEqualTo("future_times");
  }

  @Test
  void rejectionsKeepTheMessageAndExporter() throws Exception {
    run(valid().setPackets(0).build());
    RejectedRecord r = bad.get(0);
    assertThat(r.getDetail()).contains("0 packets");
    assertThat(FlowMessage.parseFrom(r.getPayload()).getPackets()).isZero();
    assertThat(r.getExporter().size()).isEqualTo(16);
  }

  @Test
  void v9TimesFromInformationElements152And153WinOverTheHeaderTime() {
    // goflow2 put the header time (T0 + 70 s) in both ns fields; the record said 1.5 s..9 s.
    long header = (T0 + 70_000) * 1_000_000;
    run(
        valid()
            .setTimeFlowStartNs(header)
            .setTimeFlowEndNs(header)
            .setV9FlowStartMilliseconds(T0 + 1_500)
            .setV9FlowEndMilliseconds(T0 + 9_000)
            .build());
    assertThat(ok.get(0).getStartMs()).isEqualTo(T0 + 1_500);
    assertThat(ok.get(0).getEndMs()).isEqualTo(T0 + 9_000);
  }

  @Test
  void v9TimesInSecondsAreUsedWhenNoMillisecondsCame() {
    run(valid().setV9FlowStartSeconds(T0 / 1000 + 2).setV9FlowEndSeconds(T0 / 1000 + 5).build());
    assertThat(ok.get(0).getStartMs()).isEqualTo((T0 / 1000 + 2) * 1000);
    assertThat(ok.get(0).getEndMs()).isEqualTo((T0 / 1000 + 5) * 1000);
  }

  @Test
  void ipfixRecordsKeepGoflow2Times() {
    run(
        valid()
            .setType(FlowMessage.FlowType.IPFIX)
            .setV9FlowStartMilliseconds(1)
            .setV9FlowEndMilliseconds(2)
            .build());
    assertThat(ok.get(0).getStartMs()).isEqualTo(T0);
  }

  @Test
  void ipv6FlowsAreAccepted() {
    byte[] a = Address.parse("2001:db8::1").toBytes16();
    byte[] b = Address.parse("2001:db8::2").toBytes16();
    run(
        valid()
            .setEtype(0x86DD)
            .setSrcAddr(ByteString.copyFrom(a))
            .setDstAddr(ByteString.copyFrom(b))
            .build());
    assertThat(ok).hasSize(1);
  }
}
