package net.cheetah.simulator;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class DeterminismTest {

  @Test
  void sameSeedSameRunDifferentSeedDifferentRun() {
    Scenario s = Scenarios.study(10, 700e6, 0.1, false, 5);
    assertThat(PortSimulation.run(s, 42)).isEqualTo(PortSimulation.run(s, 42));
    assertThat(PortSimulation.run(s, 42)).isNotEqualTo(PortSimulation.run(s, 43));
  }

  @Test
  void resultsDoNotDependOnTheThreadCount() {
    Scenario s = Scenarios.study(20, 800e6, 0.1, true, 4);
    List<RunResult> one;
    List<RunResult> three;
    PointResult pOne;
    PointResult pThree;
    try (PointRunner r1 = new PointRunner(1);
        PointRunner r3 = new PointRunner(3)) {
      one = r1.runAll(s, 6, 7);
      three = r3.runAll(s, 6, 7);
      pOne = r1.run(s, 6, 7);
      pThree = r3.run(s, 6, 7);
    }
    assertThat(three).isEqualTo(one);
    assertThat(pThree.bgLossRate()).isEqualTo(pOne.bgLossRate());
    assertThat(pThree.throughputRatio()).isEqualTo(pOne.throughputRatio());
  }

  @Test
  void backgroundIsTheSameWhateverTheCheetahDoes() {
    // Common random numbers: one seed, one background, so points differ only by the cheetah.
    RunResult slow = PortSimulation.run(Scenarios.study(10, 100e6, 0.01, false, 5), 9);
    RunResult fast = PortSimulation.run(Scenarios.study(10, 900e6, 0.1, true, 5), 9);
    assertThat(fast.bgOfferedPackets()).isEqualTo(slow.bgOfferedPackets());
    assertThat(fast.bgBurstiness()).isEqualTo(slow.bgBurstiness());
  }
}
