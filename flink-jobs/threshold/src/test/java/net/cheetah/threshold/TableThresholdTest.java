package net.cheetah.threshold;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class TableThresholdTest {
  private static final BackgroundTag TAG = new BackgroundTag(200e6, 0.5);
  private static final TableParams P = new TableParams(1e-3, 20e6, 0.1, 0.1, 10e6);

  private static LossTable table(double... rateLoss) {
    List<LossTable.Row> rows = new java.util.ArrayList<>();
    for (int i = 0; i < rateLoss.length; i += 2) {
      rows.add(new LossTable.Row(rateLoss[i], rateLoss[i + 1]));
    }
    return new LossTable(TAG, 0.1, rows);
  }

  @Test
  void largestRateWithinAcceptableLoss() {
    ThresholdDecision d =
        TableThreshold.choose(table(700e6, 5e-3, 100e6, 0, 300e6, 1e-4, 500e6, 9e-4), P);
    assertThat(d.rateBps()).isEqualTo(500e6);
    assertThat(d.measuredLoss()).isEqualTo(9e-4);
    assertThat(d.reason()).contains("500.0 Mb/s").contains("700.0 Mb/s loses");
  }

  @Test
  void noFeasibleRateFallsToTheFloor() {
    ThresholdDecision d = TableThreshold.choose(table(100e6, 2e-3, 300e6, 1e-2), P);
    assertThat(d.rateBps()).isEqualTo(10e6);
    assertThat(d.reason()).contains("no rate in the table");
  }

  @Test
  void allFeasibleTakesTheLargestRate() {
    ThresholdDecision d = TableThreshold.choose(table(100e6, 0, 900e6, 1e-3, 500e6, 0), P);
    assertThat(d.rateBps()).isEqualTo(900e6);
    assertThat(d.reason()).contains("every rate");
  }

  @Test
  void aLuckyRowAboveAFailingOneIsNotChosen() {
    ThresholdDecision d = TableThreshold.choose(table(300e6, 0, 500e6, 3e-3, 700e6, 0), P);
    assertThat(d.rateBps()).isEqualTo(300e6);
  }

  @Test
  void tiedRatesCountWithTheirWorstLoss() {
    ThresholdDecision d =
        TableThreshold.choose(table(300e6, 0, 500e6, 0, 500e6, 2e-3, 400e6, 5e-4), P);
    assertThat(d.rateBps()).isEqualTo(400e6);
    // Equal losses: the larger rate still wins.
    assertThat(TableThreshold.choose(table(300e6, 1e-3, 400e6, 1e-3), P).rateBps())
        .isEqualTo(400e6);
  }
}
