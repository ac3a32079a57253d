package net.cheetah.jobs.thresholds;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import net.cheetah.config.CheetahConfig;
import net.cheetah.core.threshold.ThresholdMode;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.streaming.api.operators.KeyedProcessOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The tag of each window (hour-of-day prediction or its own values) and the table requests: one per
 * tag not within (ε_r 20 Mb/s, ε_b 0.05) of an earlier request on the same capacity, remembered
 * across a restore. Expected tags by hand.
 */
class TableTagFunctionTest {
  private static final long HOUR = 3_600_000L;
  private static final long DAY = 24 * HOUR;
  private KeyedOneInputStreamOperatorTestHarness<String, ThresholdInput, ThresholdInput> h;

  private void open(CheetahConfig.Thresholds cfg) throws Exception {
    h = harness(cfg);
    h.open();
  }

  private static KeyedOneInputStreamOperatorTestHarness<String, ThresholdInput, ThresholdInput>
      harness(CheetahConfig.Thresholds cfg) throws Exception {
    return new KeyedOneInputStreamOperatorTestHarness<>(
        new KeyedProcessOperator<>(new TableTagFunction(cfg)),
        ThresholdInput::linkId,
        TypeInformation.of(String.class));
  }

  @AfterEach
  void close() throws Exception {
    h.close();
  }

  /** The hourly window [start, start + 1 h) of esnet-a. */
  private ThresholdInput hourly(long start, double bg, double b) {
    return ThresholdInput.stats("esnet-a", start, start + HOUR, bg, b, 1e9, false);
  }

  private ThresholdInput send(ThresholdInput in) throws Exception {
    int before = h.extractOutputValues().size();
    h.processElement(new StreamRecord<>(in));
    List<ThresholdInput> out = h.extractOutputValues();
    assertThat(out).hasSize(before + 1);
    return out.get(out.size() - 1);
  }

  private List<TableRequest> requests() {
    var side = h.getSideOutput(TableTagFunction.REQUESTS);
    return side == null ? List.of() : side.stream().map(StreamRecord::getValue).toList();
  }

  @Test
  void aTagIsRequestedOnceWithinTheTolerancesPerCapacity() throws Exception {
    open(ThresholdConfigs.cfg("table", "formula", 0.05));
    ThresholdInput first = send(ThresholdInput.stats("esnet-a", 1_000, 200e6, 0.5, 1e9));
    assertThat(first.tagDays()).isZero();
    assertThat(first.tag()).isEqualTo(first.observed());
    send(ThresholdInput.stats("esnet-a", 2_000, 219e6, 0.45, 1e9)); // within both: no request
    send(ThresholdInput.stats("esnet-a", 3_000, 221e6, 0.5, 1e9)); // 21 Mb/s away: a request
    send(ThresholdInput.stats("esnet-a", 4_000, 200e6, 0.5, 10e9)); // another port: a request
    send(ThresholdInput.stats("esnet-a", 5_000, 200e6, 0.5, 0)); // C 0 = the default 1 Gb/s
    send(ThresholdInput.stats("esnet-a", 6_000, 0, 0, 1e9)); // idle: the formula, no table
    assertThat(requests())
        .containsExactly(
            new TableRequest("esnet-a", 200e6, 0.5, 1e9, 1_000),
            new TableRequest("esnet-a", 221e6, 0.5, 1e9, 3_000),
            new TableRequest("esnet-a", 200e6, 0.5, 10e9, 4_000));

    // A restore keeps what was requested: the same tags are not simulated twice.
    OperatorSubtaskState snapshot = h.snapshot(1, 1);
    h.close();
    h = harness(ThresholdConfigs.cfg("table", "formula", 0.05));
    h.setup();
    h.initializeState(snapshot);
    h.open();
    send(ThresholdInput.stats("esnet-a", 7_000, 205e6, 0.52, 1e9));
    send(ThresholdInput.stats("esnet-a", 8_000, 300e6, 0.5, 1e9));
    assertThat(requests()).containsExactly(new TableRequest("esnet-a", 300e6, 0.5, 1e9, 8_000));
  }

  @Test
  void theHourAheadIsPredictedFromTheSameHourOfEarlierDays() throws Exception {
    open(ThresholdConfigs.cfg("table", "formula", 0.05)); // 7 days back
    long day = 100 * DAY;
    send(hourly(day - 9 * DAY + 14 * HOUR, 900e6, 2.0)); // 9 days back: too old
    send(hourly(day - 2 * DAY + 14 * HOUR, 100e6, 0.2)); // hour 14, two days back
    send(hourly(day - DAY + 14 * HOUR, 300e6, 0.6)); // hour 14, yesterday
    send(hourly(day - DAY + 15 * HOUR, 800e6, 1.5)); // another hour
    send(
        ThresholdInput.stats(
            "esnet-a", day + 13 * HOUR, day + 14 * HOUR, 700e6, 1.0, 1e9, true)); // sliding
    // Today's window [13:00, 14:00) ends at 14:00: R is for hour 14, predicted from 2 days.
    ThresholdInput now = send(hourly(day + 13 * HOUR, 500e6, 0.9));
    assertThat(now.tagDays()).isEqualTo(2);
    assertThat(now.tagBgBps()).isCloseTo(200e6, within(1e-3));
    assertThat(now.tagBurstiness()).isCloseTo(0.4, within(1e-12));
    assertThat(now.meanBgBps()).isEqualTo(500e6); // the window's own values stay
    assertThat(requests())
        .last()
        .isEqualTo(
            new TableRequest("esnet-a", now.tagBgBps(), now.tagBurstiness(), 1e9, now.atMs()));

    // Hour 16 was never seen on earlier days: the window's own values. Hour 15 was: predicted,
    // and a sliding window (not recorded) ending in it gets the prediction too.
    ThresholdInput unseen = send(hourly(day + 15 * HOUR, 400e6, 0.7));
    assertThat(unseen.tagDays()).isZero();
    assertThat(unseen.tag()).isEqualTo(unseen.observed());
    ThresholdInput sliding =
        send(
            ThresholdInput.stats(
                "esnet-a",
                day + 14 * HOUR + 5 * 60_000,
                day + 15 * HOUR + 5 * 60_000,
                1e8,
                0.1,
                1e9,
                true));
    assertThat(sliding.tagDays()).isEqualTo(1);
    assertThat(sliding.tagBgBps()).isEqualTo(800e6);
  }

  @Test
  void noPredictionWhenTurnedOffAndNothingOutsideTableMode() throws Exception {
    CheetahConfig.Thresholds noDays =
        new CheetahConfig.Thresholds(
            ThresholdMode.TABLE,
            ThresholdMode.FORMULA,
            1.0,
            0.1,
            0.001,
            0.0001,
            2,
            50e6,
            0,
            0.05,
            1e9,
            ThresholdConfigs.table(0));
    open(noDays);
    send(hourly(DAY + 14 * HOUR, 100e6, 0.2));
    ThresholdInput next = send(hourly(2 * DAY + 13 * HOUR, 500e6, 0.9));
    assertThat(next.tagDays()).isZero();
    h.close();

    open(ThresholdConfigs.cfg("feedback", "formula", 0.05));
    send(hourly(DAY + 14 * HOUR, 100e6, 0.2));
    ThresholdInput passed = send(hourly(2 * DAY + 13 * HOUR, 500e6, 0.9));
    assertThat(passed.tagDays()).isZero();
    assertThat(requests()).isEmpty();
  }
}
