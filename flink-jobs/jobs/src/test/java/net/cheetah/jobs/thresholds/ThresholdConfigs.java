package net.cheetah.jobs.thresholds;

import java.util.List;
import net.cheetah.config.CheetahConfig;
import net.cheetah.jobs.flink.KeyedBytes;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.streaming.api.operators.co.KeyedCoProcessOperator;
import org.apache.flink.streaming.util.KeyedTwoInputStreamOperatorTestHarness;

/** The threshold tests' configuration and harness. */
final class ThresholdConfigs {
  private ThresholdConfigs() {}

  /**
   * k = 1, alpha_min 0.1; l_acpt 0.1 %, calm 0.01 %, 2 polls, step 50 Mb/s, floor 0, C 1 Gb/s;
   * tables: ε_r 20 Mb/s, ε_b 0.05, RTT 100 ms, a tiny simulator plan, 7 days of prediction.
   */
  static CheetahConfig.Thresholds cfg(String mode, String feedbackBase, double minChange) {
    return new CheetahConfig.Thresholds(
        CheetahConfig.Thresholds.MODE.parse(mode),
        CheetahConfig.Thresholds.FEEDBACK_BASE.parse(feedbackBase),
        1.0,
        0.1,
        0.001,
        0.0001,
        2,
        50e6,
        0,
        minChange,
        1e9,
        table(7));
  }

  /** 3 rates (20, 50, 80 % of C), 2 runs of 2 s per rate, seed 1, T1 100 ms. */
  static CheetahConfig.Table table(int predictDays) {
    return new CheetahConfig.Table(
        20e6, 0.05, 100, List.of(0.2, 0.5, 0.8), 2, 2, 1, 1, 60_000, predictDays, 5_000_000, 100);
  }

  static KeyedTwoInputStreamOperatorTestHarness<String, ThresholdInput, BuiltTable, KeyedBytes>
      harness(CheetahConfig.Thresholds cfg) throws Exception {
    return new KeyedTwoInputStreamOperatorTestHarness<>(
        new KeyedCoProcessOperator<>(new ThresholdFunction(cfg)),
        ThresholdInput::linkId,
        BuiltTable::linkId,
        TypeInformation.of(String.class));
  }
}
