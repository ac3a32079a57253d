package net.cheetah.jobs.flowset;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import net.cheetah.config.CheetahConfig.Detection;
import net.cheetah.core.flow.Address;
import net.cheetah.core.flow.CheetahEvent;
import net.cheetah.core.flow.FlowKey;
import net.cheetah.core.flow.Flowset;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.apache.flink.streaming.util.ProcessFunctionTestHarnesses;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The flowset operator under a hand-driven watermark: closing time, running members, lateness. */
class FlowsetFunctionTest {
  /** τ = 10 s, lateness 60 s: a set whose last member started at s closes at s + 70 s. */
  static final Detection D =
      new Detection(1000, 60_000, 30_000, 10_000, 60_000, 5_000, 0, 20_000, 0);

  static final Address SRC = Address.parse("198.18.1.10");
  static final Address DST = Address.parse("198.18.2.20");

  private KeyedOneInputStreamOperatorTestHarness<PairKey, CheetahEvent, Flowset> h;

  @BeforeEach
  void open() throws Exception {
    h =
        ProcessFunctionTestHarnesses.forKeyedProcessFunction(
            new FlowsetFunction(D),
            e -> new PairKey(e.key().src(), e.key().dst()),
            TypeInformation.of(PairKey.class));
  }

  @AfterEach
  void close() throws Exception {
    h.close();
  }

  private static CheetahEvent ev(
      String id, CheetahEvent.Kind kind, long start, long end, long bytes) {
    FlowKey k = new FlowKey(Address.parse("192.0.2.1"), SRC, DST, id.hashCode() & 0xFFFF, 2811, 6);
    return new CheetahEvent(id, kind, end, 0, k, start, end, bytes, 1, bytes, start, 1, 0, 0);
  }

  private void send(CheetahEvent e) throws Exception {
    h.processElement(new StreamRecord<>(e, e.eventMs()));
  }

  private List<Flowset> sets() {
    return h.extractOutputValues();
  }

  @Test
  void aSetIsEmittedExactlyAtLastStartPlusTauPlusLateness() throws Exception {
    send(ev("a", CheetahEvent.Kind.START, 0, 30_000, 1000));
    send(ev("b", CheetahEvent.Kind.START, 5_000, 30_000, 1000));
    send(ev("a", CheetahEvent.Kind.END, 0, 40_000, 1500));
    send(ev("b", CheetahEvent.Kind.END, 5_000, 50_000, 2500));
    h.processWatermark(74_999);
    assertThat(sets()).isEmpty();
    h.processWatermark(75_000);
    assertThat(sets())
        .singleElement()
        .satisfies(
            s -> {
              assertThat(s.memberFlowIds()).containsExactly("a", "b");
              assertThat(s.bytes()).isEqualTo(4000); // END bytes, not START bytes
              assertThat(s.startMs()).isZero();
              assertThat(s.endMs()).isEqualTo(50_000);
              assertThat(s.closedMs()).isEqualTo(75_000);
            });
  }

  @Test
  void aSetWaitsForMembersStillRunning() throws Exception {
    send(ev("a", CheetahEvent.Kind.START, 0, 30_000, 1000));
    h.processWatermark(1_000_000);
    assertThat(sets()).isEmpty();
    send(ev("a", CheetahEvent.Kind.END, 0, 900_000, 9000));
    h.processWatermark(1_000_001);
    assertThat(sets()).singleElement().satisfies(s -> assertThat(s.single()).isTrue());
  }

  @Test
  void aMemberArrivingAfterItsSetClosedIsLateAndCounted() throws Exception {
    send(ev("a", CheetahEvent.Kind.END, 0, 30_000, 1000));
    h.processWatermark(70_000);
    assertThat(sets()).hasSize(1);
    // Starts 10 s after a: it belonged to a's set, which is already out.
    send(ev("late", CheetahEvent.Kind.START, 10_000, 80_000, 1000));
    assertThat(h.getSideOutput(FlowsetFunction.LATE))
        .extracting(r -> r.getValue().flowId())
        .containsExactly("late");
    // Starts 10.001 s after a: a new set of its own, not late.
    send(ev("next", CheetahEvent.Kind.END, 10_001, 80_000, 1000));
    h.processWatermark(Long.MAX_VALUE);
    assertThat(sets())
        .extracting(Flowset::memberFlowIds)
        .containsExactly(List.of("a"), List.of("next"));
  }

  @Test
  void aDuplicateEndDoesNotReopenAMember() throws Exception {
    send(ev("a", CheetahEvent.Kind.END, 0, 30_000, 1000));
    send(ev("a", CheetahEvent.Kind.UPDATE, 0, 20_000, 500));
    h.processWatermark(Long.MAX_VALUE);
    assertThat(sets()).singleElement().satisfies(s -> assertThat(s.bytes()).isEqualTo(1000));
  }
}
