package net.cheetah.analytics.throughput;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.ArrayList;
import java.util.List;
import net.cheetah.analytics.throughput.Prca.Cause;
import net.cheetah.analytics.throughput.Prca.Report;
import net.cheetah.analytics.throughput.Prca.Scope;
import org.junit.jupiter.api.Test;

class PrcaTest {
  private final Prca p = new Prca(0.8, 90, 3_600_000, 24);
  private static final long HOUR = 3_600_000L;
  private static final String W = "10.0.1.1";
  private static final String V = "10.0.2.1";
  private static final String IDC = "10.0.2.7";

  /** A 10 s transfer at {@code mbps}: bytes = mbps x 1e6 x 10 / 8. */
  static Transfer t(String src, String dst, int streams, double mbps, long start, long buffer) {
    return new Transfer(
        src,
        dst,
        "iperf3",
        streams,
        (long) (mbps * 1e6 * 10 / 8),
        10,
        start,
        start + 10_000,
        buffer);
  }

  @Test
  void sitesArePrefixesOrDomains() {
    assertThat(p.site("10.0.2.7")).isEqualTo("10.0.2.0/24");
    assertThat(p.site("fdt.wisc.edu")).isEqualTo("wisc.edu");
    assertThat(p.site("localhost")).isEqualTo("localhost");
    assertThat(p.site("2001:db8:1:2::5")).isEqualTo("2001:db8:1::/48");
  }

  @Test
  void oneStreamAgainstFourNamesTheStreamCount() {
    // 4 streams: 940 x 5 (median 940); 1 stream: 630 x 5 (median 630 < 0.8 x 940 = 752): one
    // report for the 1-stream cluster, from its first transfer (01:00) to its last's end.
    List<Transfer> tr = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      tr.add(t(W, V, 4, 940, (2 * i) * HOUR, 0));
      tr.add(t(W, V, 1, 630, (2 * i + 1) * HOUR, 0));
    }
    Report r = p.analyse(tr, List.of()).stream().collect(onlyOne());
    assertThat(r.scope()).isEqualTo(Scope.CLUSTER);
    assertThat(r.cause()).isEqualTo(Cause.STATIC);
    assertThat(r.detail()).isEqualTo("streams 1 (best 4)");
    assertThat(r.transfers()).isEqualTo(5);
    assertThat(r.startMs()).isEqualTo(HOUR);
    assertThat(r.endMs()).isEqualTo(9 * HOUR + 10_000);
    assertThat(r.bps()).isCloseTo(630e6, within(1.0));
    assertThat(r.reference().medianBps()).isCloseTo(940e6, within(1.0));
    assertThat(r.pairAchievableBps()).isCloseTo(940e6, within(1.0));
  }

  private static java.util.stream.Collector<Report, ?, Report> onlyOne() {
    return java.util.stream.Collectors.collectingAndThen(
        java.util.stream.Collectors.toList(),
        l -> {
          assertThat(l).hasSize(1);
          return l.get(0);
        });
  }

  @Test
  void aSmallWindowIsNamed() {
    List<Transfer> tr = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      tr.add(t(W, V, 1, 900, (2 * i) * HOUR, 4 << 20));
      tr.add(t(W, V, 1, 100, (2 * i + 1) * HOUR, 64 << 10));
    }
    Report r = p.analyse(tr, List.of()).stream().collect(onlyOne());
    assertThat(r.detail()).isEqualTo("buffer 65536 (best 4194304)");
  }

  @Test
  void aPeerWithASaturatedDiskNamesTheReceiversDisk() {
    // W -> V at 630 and W -> IDC at 214 (same site pair: peers), same settings; IDC's disk at
    // 97-99%
    // during its transfers, and the sender's CPU at 95% (below the disk) during one of them.
    List<Transfer> tr = new ArrayList<>();
    List<HostSample> s = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      tr.add(t(W, V, 1, 630, (2 * i) * HOUR, 0));
      long at = (2 * i + 1) * HOUR;
      tr.add(t(W, IDC, 1, 214, at, 0));
      s.add(new HostSample(IDC, at + 2_000, 20, 97, 30, 0));
      s.add(new HostSample(IDC, at + 8_000, 25, 99, 30, 0));
      s.add(new HostSample(IDC, at + 20_000, 0, 0, 0, 0)); // after the transfer: not counted
    }
    s.add(new HostSample(W, HOUR + 5_000, 95, Double.NaN, 10, 0));
    // Disk (97 + 99) / 2 = 98% >= 90%; the sender's CPU 95% is lower.
    Report r = p.analyse(tr, s).stream().collect(onlyOne());
    assertThat(r.cause()).isEqualTo(Cause.RESOURCE);
    assertThat(r.detail()).isEqualTo("receiver disk 98%");
    assertThat(r.pairAchievableBps()).isCloseTo(214e6, within(1.0));
    assertThat(r.reference().pair()).isEqualTo(new HostPair(W, V));
  }

  @Test
  void theSamePeerWithoutSamplesIsAHostCause() {
    List<Transfer> tr = List.of(t(W, V, 1, 630, 0, 0), t(W, IDC, 1, 214, HOUR * 2, 0));
    assertThat(p.analyse(tr, List.of()))
        .singleElement()
        .extracting(Report::cause)
        .isEqualTo(Cause.HOST);
  }

  @Test
  void allPeersSlowTogetherIsTheNetwork() {
    // Two peer pairs at 900 every other hour; at 20:00 both at 300 (< 0.8 x their median 900).
    List<Transfer> tr = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      tr.add(t(W, V, 4, 900, (2 * i) * HOUR, 0));
      tr.add(t(W, IDC, 4, 900, (2 * i) * HOUR + 60_000, 0));
    }
    tr.add(t(W, V, 4, 300, 20 * HOUR, 0));
    tr.add(t(W, IDC, 4, 300, 20 * HOUR + 60_000, 0));
    List<Report> r = p.analyse(tr, List.of());
    assertThat(r)
        .hasSize(2)
        .allMatch(x -> x.cause() == Cause.NETWORK && x.scope() == Scope.TRANSFER);
    assertThat(r).extracting(Report::startMs).containsExactly(20 * HOUR, 20 * HOUR + 60_000);
    assertThat(r.get(0).detail())
        .isEqualTo("all 1 transfer(s) of peer pairs within 3600 s were slow too");
  }

  @Test
  void aLoneSlowTransferIsNotTheNetwork() {
    // The peer's 20:00 transfer is at its usual 900: nothing to report (no cluster is slow).
    List<Transfer> tr = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      tr.add(t(W, V, 4, 900, (2 * i) * HOUR, 0));
      tr.add(t(W, IDC, 4, 900, (2 * i) * HOUR + 60_000, 0));
    }
    tr.add(t(W, V, 4, 300, 20 * HOUR, 0));
    tr.add(t(W, IDC, 4, 900, 20 * HOUR + 60_000, 0));
    assertThat(p.analyse(tr, List.of())).isEmpty();
  }

  @Test
  void aSlowTransferWithoutPeersIsNotTheNetwork() {
    List<Transfer> tr = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      tr.add(t(W, V, 4, 900, i * HOUR, 0));
    }
    tr.add(t(W, V, 4, 300, 5 * HOUR, 0));
    assertThat(p.analyse(tr, List.of())).isEmpty();
  }

  @Test
  void otherSitePairsAreNotPeers() {
    // 10.0.3.1 is another site: its 100 is compared with nothing faster.
    List<Transfer> tr = List.of(t(W, V, 4, 900, 0, 0), t(W, "10.0.3.1", 4, 100, HOUR, 0));
    assertThat(p.analyse(tr, List.of())).isEmpty();
  }

  @Test
  void nicRatesAreStaticSettings() {
    List<Transfer> tr = List.of(t(W, V, 1, 900, 0, 0), t(W, IDC, 1, 95, HOUR, 0));
    List<HostSample> s =
        List.of(
            new HostSample(V, 0, Double.NaN, Double.NaN, Double.NaN, 10e9),
            new HostSample(IDC, 0, Double.NaN, Double.NaN, Double.NaN, 100e6));
    Report r = p.analyse(tr, s).get(0);
    assertThat(r.cause()).isEqualTo(Cause.STATIC);
    assertThat(r.detail()).isEqualTo("receiver NIC 100000000 bit/s (best 10000000000)");
  }
}
