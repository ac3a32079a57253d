package net.cheetah.jobs.links;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import net.cheetah.analytics.links.LinkWindow;
import net.cheetah.config.CheetahConfig;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.streaming.api.operators.KeyedProcessOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The link-statistics operator, fed by hand: window timing, cheetahs, capacity, restore. */
class LinkStatsFunctionTest {
  /** T1 100 ms, T2 1 s, sliding every 500 ms, lateness 200 ms, C = 80 kb/s = 10 kB/s. */
  static final CheetahConfig.LinkStats CFG =
      new CheetahConfig.LinkStats(100, 1_000, 500, 200, 80_000);

  private KeyedOneInputStreamOperatorTestHarness<String, LinkInput, LinkWindow> h;

  @BeforeEach
  void open() throws Exception {
    h = harness();
    h.open();
  }

  private static KeyedOneInputStreamOperatorTestHarness<String, LinkInput, LinkWindow> harness()
      throws Exception {
    return new KeyedOneInputStreamOperatorTestHarness<>(
        new KeyedProcessOperator<>(new LinkStatsFunction(CFG)),
        LinkInput::linkId,
        TypeInformation.of(String.class));
  }

  @AfterEach
  void close() throws Exception {
    h.close();
  }

  private void send(
      KeyedOneInputStreamOperatorTestHarness<String, LinkInput, LinkWindow> to, LinkInput in)
      throws Exception {
    to.processElement(new StreamRecord<>(in, 0));
  }

  /** Bins 0..n-1 of 100 ms from t0, bytes alternating low/high. */
  private void bins(long t0, int n, long low, long high) throws Exception {
    for (int i = 0; i < n; i++) {
      send(h, LinkInput.bin("esnet-a", t0 + i * 100L, i % 2 == 0 ? low : high, 0));
    }
  }

  private List<LinkWindow> out() {
    return h.extractOutputValues();
  }

  @Test
  void theAlignedWindowIsEmittedOnceBinsPastItsEndPlusLatenessArrive() throws Exception {
    bins(0, 12, 100, 300); // bins 0..1,100: up to 1,200 seen, the window [0, 1,000) is due
    List<LinkWindow> tumbling = out().stream().filter(w -> !w.sliding()).toList();
    assertThat(tumbling).hasSize(1);
    LinkWindow w = tumbling.get(0);
    assertThat(List.of(w.startMs(), w.endMs(), w.bins())).containsExactly(0L, 1_000L, 10L);
    // 100/300 alternating: mean 200 B per 100 ms = 16 kb/s, CoV 0.5, utilization 16/80.
    assertThat(w.meanBgBps()).isCloseTo(16_000, within(1e-9));
    assertThat(w.burstiness()).isCloseTo(0.5, within(1e-12));
    assertThat(w.utilization()).isCloseTo(0.2, within(1e-12));
    assertThat(w.hourOfDay()).isZero();
  }

  @Test
  void slidingWindowsComeEveryPeriodOverTheLastT2() throws Exception {
    bins(0, 18, 100, 100); // up to 1,800 seen: slides ending 500, 1,000, 1,500 are due
    List<LinkWindow> sliding = out().stream().filter(LinkWindow::sliding).toList();
    assertThat(sliding).extracting(LinkWindow::endMs).containsExactly(500L, 1_000L, 1_500L);
    assertThat(sliding).extracting(LinkWindow::bins).containsExactly(5L, 10L, 10L);
    assertThat(sliding.get(2).startMs()).isEqualTo(500L);
  }

  @Test
  void netflowCheetahsLeaveTheBackgroundAndSnmpSetsTheCapacity() throws Exception {
    send(h, LinkInput.capacity("esnet-a", 160_000));
    // A NetFlow cheetah at 8 kb/s = 100 B per bin over [0, 500).
    send(h, LinkInput.cheetah("esnet-a", "flow-1", 0, 500, 8_000));
    bins(0, 12, 200, 200);
    LinkWindow w = out().stream().filter(x -> !x.sliding()).findFirst().orElseThrow();
    // Background: 5 bins of 100 B, 5 of 200 B: mean 150 B = 12 kb/s, CoV 50/150.
    assertThat(w.meanBgBps()).isCloseTo(12_000, within(1e-9));
    assertThat(w.burstiness()).isCloseTo(1.0 / 3, within(1e-12));
    assertThat(w.capacityBps()).isEqualTo(160_000);
    assertThat(w.utilization()).isCloseTo(16_000.0 / 160_000, within(1e-12));
  }

  @Test
  void lateAndMisalignedBinsAreCountedNotStored() throws Exception {
    bins(0, 30, 100, 100);
    int before = out().size();
    send(h, LinkInput.bin("esnet-a", 0, 1_000_000, 0)); // older than the ring: refused
    send(h, LinkInput.bin("esnet-a", 3_050, 1_000_000, 0)); // not on a T1 boundary
    bins(3_000, 10, 100, 100);
    List<LinkWindow> later = out().subList(before, out().size());
    assertThat(later).isNotEmpty().allSatisfy(w -> assertThat(w.burstiness()).isZero());
  }

  @Test
  void stateSurvivesASnapshotAndRestore() throws Exception {
    bins(0, 8, 100, 300);
    OperatorSubtaskState snapshot = h.snapshot(1, 1);
    h.close();
    h = harness();
    h.initializeState(snapshot);
    h.open();
    bins(800, 4, 100, 300); // continue the same alternation: bins 800..1,100
    LinkWindow w = out().stream().filter(x -> !x.sliding()).findFirst().orElseThrow();
    assertThat(w.bins()).isEqualTo(10);
    assertThat(w.burstiness()).isCloseTo(0.5, within(1e-12));
  }
}
