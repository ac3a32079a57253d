package net.cheetah.simulator;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import net.cheetah.threshold.BackgroundTag;
import net.cheetah.threshold.LossTable;
import net.cheetah.threshold.TableParams;
import net.cheetah.threshold.TableThreshold;
import net.cheetah.threshold.ThresholdDecision;
import org.junit.jupiter.api.Test;

/** A loss table built by the simulator feeds table mode end to end. */
class LossTableBuilderTest {

  @Test
  void tableForASmoothTagAllowsMoreThanForABurstyOne() {
    try (PointRunner runner = new PointRunner(Runtime.getRuntime().availableProcessors())) {
      LossTableBuilder builder =
          new LossTableBuilder(
              new LossTableBuilder.Plan(
                  PortConfig.study(),
                  0.5,
                  0.1,
                  List.of(300e6, 550e6, 750e6),
                  TcpCheetah.study(0, 0.1, CongestionControl.HTCP),
                  6,
                  5,
                  8,
                  2,
                  0.1),
              runner);
      // The burstiness measured at λ = 20 must calibrate back to a λ near 20.
      double b20 = runner.run(Scenarios.backgroundOnly(20, 8), 6, 5).bgBurstiness().mean();
      double lambda = builder.lambdaFor(new BackgroundTag(200e6, b20));
      assertThat(lambda).isBetween(14.0, 28.0);

      TableParams p = new TableParams(1e-4, 20e6, 0.05, 0.1, 50e6);
      LossTable bursty = builder.build(new BackgroundTag(200e6, b20));
      LossTable smooth = builder.build(new BackgroundTag(200e6, 0.12));
      assertThat(bursty.rttSeconds()).isEqualTo(0.1);
      ThresholdDecision rb = TableThreshold.choose(bursty, p);
      ThresholdDecision rs = TableThreshold.choose(smooth, p);
      assertThat(rs.rateBps()).isEqualTo(750e6);
      assertThat(rb.rateBps()).isLessThan(rs.rateBps());
    }
  }
}
