package net.cheetah.jobs.thresholds;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import net.cheetah.config.CheetahConfig;
import net.cheetah.jobs.flink.KeyedBytes;
import net.cheetah.schemas.v1.Threshold;
import net.cheetah.schemas.v1.ThresholdMode;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedTwoInputStreamOperatorTestHarness;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** R per link from statistics (formula) and SNMP discards (feedback), computed by hand. */
class ThresholdFunctionTest {
  static CheetahConfig.Thresholds cfg(String mode) {
    return ThresholdConfigs.cfg(mode, "formula", 0.05);
  }

  private KeyedTwoInputStreamOperatorTestHarness<String, ThresholdInput, BuiltTable, KeyedBytes> h;

  private void open(String mode) throws Exception {
    h = ThresholdConfigs.harness(cfg(mode));
    h.open();
  }

  @AfterEach
  void close() throws Exception {
    h.close();
  }

  private void send(ThresholdInput in) throws Exception {
    h.processElement1(new StreamRecord<>(in));
  }

  private List<Threshold> out() throws Exception {
    List<Threshold> t = new java.util.ArrayList<>();
    for (KeyedBytes b : h.extractOutputValues()) {
      t.add(Threshold.parseFrom(b.value()));
    }
    return t;
  }

  @Test
  void formulaModePublishesANewVersionOnlyWhenRMovesEnough() throws Exception {
    open("formula");
    // 200 Mb/s background, b = 0.5 on 1 Gb/s: alpha = 1/1.5, R = 800 Mb/s / 1.5 = 533.3 Mb/s.
    send(ThresholdInput.stats("esnet-a", 1_000, 200e6, 0.5, 1e9));
    send(ThresholdInput.stats("esnet-a", 2_000, 210e6, 0.5, 1e9)); // R 526.7: -1.25 %, kept
    // 600 Mb/s, b = 1: alpha 0.5, R = 0.5 * 400 = 200 Mb/s.
    send(ThresholdInput.stats("esnet-a", 3_000, 600e6, 1.0, 1e9));
    List<Threshold> t = out();
    assertThat(t).extracting(Threshold::getVersion).containsExactly(1L, 2L);
    assertThat(t.get(0).getRateBps()).isCloseTo(800e6 / 1.5, within(1e-3));
    assertThat(t.get(0).getAlphaBg()).isCloseTo(1 / 1.5, within(1e-12));
    assertThat(t.get(0).getMode()).isEqualTo(ThresholdMode.THRESHOLD_MODE_FORMULA);
    assertThat(t.get(0).getReason()).startsWith("R = α_bg");
    assertThat(t.get(1).getRateBps()).isCloseTo(200e6, within(1e-3));
    assertThat(t.get(1).getComputedMs()).isEqualTo(3_000);
  }

  @Test
  void discardsAboveTheAcceptableLossLowerRAndACalmLinkRaisesItBack() throws Exception {
    open("feedback");
    send(ThresholdInput.stats("esnet-a", 1_000, 200e6, 0.5, 1e9)); // v1: 533.3 Mb/s
    send(ThresholdInput.poll("esnet-a", 10_000, 1_000, 0, true)); // the first poll: a baseline
    send(ThresholdInput.poll("esnet-a", 20_000, 11_000, 100, false)); // 100 / 10,100 = 0.99 %
    send(ThresholdInput.poll("esnet-a", 25_000, 5, 0, true)); // agent restart: no difference
    send(ThresholdInput.poll("esnet-a", 30_000, 10_005, 100, false)); // 0.99 % again: 2 polls
    List<Threshold> t = out();
    assertThat(t).extracting(Threshold::getVersion).containsExactly(1L, 2L);
    assertThat(t.get(1).getMode()).isEqualTo(ThresholdMode.THRESHOLD_MODE_FEEDBACK);
    assertThat(t.get(1).getRateBps()).isCloseTo(800e6 / 1.5 - 50e6, within(1e-3));
    assertThat(t.get(1).getMeasuredLoss()).isCloseTo(100.0 / 10_100, within(1e-12));
    assertThat(t.get(1).getReason()).contains("exceeds l_acpt");

    // New statistics keep the correction: the formula's R minus 50 Mb/s, not republished.
    send(ThresholdInput.stats("esnet-a", 40_000, 200e6, 0.5, 1e9));
    assertThat(out()).hasSize(2);

    // A restore from a checkpoint continues the loop; two calm polls raise R back.
    OperatorSubtaskState snapshot = h.snapshot(1, 1);
    h.close();
    h = ThresholdConfigs.harness(cfg("feedback"));
    h.setup();
    h.initializeState(snapshot);
    h.open();
    send(ThresholdInput.poll("esnet-a", 50_000, 20_005, 100, false));
    send(ThresholdInput.poll("esnet-a", 60_000, 30_005, 100, false));
    List<Threshold> after = out();
    assertThat(after).extracting(Threshold::getVersion).containsExactly(3L);
    assertThat(after.get(0).getRateBps()).isCloseTo(800e6 / 1.5, within(1e-3));
    assertThat(after.get(0).getReason()).contains("link calm");
  }
}
