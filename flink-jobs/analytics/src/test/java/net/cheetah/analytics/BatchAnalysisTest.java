package net.cheetah.analytics;

import static net.cheetah.analytics.Fixtures.rec;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import net.cheetah.core.flow.CheetahEvent;
import net.cheetah.core.flow.Flow;
import net.cheetah.core.flow.Flowset;
import org.junit.jupiter.api.Test;

/** H = 1000 B, I = 60 s, G = 30 s, τ = 10 s (Fixtures), worked out by hand. */
class BatchAnalysisTest {
  private final BatchAnalysis batch = new BatchAnalysis(Fixtures.detection());

  private List<CheetahEvent> cheetahs(Flow... records) {
    List<CheetahEvent> out = new ArrayList<>();
    batch.cheetahs(new ArrayList<>(List.of(records)), out::add);
    return out;
  }

  @Test
  void exactlyHBytesInAllCanBeACheetahOneLessCannot() {
    assertThat(batch.canBeCheetah(1000)).isTrue();
    assertThat(batch.canBeCheetah(999)).isFalse();
    // ...and the detector agrees on both sides of the edge.
    assertThat(cheetahs(rec(1, 60_000, 119_999, 1000)))
        .extracting(CheetahEvent::kind)
        .containsExactly(CheetahEvent.Kind.START, CheetahEvent.Kind.END);
    assertThat(cheetahs(rec(1, 60_000, 119_999, 999))).isEmpty();
  }

  @Test
  void recordsInAnyOrderAreFedByStartAndTheLastFlowEndsAtItsCloseTime() {
    // Three 400 B records in minute 1 (1200 B): a cheetah from the third record on; 40 s gap
    // (> G = 30 s) before a fourth record, which starts a new flow that is no cheetah.
    Flow a = rec(1, 60_000, 70_000, 400);
    Flow b = rec(1, 70_000, 80_000, 400);
    Flow c = rec(1, 80_000, 90_000, 400);
    Flow late = rec(1, 130_000, 131_000, 400);
    List<CheetahEvent> inOrder = cheetahs(a, b, c, late);
    List<CheetahEvent> shuffled = cheetahs(late, c, a, b);
    assertThat(shuffled).isEqualTo(inOrder);
    assertThat(inOrder)
        .extracting(CheetahEvent::kind)
        .containsExactly(CheetahEvent.Kind.START, CheetahEvent.Kind.END);
    CheetahEvent end = inOrder.get(1);
    assertThat(end.startMs()).isEqualTo(60_000);
    assertThat(end.endMs()).isEqualTo(90_000);
    assertThat(end.bytes()).isEqualTo(1200);
    // Ended by the record after the gap, at that record's end.
    assertThat(end.eventMs()).isEqualTo(131_000);
  }

  @Test
  void flowsetsAreTheTauGroupsOfThePairsEndedCheetahs() {
    // Cheetahs of one pair starting at 60 s, 65 s (within τ = 10 s) and 100 s (35 s later).
    List<CheetahEvent> ends = new ArrayList<>();
    for (Flow f :
        List.of(
            rec(1, 60_000, 119_999, 1000),
            rec(2, 65_000, 119_999, 2000),
            rec(3, 100_000, 179_999, 5000))) {
      batch.cheetahs(
          new ArrayList<>(List.of(f)),
          e -> {
            if (e.kind() == CheetahEvent.Kind.END) {
              ends.add(e);
            }
          });
    }
    ends.add(ends.get(0)); // an END seen twice counts once
    List<Flowset> sets = batch.flowsets(Fixtures.SRC, Fixtures.DST, ends);
    assertThat(sets).extracting(Flowset::nFlows).containsExactly(2, 1);
    assertThat(sets).extracting(Flowset::bytes).containsExactly(3000L, 5000L);
    assertThat(sets).extracting(Flowset::startMs).containsExactly(60_000L, 100_000L);
  }
}
