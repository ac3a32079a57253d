package net.cheetah.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import net.cheetah.core.threshold.ThresholdMode;
import org.junit.jupiter.api.Test;

/** The thresholds.* keys: modes, table mode's plan, and errors that name the key. */
class ThresholdsConfigTest {
  private static CheetahConfig.Thresholds load(Map<String, String> overrides) {
    return CheetahConfig.load(Optional.empty(), overrides).thresholds();
  }

  @Test
  void defaultsAreFeedbackOnTheFormulaAndTheStudysTablePlan() {
    CheetahConfig.Thresholds t = load(Map.of());
    assertThat(t.mode()).isEqualTo(ThresholdMode.FEEDBACK);
    assertThat(t.feedbackBase()).isEqualTo(ThresholdMode.FORMULA);
    assertThat(t.feedback()).isTrue();
    assertThat(t.tableBase()).isFalse();
    CheetahConfig.Table table = t.table();
    assertThat(table.rttMs()).isEqualTo(100);
    assertThat(table.rateFractions()).hasSize(18).startsWith(0.05, 0.1, 0.15).endsWith(0.9);
    assertThat(table.bufferBytes()).isEqualTo(5_000_000);
    assertThat(table.binMs()).isEqualTo(100); // link-stats.t1-ms: b is measured over the same bins
    assertThat(table.predictDays()).isEqualTo(7);
  }

  @Test
  void tableModeAndFeedbackOnATableBothUseTables() {
    assertThat(load(Map.of("thresholds.mode", "table")).tableBase()).isTrue();
    assertThat(load(Map.of("thresholds.mode", "table")).feedback()).isFalse();
    CheetahConfig.Thresholds fb = load(Map.of("thresholds.feedback-base", "table"));
    assertThat(fb.feedback()).isTrue();
    assertThat(fb.tableBase()).isTrue();
    // The base matters only to feedback: formula mode stays the formula.
    assertThat(
            load(Map.of("thresholds.mode", "formula", "thresholds.feedback-base", "table"))
                .tableBase())
        .isFalse();
  }

  @Test
  void modesAreParsedOnceIntoTheEnumAndErrorsListTheAllowedValues() {
    assertThat(load(Map.of("thresholds.mode", "Table")).mode()).isEqualTo(ThresholdMode.TABLE);
    assertThatThrownBy(() -> load(Map.of("thresholds.mode", "tables")))
        .hasMessage("thresholds.mode must be one of formula, table, feedback, got 'tables'");
    // Feedback corrects a base mode; it cannot be its own base.
    assertThatThrownBy(() -> load(Map.of("thresholds.feedback-base", "feedback")))
        .hasMessage("thresholds.feedback-base must be one of formula, table, got 'feedback'");
  }

  @Test
  void ratesAreListsAndRangesOfFractionsOfC() {
    assertThat(load(Map.of("thresholds.table-rates", "0.2, 0.5,0.8")).table().rateFractions())
        .isEqualTo(List.of(0.2, 0.5, 0.8));
    assertThat(load(Map.of("thresholds.table-rates", "0.1..0.3:0.1,0.9")).table().rateFractions())
        .isEqualTo(List.of(0.1, 0.2, 0.3, 0.9));
  }

  @Test
  void badValuesNameTheKey() {
    Map<String, String> bad =
        Map.of(
            "thresholds.mode", "tables",
            "thresholds.feedback-base", "feedback",
            "thresholds.table-rates", "0.5..0.9",
            "thresholds.table-runs", "0",
            "thresholds.epsilon-burstiness", "-1",
            "thresholds.loss-acceptable", "2",
            "thresholds.predict-days", "-1");
    bad.forEach(
        (key, value) ->
            assertThatThrownBy(() -> load(Map.of(key, value)))
                .isInstanceOf(CheetahConfig.ConfigException.class)
                .hasMessageContaining(key));
    assertThatThrownBy(() -> load(Map.of("thresholds.table-rates", "1.5")))
        .hasMessageContaining("thresholds.table-rates must be fractions of C in (0, 1], got [1.5]");
    assertThatThrownBy(() -> load(Map.of("thresholds.table-rates", "half")))
        .hasMessageContaining("thresholds.table-rates must be fractions of C");
    // A run must hold a T1 bin after its 10 % warm-up.
    assertThatThrownBy(() -> load(Map.of("thresholds.table-seconds", "0.1")))
        .hasMessageContaining("thresholds.table-seconds");
  }
}
