package net.cheetah.jobs.thresholds;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.ArrayList;
import java.util.List;
import net.cheetah.config.CheetahConfig;
import net.cheetah.jobs.flink.KeyedBytes;
import net.cheetah.schemas.v1.Threshold;
import net.cheetah.schemas.v1.ThresholdMode;
import net.cheetah.threshold.BackgroundTag;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedTwoInputStreamOperatorTestHarness;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Table mode of the threshold operator with hand-made loss tables: the formula until a table for
 * the window's tag arrives, then the table's largest rate within l_acpt; feedback on top of a
 * table; tables kept across a restore. Expected values by hand (k = 1, l_acpt 0.1 %, C 1 Gb/s).
 */
class ThresholdTableModeTest {
  private KeyedTwoInputStreamOperatorTestHarness<String, ThresholdInput, BuiltTable, KeyedBytes> h;

  /** Tag (200 Mb/s, 0.5) on 1 Gb/s: 200 Mb/s loses 0, 500 Mb/s 5e-4, 800 Mb/s 2e-3. */
  private static BuiltTable table(double capacity) {
    return new BuiltTable(
        "esnet-a",
        200e6,
        0.5,
        capacity,
        0.1,
        new double[] {200e6, 500e6, 800e6},
        new double[] {0, 5e-4, 2e-3},
        "",
        1_500);
  }

  private void open(CheetahConfig.Thresholds cfg) throws Exception {
    h = ThresholdConfigs.harness(cfg);
    h.open();
  }

  private void restore(CheetahConfig.Thresholds cfg) throws Exception {
    OperatorSubtaskState snapshot = h.snapshot(1, 1);
    h.close();
    h = ThresholdConfigs.harness(cfg);
    h.setup();
    h.initializeState(snapshot);
    h.open();
  }

  @AfterEach
  void close() throws Exception {
    h.close();
  }

  private void stats(double bg, double b, double c) throws Exception {
    h.processElement1(new StreamRecord<>(ThresholdInput.stats("esnet-a", 1_000, bg, b, c)));
  }

  private List<Threshold> out() throws Exception {
    List<Threshold> t = new ArrayList<>();
    for (KeyedBytes b : h.extractOutputValues()) {
      t.add(Threshold.parseFrom(b.value()));
    }
    return t;
  }

  @Test
  void theFormulaStandsInUntilTheTableOfTheTagArrives() throws Exception {
    open(ThresholdConfigs.cfg("table", "formula", 0.05));
    stats(200e6, 0.5, 1e9); // no table yet: formula 800 Mb/s / 1.5 = 533.3 Mb/s
    h.processElement2(new StreamRecord<>(table(1e9))); // 500 Mb/s is the last rate within 0.1 %
    stats(210e6, 0.52, 1e9); // within ε_r 20 Mb/s, ε_b 0.05: the same table, R unchanged
    stats(400e6, 0.9, 1e9); // no table near: the formula again, 600 Mb/s / 1.9 = 315.8 Mb/s
    List<Threshold> t = out();
    assertThat(t).extracting(Threshold::getVersion).containsExactly(1L, 2L, 3L);

    assertThat(t.get(0).getMode()).isEqualTo(ThresholdMode.THRESHOLD_MODE_FORMULA);
    assertThat(t.get(0).getRateBps()).isCloseTo(800e6 / 1.5, within(1e-3));
    assertThat(t.get(0).getReason())
        .startsWith("no loss table for RTT 100 ms")
        .contains("build one (requested); until a table matches, the formula: R = α_bg");
    assertThat(t.get(0).getLossAcceptable()).isEqualTo(0.001);

    assertThat(t.get(1).getMode()).isEqualTo(ThresholdMode.THRESHOLD_MODE_TABLE);
    assertThat(t.get(1).getRateBps()).isEqualTo(500e6);
    assertThat(t.get(1).getMeasuredLoss()).isEqualTo(5e-4);
    assertThat(t.get(1).getAlphaBg()).isZero();
    assertThat(t.get(1).getReason())
        .startsWith("a loss table arrived (r_bg 200.0 Mb/s, built in 1.5 s); ")
        .contains("largest rate within l_acpt 0.00100 is 500.0 Mb/s");

    assertThat(t.get(2).getMode()).isEqualTo(ThresholdMode.THRESHOLD_MODE_FORMULA);
    assertThat(t.get(2).getRateBps()).isCloseTo(600e6 / 1.9, within(1e-3));
  }

  @Test
  void aTableSimulatedForAnotherCapacityIsNotUsed() throws Exception {
    open(ThresholdConfigs.cfg("table", "formula", 0.05));
    h.processElement2(new StreamRecord<>(table(1e9))); // before any window: kept, nothing published
    assertThat(out()).isEmpty();
    stats(200e6, 0.5, 10e9); // a 10 Gb/s link: formula 9.8 Gb/s / 1.5
    stats(200e6, 0.5, 0); // no capacity in the statistics: the default C, 1 Gb/s: the table
    List<Threshold> t = out();
    assertThat(t)
        .extracting(Threshold::getMode)
        .containsExactly(ThresholdMode.THRESHOLD_MODE_FORMULA, ThresholdMode.THRESHOLD_MODE_TABLE);
    assertThat(t.get(0).getRateBps()).isCloseTo(9.8e9 / 1.5, within(1e-3));
    assertThat(t.get(1).getRateBps()).isEqualTo(500e6);
  }

  @Test
  void aFailedBuildIsNamedInTheReasonAndTheFormulaStays() throws Exception {
    open(ThresholdConfigs.cfg("table", "formula", 0)); // min-change 0: every decision is published
    stats(200e6, 0.5, 1e9);
    TableRequest r = new TableRequest("esnet-a", 200e6, 0.5, 1e9, 1_000);
    h.processElement2(new StreamRecord<>(BuiltTable.failed(r, 0.1, "boom", 10)));
    List<Threshold> t = out();
    assertThat(t).hasSize(2);
    assertThat(t.get(1).getMode()).isEqualTo(ThresholdMode.THRESHOLD_MODE_FORMULA);
    assertThat(t.get(1).getRateBps()).isCloseTo(800e6 / 1.5, within(1e-3));
    assertThat(t.get(1).getReason())
        .startsWith("building the loss table for r_bg 200.0 Mb/s, b 0.500 failed (boom)");
  }

  @Test
  void tablesSurviveARestore() throws Exception {
    CheetahConfig.Thresholds cfg = ThresholdConfigs.cfg("table", "formula", 0.05);
    open(cfg);
    stats(200e6, 0.5, 1e9);
    h.processElement2(new StreamRecord<>(table(1e9)));
    assertThat(out()).extracting(Threshold::getVersion).containsExactly(1L, 2L);
    restore(cfg);
    stats(400e6, 0.9, 1e9); // far: the formula, v3
    stats(195e6, 0.49, 1e9); // near the restored table again: 500 Mb/s, v4, no new table needed
    List<Threshold> t = out();
    assertThat(t).extracting(Threshold::getVersion).containsExactly(3L, 4L);
    assertThat(t.get(1).getMode()).isEqualTo(ThresholdMode.THRESHOLD_MODE_TABLE);
    assertThat(t.get(1).getRateBps()).isEqualTo(500e6);
    assertThat(t.get(1).getReason())
        .startsWith("tag r_bg 195.0 Mb/s, b 0.490 matches the table of r_bg 200.0 Mb/s, b 0.500");
  }

  @Test
  void feedbackLowersTheTablesRateAndKeepsItsCorrectionAcrossARestore() throws Exception {
    CheetahConfig.Thresholds cfg = ThresholdConfigs.cfg("feedback", "table", 0.05);
    open(cfg);
    stats(200e6, 0.5, 1e9); // v1 formula 533.3 (no table yet)
    h.processElement2(new StreamRecord<>(table(1e9))); // v2 table 500
    send(ThresholdInput.poll("esnet-a", 10_000, 1_000, 0, true)); // baseline
    send(ThresholdInput.poll("esnet-a", 20_000, 11_000, 100, false)); // 100 / 10,100 = 0.99 %
    send(ThresholdInput.poll("esnet-a", 30_000, 21_000, 200, false)); // 0.99 % again: 2 polls
    List<Threshold> t = out();
    assertThat(t).extracting(Threshold::getVersion).containsExactly(1L, 2L, 3L);
    assertThat(t.get(2).getMode()).isEqualTo(ThresholdMode.THRESHOLD_MODE_FEEDBACK);
    assertThat(t.get(2).getRateBps()).isEqualTo(450e6);
    assertThat(t.get(2).getReason()).contains("exceeds l_acpt");

    restore(cfg);
    // The table (500) minus the learned 50 Mb/s: 450 again, nothing new to publish. Had the table
    // been lost, the formula's 533.3 - 50 = 483.3 would have moved R by 7 % and been published.
    stats(205e6, 0.5, 1e9);
    assertThat(out()).isEmpty();
    send(ThresholdInput.poll("esnet-a", 40_000, 31_000, 200, false)); // calm
    send(ThresholdInput.poll("esnet-a", 50_000, 41_000, 200, false)); // calm: back to the table
    List<Threshold> after = out();
    assertThat(after).extracting(Threshold::getVersion).containsExactly(4L);
    assertThat(after.get(0).getRateBps()).isEqualTo(500e6);
    assertThat(after.get(0).getReason()).contains("link calm");
  }

  @Test
  void aPredictedTagIsLookedUpAndTheReasonSaysSo() throws Exception {
    open(ThresholdConfigs.cfg("table", "formula", 0.05));
    h.processElement2(new StreamRecord<>(table(1e9)));
    long at = 14 * 3_600_000L; // 14:00 UTC on 1 January 1970
    ThresholdInput now =
        ThresholdInput.stats("esnet-a", at - 3_600_000L, at, 300e6, 0.8, 1e9, false)
            .withPredictedTag(new BackgroundTag(200e6, 0.5), 3);
    send(now);
    List<Threshold> t = out();
    assertThat(t).hasSize(1);
    assertThat(t.get(0).getMode()).isEqualTo(ThresholdMode.THRESHOLD_MODE_TABLE);
    assertThat(t.get(0).getRateBps()).isEqualTo(500e6);
    assertThat(t.get(0).getReason())
        .startsWith(
            "hour-of-day prediction for 14:00 UTC from 3 earlier days: r_bg 200.0 Mb/s, b 0.500"
                + " (this window: r_bg 300.0 Mb/s, b 0.800); ");
    // The record carries the window's own statistics, the reason the tag it was decided on.
    assertThat(t.get(0).getMeanBgBps()).isEqualTo(300e6);
    assertThat(t.get(0).getBurstiness()).isEqualTo(0.8);
  }

  private void send(ThresholdInput in) throws Exception {
    h.processElement1(new StreamRecord<>(in));
  }
}
