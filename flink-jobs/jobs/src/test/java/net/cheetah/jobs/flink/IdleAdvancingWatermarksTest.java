package net.cheetah.jobs.flink;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.common.eventtime.Watermark;
import org.apache.flink.api.common.eventtime.WatermarkOutput;
import org.junit.jupiter.api.Test;

class IdleAdvancingWatermarksTest {
  /** Records what the generator emits. */
  static final class Out implements WatermarkOutput {
    final List<Long> marks = new ArrayList<>();
    boolean idle;

    @Override
    public void emitWatermark(Watermark w) {
      marks.add(w.getTimestamp());
      idle = false;
    }

    @Override
    public void markIdle() {
      idle = true;
    }

    @Override
    public void markActive() {
      idle = false;
    }
  }

  long now = 1_000_000;

  @Test
  void aSplitWithoutRecordsHoldsEventTimeBackEvenWithTheAdvanceOff() {
    // The restart flake: with the advance off (idleMs 0), an empty split used to be idle after 1
    // ms.
    var g = new IdleAdvancingWatermarks<String>(20_000, 0, () -> now);
    Out out = new Out();
    now += 5_000;
    g.onPeriodicEmit(out);
    assertThat(out.idle).as("idle 5 s after start, hold 20 s").isFalse();
    assertThat(out.marks).isEmpty();
    now += 15_001;
    g.onPeriodicEmit(out);
    assertThat(out.idle).as("idle after the out-of-orderness bound").isTrue();
  }

  @Test
  void withTheAdvanceOnTheHoldIsTheIdlePeriod() {
    var g = new IdleAdvancingWatermarks<String>(20_000, 2_000, () -> now);
    Out out = new Out();
    now += 2_000;
    g.onPeriodicEmit(out);
    assertThat(out.idle).isFalse();
    now += 1;
    g.onPeriodicEmit(out);
    assertThat(out.idle).isTrue();
  }

  @Test
  void aSplitMarkedIdleIsHeldForAgainWhenAnotherSplitHasItsFirstRecord() {
    // The softflowd test's flake: the jobs start long before the first flows; both partitions
    // are idle by then; the first transaction fills both, and the one read first must not drive
    // event time alone while the other's first records are a fetch away.
    var shared = new IdleAdvancingWatermarks.FirstRecords();
    var p0 = new IdleAdvancingWatermarks<String>(10_000, 2_000, 2_000, shared, () -> now);
    var p1 = new IdleAdvancingWatermarks<String>(10_000, 2_000, 2_000, shared, () -> now);
    Out out0 = new Out();
    Out out1 = new Out();
    now += 30_000;
    p0.onPeriodicEmit(out0);
    p1.onPeriodicEmit(out1);
    assertThat(out0.idle).as("30 s without input, hold 2 s").isTrue();
    assertThat(out1.idle).isTrue();
    p0.onEvent("flow", 7_000_000, out0);
    p0.onPeriodicEmit(out0);
    p1.onPeriodicEmit(out1);
    assertThat(out0.marks).containsExactly(7_000_000L - 10_000 - 1);
    assertThat(out1.idle).as("p0's first record: p1 holds again").isFalse();
    assertThat(out1.marks).containsExactly(Long.MIN_VALUE);
    now += 2_000;
    p1.onPeriodicEmit(out1);
    assertThat(out1.idle).as("2 s after p0's first record, not more").isFalse();
    assertThat(out1.marks).as("held, not re-emitted").hasSize(1);
    now += 1;
    p1.onPeriodicEmit(out1);
    assertThat(out1.idle).as("no record of its own 2 s after: idle (a quiet link)").isTrue();
  }

  @Test
  void aHoldGivenApartOutlastsTheIdleAdvance() {
    // The demo: its jobs wait ~30 s for the first flows (the probe runs first); a split marked
    // idle by then lets the other partition's first transaction drive event time alone.
    var g = new IdleAdvancingWatermarks<String>(20_000, 30_000, 600_000, () -> now);
    Out out = new Out();
    now += 30_001;
    g.onPeriodicEmit(out);
    assertThat(out.idle).as("30 s without records, hold 600 s").isFalse();
    assertThat(out.marks).isEmpty();
    now += 570_000;
    g.onPeriodicEmit(out);
    assertThat(out.idle).isTrue();
    // Once it has records, silence moves event time with the clock after idleMs, as before.
    g.onEvent("flow", 5_000_000, out);
    g.onPeriodicEmit(out);
    assertThat(out.marks.get(out.marks.size() - 1)).isEqualTo(5_000_000L - 20_000 - 1);
    now += 31_000;
    g.onPeriodicEmit(out);
    assertThat(out.marks.get(out.marks.size() - 1)).isEqualTo(5_000_000L - 20_000 - 1 + 1_000);
  }

  @Test
  void eventTimeTrailsTheLargestTimestampThenFollowsTheClockWhenSilent() {
    var g = new IdleAdvancingWatermarks<String>(20_000, 30_000, () -> now);
    Out out = new Out();
    g.onEvent("r", 500_000, out);
    g.onEvent("r", 400_000, out);
    g.onPeriodicEmit(out);
    assertThat(out.marks).containsExactly(500_000L - 20_000 - 1);
    now += 30_000;
    g.onPeriodicEmit(out);
    assertThat(out.marks.get(1)).as("not yet silent beyond idleMs").isEqualTo(479_999L);
    now += 7_000;
    g.onPeriodicEmit(out);
    assertThat(out.marks.get(2)).as("7 s past the idle period").isEqualTo(486_999L);
  }

  @Test
  void withTheAdvanceOffSilenceNeverMovesEventTime() {
    var g = new IdleAdvancingWatermarks<String>(20_000, 0, () -> now);
    Out out = new Out();
    g.onEvent("r", 500_000, out);
    now += 3_600_000;
    g.onPeriodicEmit(out);
    assertThat(out.marks).containsExactly(479_999L);
    assertThat(out.idle).isFalse();
  }
}
