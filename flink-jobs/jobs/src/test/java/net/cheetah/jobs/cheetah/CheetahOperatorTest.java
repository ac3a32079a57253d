package net.cheetah.jobs.cheetah;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import net.cheetah.config.CheetahConfig.Detection;
import net.cheetah.core.flow.Address;
import net.cheetah.core.flow.CheetahEvent;
import net.cheetah.core.flow.Flow;
import net.cheetah.core.flow.FlowKey;
import net.cheetah.core.flow.Ids;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The cheetah operator under a hand-driven watermark, with its packed per-key state: its schedule
 * (entries only where a key became due earlier, none in Flink's timer service, rebuilt on restore),
 * a checkpoint taken and restored mid-flow, and a flow whose early records are slow that later
 * becomes a cheetah (its start and interval bytes must survive in the compact state).
 */
class CheetahOperatorTest {
  /** H = 1000 B, I = 60 s, G = 30 s, active timeout 20 s: a flow closes at its end + 50 s. */
  static final Detection D =
      new Detection(1000, 60_000, 30_000, 10_000, 60_000, 5_000, 0, 20_000, 0);

  static final FlowKey K =
      new FlowKey(
          Address.parse("192.0.2.1"),
          Address.parse("198.18.1.10"),
          Address.parse("2001:db8::20"),
          40_001,
          2811,
          6);

  private KeyedOneInputStreamOperatorTestHarness<FlowKey, Flow, CheetahEvent> h;

  private static KeyedOneInputStreamOperatorTestHarness<FlowKey, Flow, CheetahEvent> harness(
      OperatorSubtaskState restored) throws Exception {
    var t =
        new KeyedOneInputStreamOperatorTestHarness<>(
            new CheetahOperator(D), Flow::key, FlowKeySerializer.TYPE);
    t.setup();
    if (restored != null) {
      t.initializeState(restored);
    }
    t.open();
    return t;
  }

  @AfterEach
  void close() throws Exception {
    if (h != null) {
      h.close();
    }
  }

  /** Entries in the operator's schedule, stale ones included; Flink holds no timer for it. */
  private long scheduled() {
    assertThat(h.numEventTimeTimers()).isZero();
    return ((CheetahOperator) h.getOperator()).scheduled();
  }

  private void send(Flow r) throws Exception {
    h.processElement(new StreamRecord<>(r, r.endMs()));
  }

  private static Flow rec(long start, long end, long bytes) {
    return new Flow(K, start, end, bytes, bytes / 10, 64_500, 0);
  }

  /**
   * Two slow records (100 B over 50 s each), then a fast one: by hand, r2 [50 s, 100 s] puts 20 B
   * in minute 0 and 80 B in minute 1, r3 [100 s, 110 s] 1200 B in minute 1, so minute 1 holds 1280
   * B ≥ H and the flow becomes a cheetah at r3's end, starting at r1's start (0) with 1400 B. The
   * checkpoint is taken while only r1 is stitched and r2 pending, and the rest runs on an operator
   * restored from it.
   */
  @Test
  void aFlowWhoseEarlyRecordsWereSlowKeepsItsStartThroughACheckpoint() throws Exception {
    h = harness(null);
    send(rec(0, 50_000, 100));
    h.processWatermark(50_000); // r1 fed: a flow of 100 B, closing at 100 s
    assertThat(h.extractOutputValues()).isEmpty();
    assertThat(scheduled()).isEqualTo(1);
    send(rec(50_000, 100_000, 100)); // due at 100 s, the flow's close time: the same entry
    assertThat(scheduled()).isEqualTo(1);
    OperatorSubtaskState snapshot = h.snapshot(1, 1);
    h.close();

    h = harness(snapshot);
    assertThat(scheduled()).as("rebuilt from the restored state").isEqualTo(1);
    assertThat(h.numKeyedStateEntries()).isEqualTo(1);
    h.processWatermark(100_000); // r2 fed: 200 B, closing at 150 s
    assertThat(h.extractOutputValues()).isEmpty();
    send(rec(100_000, 110_000, 1200)); // due at 110 s, before the close time: a new entry
    assertThat(scheduled()).as("the one at 150 s stays, stale").isEqualTo(2);
    h.processWatermark(110_000);
    assertThat(h.extractOutputValues()).hasSize(1); // at r3's end, not at the old close time
    h.processWatermark(159_999);
    assertThat(h.extractOutputValues())
        .singleElement()
        .satisfies(
            e -> {
              assertThat(e.kind()).isEqualTo(CheetahEvent.Kind.START);
              assertThat(e.flowId()).isEqualTo(Ids.flowId(K, 0));
              assertThat(e.key()).isEqualTo(K);
              assertThat(e.eventMs()).isEqualTo(110_000);
              assertThat(e.startMs()).isZero();
              assertThat(e.endMs()).isEqualTo(110_000);
              assertThat(e.bytes()).isEqualTo(1400);
              assertThat(e.packets()).isEqualTo(140);
              assertThat(e.peakIntervalBytes()).isEqualTo(1280);
              assertThat(e.peakIntervalStartMs()).isEqualTo(60_000);
              assertThat(e.records()).isEqualTo(3);
              assertThat(e.srcAs()).isEqualTo(64_500);
              assertThat(e.seq()).isZero();
            });
    h.processWatermark(160_000); // 110 s + G + active timeout
    List<CheetahEvent> out = h.extractOutputValues();
    assertThat(out).hasSize(2);
    CheetahEvent end = out.get(1);
    assertThat(end.kind()).isEqualTo(CheetahEvent.Kind.END);
    assertThat(end.eventMs()).isEqualTo(160_000);
    assertThat(end.startMs()).isZero();
    assertThat(end.bytes()).isEqualTo(1400);
    assertThat(end.seq()).isEqualTo(1);
    assertThat(scheduled()).isZero();
    assertThat(h.numKeyedStateEntries()).isZero();
  }

  /**
   * Records of one key arriving out of order are fed in start order at the watermark, whatever
   * their arrival order; pending records survive a checkpoint, and so do the bytes of an interval
   * that a later record makes reach H.
   */
  @Test
  void pendingRecordsAndIntervalBytesSurviveCheckpoints() throws Exception {
    h = harness(null);
    send(rec(30_000, 40_000, 300)); // minute 0
    send(rec(0, 20_000, 300)); // minute 0
    send(rec(20_000, 30_000, 300)); // minute 0: 900 B
    send(rec(45_000, 70_000, 500)); // 300 B in minute 0 (15 of 25 s): 1200 B, a cheetah
    assertThat(scheduled())
        .as("due at 40 s, then at 20 s when an earlier record came")
        .isEqualTo(2);
    OperatorSubtaskState snapshot = h.snapshot(1, 1);
    h.close();

    h = harness(snapshot);
    h.processWatermark(40_000); // the first three fed, in start order: 900 B, no cheetah
    assertThat(h.extractOutputValues()).isEmpty();
    snapshot = h.snapshot(2, 2); // minute 0 holds 900 B, the fourth record is pending
    h.close();

    h = harness(snapshot);
    h.processWatermark(70_000);
    assertThat(h.extractOutputValues())
        .singleElement()
        .satisfies(
            e -> {
              assertThat(e.kind()).isEqualTo(CheetahEvent.Kind.START);
              assertThat(e.flowId()).isEqualTo(Ids.flowId(K, 0));
              assertThat(e.startMs()).isZero();
              assertThat(e.bytes()).isEqualTo(1400);
              assertThat(e.peakIntervalBytes()).isEqualTo(1200);
              assertThat(e.peakIntervalStartMs()).isZero();
              assertThat(e.records()).isEqualTo(4);
            });
  }

  /** A mouse leaves nothing behind once it closed: no state, nothing scheduled. */
  @Test
  void aMouseLeavesNoStateOnceClosed() throws Exception {
    h = harness(null);
    send(rec(0, 2_000, 500));
    assertThat(h.numKeyedStateEntries()).isEqualTo(1);
    h.processWatermark(51_999);
    assertThat(scheduled()).isEqualTo(1);
    h.processWatermark(52_000);
    assertThat(h.extractOutputValues()).isEmpty();
    assertThat(scheduled()).isZero();
    assertThat(h.numKeyedStateEntries()).isZero();
  }
}
