package net.cheetah.analytics.throughput;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import org.junit.jupiter.api.Test;

class AppInstancesTest {
  private final AppInstances g = new AppInstances(5_000, 3, 0.01);

  static FlowStream s(long startMs, long endMs, long bytes) {
    return new FlowStream("10.0.1.1", "10.0.2.1", startMs, endMs, bytes);
  }

  @Test
  void threeStreamsByTheThreeFormulas() {
    // 10 MB in 10 s, 5 MB in 5 s, 10 MB in 20 s (starting exactly 5 s after the first: same
    // instance).
    // (1) 80e6/10 + 40e6/5 + 80e6/20 = 8e6 + 8e6 + 4e6 = 20e6 bit/s
    // (2) 25e6 B * 8 / ((10 + 5 + 20) / 3 s) = 200e6 * 3 / 35 = 17_142_857.14 bit/s
    // (3) 200e6 / 20 s = 10e6 bit/s
    List<Instance> got =
        g.group(
            List.of(
                s(0, 10_000, 10_000_000),
                s(1_000, 6_000, 5_000_000),
                s(5_000, 25_000, 10_000_000)));
    assertThat(got).hasSize(1);
    Instance i = got.get(0);
    assertThat(i.streamCount()).isEqualTo(3);
    assertThat(i.bytes()).isEqualTo(25_000_000);
    assertThat(i.startMs()).isZero();
    assertThat(i.endMs()).isEqualTo(25_000);
    assertThat(i.sumStreamBps()).isCloseTo(20e6, within(1e-3));
    assertThat(i.meanTimeBps()).isCloseTo(200e6 * 3 / 35, within(1e-3));
    assertThat(i.maxTimeBps()).isCloseTo(10e6, within(1e-3));
    // 20 s against 3 x median(10, 5) = 22.5 s: not a long flow; none of the others either.
    assertThat(i.longFlows()).isZero();
  }

  @Test
  void aStartOneMillisecondPastTheWindowIsANewInstance() {
    List<Instance> got = g.group(List.of(s(0, 10_000, 1_000_000), s(5_001, 9_000, 1_000_000)));
    assertThat(got).extracting(Instance::streamCount).containsExactly(1, 1);
  }

  @Test
  void oneStreamHasEqualFormulas() {
    // 1.25 MB in 2 s: 10e6 / 2 = 5e6 bit/s by all three.
    Instance i = g.group(List.of(s(0, 2_000, 1_250_000))).get(0);
    assertThat(i.sumStreamBps()).isCloseTo(5e6, within(1e-6));
    assertThat(i.meanTimeBps()).isCloseTo(5e6, within(1e-6));
    assertThat(i.maxTimeBps()).isCloseTo(5e6, within(1e-6));
    assertThat(i.longFlows()).isZero();
  }

  @Test
  void zeroDurationHasNoRate() {
    Instance i = g.group(List.of(s(1_000, 1_000, 1_000))).get(0);
    assertThat(i.sumStreamBps()).isNaN();
    assertThat(i.meanTimeBps()).isNaN();
    assertThat(i.maxTimeBps()).isNaN();
  }

  @Test
  void aZeroDurationStreamAddsNoRateButItsBytesCount() {
    // 1 MB in 1 s and 1 MB in 0 s: (1) 8e6 (the second has no rate);
    // (2) 16e6 / mean(1, 0) = 16e6 / 0.5 = 32e6; (3) 16e6 / 1 = 16e6.
    Instance i = g.group(List.of(s(0, 1_000, 1_000_000), s(0, 0, 1_000_000))).get(0);
    assertThat(i.sumStreamBps()).isCloseTo(8e6, within(1e-6));
    assertThat(i.meanTimeBps()).isCloseTo(32e6, within(1e-6));
    assertThat(i.maxTimeBps()).isCloseTo(16e6, within(1e-6));
  }

  @Test
  void aLongFlowIsFlaggedAndFormulaOneBarelyMoves() {
    // Three 15 MB streams in 15 s (8e6 bit/s each) and one reported lasting 700 s (15 MB).
    // 700 > 3 x median(15, 15, 15) = 45: one long flow; 15 > 3 x median(15, 15, 700) = 45: no.
    // (1) 3 x 8e6 + 120e6 / 700 = 24e6 + 171_428.57; (3) 480e6 / 700 = 685_714.29.
    Instance i =
        g.group(
                List.of(
                    s(0, 15_000, 15_000_000),
                    s(0, 15_000, 15_000_000),
                    s(0, 15_000, 15_000_000),
                    s(0, 700_000, 15_000_000)))
            .get(0);
    assertThat(i.longFlows()).isEqualTo(1);
    assertThat(i.sumStreamBps()).isCloseTo(24e6 + 120e6 / 700, within(1e-3));
    assertThat(i.maxTimeBps()).isCloseTo(480e6 / 700, within(1e-3));
  }

  @Test
  void oneLongStreamOfTwoIsFound() {
    // 700 > 3 x 15; 15 < 3 x 700.
    Instance i = g.group(List.of(s(0, 15_000, 1_000_000), s(0, 700_000, 1_000_000))).get(0);
    assertThat(i.longFlows()).isEqualTo(1);
  }

  @Test
  void aControlConnectionIsNotAStream() {
    // iperf3's control connection: 2 KB beside 100 MB streams (< 1% of the largest).
    Instance i =
        g.group(List.of(s(0, 10_000, 100_000_000), s(0, 10_000, 100_000_000), s(0, 10_100, 2_000)))
            .get(0);
    assertThat(i.streamCount()).isEqualTo(2);
    assertThat(i.controlFlows()).isEqualTo(1);
    assertThat(i.bytes()).isEqualTo(200_000_000);
    // (1) 2 x 800e6 / 10 = 160e6.
    assertThat(i.sumStreamBps()).isCloseTo(160e6, within(1e-3));
  }

  @Test
  void pairsAreApart() {
    List<Instance> got =
        g.group(
            List.of(
                new FlowStream("a", "b", 0, 1_000, 1_000),
                new FlowStream("b", "a", 0, 1_000, 1_000),
                new FlowStream("a", "c", 0, 1_000, 1_000)));
    assertThat(got)
        .extracting(i -> i.pair().toString())
        .containsExactly("a -> b", "a -> c", "b -> a");
  }
}
