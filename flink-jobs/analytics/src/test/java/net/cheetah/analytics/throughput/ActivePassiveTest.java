package net.cheetah.analytics.throughput;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import net.cheetah.analytics.throughput.ActivePassive.Agreement;
import net.cheetah.analytics.throughput.ActivePassive.Match;
import net.cheetah.analytics.throughput.Instance.Formula;
import org.junit.jupiter.api.Test;

class ActivePassiveTest {
  private final AppInstances g = new AppInstances(5_000, 3, 0.01);

  /** (1) 20e6, (2) 120e6/7 = 17.142857e6, (3) 10e6 bit/s (AppInstancesTest's first case). */
  private Instance threeStreams(long at) {
    return g.group(
            List.of(
                AppInstancesTest.s(at, at + 10_000, 10_000_000),
                AppInstancesTest.s(at + 1_000, at + 6_000, 5_000_000),
                AppInstancesTest.s(at + 5_000, at + 25_000, 10_000_000)))
        .get(0);
  }

  private static Transfer t(String tool, int streams, long bytes, double secs, long start) {
    return new Transfer(
        "10.0.1.1", "10.0.2.1", tool, streams, bytes, secs, start, start + (long) (secs * 1000), 0);
  }

  @Test
  void errByFormula() {
    // iperf-like: 25 MB over 10 s = 20e6 bit/s.
    // err1 = (20 - 20) / 20 = 0; err2 = (120/7 - 20) / (120/7) = 1 - 140/120 = -1/6;
    // err3 = (10 - 20) / 10 = -1.
    Match m =
        ActivePassive.match(List.of(t("iperf3", 3, 25_000_000, 10, 0)), List.of(threeStreams(0)))
            .get(0);
    assertThat(m.err(Formula.SUM_STREAM)).isCloseTo(0, within(1e-12));
    assertThat(m.err(Formula.MEAN_TIME)).isCloseTo(-1.0 / 6, within(1e-12));
    assertThat(m.err(Formula.MAX_TIME)).isCloseTo(-1, within(1e-12));
  }

  @Test
  void matchNeedsPairOverlapAndStreamCount() {
    Instance i = threeStreams(0);
    assertThat(ActivePassive.match(List.of(t("x", 2, 1, 10, 0)), List.of(i))).isEmpty();
    assertThat(ActivePassive.match(List.of(t("x", 3, 1, 10, 30_000)), List.of(i))).isEmpty();
    Transfer other = new Transfer("10.0.2.1", "10.0.1.1", "x", 3, 1, 10, 0, 10_000, 0);
    assertThat(ActivePassive.match(List.of(other), List.of(i))).isEmpty();
    // Unknown stream count (0) matches any.
    assertThat(ActivePassive.match(List.of(t("x", 0, 1, 10, 0)), List.of(i))).hasSize(1);
  }

  @Test
  void theLongestOverlapWinsAndAnInstanceIsMatchedOnce() {
    // Instances at [0, 25 s] and [20 s, 45 s]: a transfer at [18 s, 28 s] overlaps them 7 s and 8
    // s.
    Instance a = threeStreams(0);
    Instance b = threeStreams(20_000);
    List<Match> got =
        ActivePassive.match(
            List.of(t("x", 3, 1, 10, 18_000), t("x", 3, 1, 10, 19_000)), List.of(a, b));
    assertThat(got).hasSize(2);
    assertThat(got.get(0).instance()).isSameAs(b);
    assertThat(got.get(1).instance()).isSameAs(a);
  }

  @Test
  void correlationAndBestFormulaPerTool() {
    // Single-stream instances: all formulas equal. Passive 10, 20, 30 Mbit/s; active 11, 19, 33.
    // dx = -10, 0, 10; dy = -10, -2, 12; Sxy = 220, Sxx = 200, Syy = 248:
    // R = 220 / sqrt(200 x 248) = 220 / 222.7106 = 0.987829.
    List<Instance> inst = List.of(one(0, 10), one(100_000, 20), one(200_000, 30));
    List<Transfer> tr =
        List.of(
            t("iperf3", 1, 11_000_000, 8, 0), // 11e6 B x 8 / 8 s = 11e6 bit/s
            t("iperf3", 1, 19_000_000, 8, 100_000),
            t("iperf3", 1, 33_000_000, 8, 200_000));
    List<Agreement> a = ActivePassive.compare(ActivePassive.match(tr, inst));
    assertThat(a).hasSize(3);
    Agreement one = a.get(0);
    assertThat(one.formula()).isEqualTo(Formula.SUM_STREAM);
    assertThat(one.n()).isEqualTo(3);
    assertThat(one.r()).isCloseTo(220 / Math.sqrt(200 * 248), within(1e-9));
    // err = (p - a) / p: (10-11)/10 = -0.1, (20-19)/20 = 0.05, (30-33)/30 = -0.1: median -0.1,
    // mean |err| = 0.25 / 3.
    assertThat(one.errMedian()).isCloseTo(-0.1, within(1e-12));
    assertThat(one.errMeanAbs()).isCloseTo(0.25 / 3, within(1e-12));
  }

  /**
   * One stream lasting 8 s that carries mbps x 1e6 bit/s: bytes = mbps x 1e6 x 8 / 8 = mbps x 1e6.
   */
  private static Instance one(long at, double mbps) {
    return new AppInstances(5_000, 3, 0.01)
        .group(List.of(AppInstancesTest.s(at, at + 8_000, (long) (mbps * 1e6))))
        .get(0);
  }

  @Test
  void eachToolGetsTheFormulaItComputesLike() {
    // iperf3 reports formula 1 (20e6 over 10 s = 25 MB), bbftp formula 3 (10e6 over 20 s = 25 MB).
    List<Match> m =
        ActivePassive.match(
            List.of(t("iperf3", 3, 25_000_000, 10, 0), t("bbftp", 3, 25_000_000, 20, 100_000)),
            List.of(threeStreams(0), threeStreams(100_000)));
    List<Agreement> a = ActivePassive.compare(m);
    assertThat(
            a.stream().filter(Agreement::bestForTool).map(x -> x.tool() + ":" + x.formula().number))
        .containsExactlyInAnyOrder("iperf3:1", "bbftp:3");
  }

  @Test
  void oneMatchHasNoCorrelation() {
    List<Agreement> a =
        ActivePassive.compare(
            ActivePassive.match(
                List.of(t("iperf3", 3, 25_000_000, 10, 0)), List.of(threeStreams(0))));
    assertThat(a.get(0).n()).isEqualTo(1);
    assertThat(a.get(0).r()).isNaN();
  }

  @Test
  void twoEqualInstancesAreMatchedToTwoTransfers() {
    // The same flows reported by two exporters give two equal instances: each matches once.
    List<Match> got =
        ActivePassive.match(
            List.of(t("x", 3, 1, 10, 0), t("x", 3, 1, 10, 0)),
            List.of(threeStreams(0), threeStreams(0)));
    assertThat(got).hasSize(2);
    assertThat(got.get(0).instance()).isNotSameAs(got.get(1).instance());
  }
}
