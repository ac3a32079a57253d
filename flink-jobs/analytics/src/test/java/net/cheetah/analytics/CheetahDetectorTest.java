package net.cheetah.analytics;

import static net.cheetah.analytics.Fixtures.rec;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import net.cheetah.core.flow.CheetahEvent;
import net.cheetah.core.flow.Flow;
import net.cheetah.core.flow.StitchedFlow;
import org.junit.jupiter.api.Test;

class CheetahDetectorTest {
  private final CheetahDetector d = new CheetahDetector(Fixtures.detection());
  private final List<CheetahEvent> out = new ArrayList<>();

  private StitchedFlow feed(Flow... records) {
    StitchedFlow f = null;
    for (Flow r : records) {
      f = d.onRecord(f, r, out::add);
    }
    return f;
  }

  private List<CheetahEvent.Kind> kinds() {
    return out.stream().map(CheetahEvent::kind).toList();
  }

  @Test
  void exactlyHInOneIntervalIsACheetah() {
    StitchedFlow f = feed(rec(1, 60_000, 119_999, 1000));
    d.onEnd(f, f.endMs + 30_000, out::add);
    assertThat(kinds()).containsExactly(CheetahEvent.Kind.START, CheetahEvent.Kind.END);
    CheetahEvent end = out.get(1);
    assertThat(end.peakIntervalBytes()).isEqualTo(1000);
    assertThat(end.peakIntervalStartMs()).isEqualTo(60_000);
    assertThat(end.seq()).isEqualTo(1);
  }

  @Test
  void oneByteLessIsNot() {
    StitchedFlow f = feed(rec(1, 60_000, 119_999, 999));
    d.onEnd(f, f.endMs + 30_000, out::add);
    assertThat(out).isEmpty();
  }

  @Test
  void hSplitEvenlyAcrossTwoIntervalsIsNot() {
    // 1998 B over [30 s, 90 s]: 999 B in each aligned minute, below H in both.
    StitchedFlow f = feed(rec(1, 30_000, 90_000, 1998));
    d.onEnd(f, f.endMs + 30_000, out::add);
    assertThat(out).isEmpty();
    assertThat(f.peakBytes).isEqualTo(999);
  }

  @Test
  void recordsSplitByActiveTimeoutAreStitchedIntoOneFlow() {
    // An active timeout of 20 s cuts one flow into four records of 400 B. Minute 0 holds the
    // first three (1200 B), so the third record makes it a cheetah and the fourth updates it.
    StitchedFlow f =
        feed(
            rec(1, 0, 19_999, 400),
            rec(1, 20_000, 39_999, 400),
            rec(1, 40_000, 59_999, 400),
            rec(1, 60_000, 79_999, 400));
    d.onEnd(f, f.endMs + 30_000, out::add);
    assertThat(kinds())
        .containsExactly(CheetahEvent.Kind.START, CheetahEvent.Kind.UPDATE, CheetahEvent.Kind.END);
    assertThat(out.get(0).bytes()).isEqualTo(1200);
    CheetahEvent end = out.get(2);
    assertThat(end.bytes()).isEqualTo(1600);
    assertThat(end.records()).isEqualTo(4);
    assertThat(end.startMs()).isZero();
    assertThat(end.endMs()).isEqualTo(79_999);
    assertThat(end.peakIntervalBytes()).isEqualTo(1200);
    assertThat(end.peakIntervalStartMs()).isZero();
    assertThat(end.seq()).isEqualTo(2);
    assertThat(out.stream().map(CheetahEvent::flowId).distinct()).hasSize(1);
  }

  @Test
  void gapOfExactlyGStitches() {
    StitchedFlow f = feed(rec(1, 0, 10_000, 600), rec(1, 40_000, 50_000, 600));
    assertThat(f.records).isEqualTo(2);
    assertThat(kinds()).containsExactly(CheetahEvent.Kind.START);
  }

  @Test
  void gapLongerThanGStartsANewFlow() {
    StitchedFlow f = feed(rec(1, 0, 10_000, 600), rec(1, 40_001, 50_000, 600));
    assertThat(f.records).isEqualTo(1);
    assertThat(f.bytes).isEqualTo(600);
    assertThat(out).isEmpty();
  }

  @Test
  void aCheetahEndsWhenTheNextRecordComesAfterTheGap() {
    StitchedFlow first = feed(rec(1, 0, 10_000, 1000));
    String firstId = first.flowId;
    feed(rec(1, 0, 10_000, 1000), rec(1, 100_000, 110_000, 1500));
    assertThat(kinds())
        .containsExactly(
            CheetahEvent.Kind.START, // from the first feed
            CheetahEvent.Kind.START,
            CheetahEvent.Kind.END,
            CheetahEvent.Kind.START);
    assertThat(out.get(2).flowId()).isEqualTo(firstId);
    assertThat(out.get(3).flowId()).isNotEqualTo(firstId);
    assertThat(out.get(3).seq()).isZero();
  }

  @Test
  void closeTimeIsEndPlusGPlusTheActiveTimeout() {
    StitchedFlow f = feed(rec(1, 0, 10_000, 10));
    assertThat(d.closeTime(f)).isEqualTo(60_000);
  }

  @Test
  void peakIsTheBestIntervalNotTheTotal() {
    // 3 minutes at 600 B/min: 1800 B in all but never 1000 in one interval.
    StitchedFlow f =
        feed(rec(1, 0, 60_000, 600), rec(1, 60_000, 120_000, 600), rec(1, 120_000, 180_000, 600));
    assertThat(f.bytes).isEqualTo(1800);
    assertThat(f.peakBytes).isEqualTo(600);
    assertThat(out).isEmpty();
  }

  @Test
  void flowIdsAreStable() {
    assertThat(feed(rec(1, 5, 6, 1)).flowId).isEqualTo(feed(rec(1, 5, 6, 1)).flowId);
  }
}
