package net.cheetah.simulator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

/** One TCP flow alone on the port, where its throughput is known. */
class TcpKnownAnswersTest {

  @Test
  void unlimitedRenoFlowFillsAnIdleLink() {
    // Buffer (5 MB) above the bandwidth-delay product (1.25 MB at 10 ms): halving the window
    // never empties the queue, so the link stays busy after slow start.
    TcpCheetah reno =
        new TcpCheetah(0, 0.01, CongestionControl.RENO, 64L << 20, 64L << 20, 10e9, 1500);
    RunResult r = PortSimulation.run(Scenarios.idleLink(reno, 12, 2), 1);
    assertThat(r.cheetahThroughputBps()).isGreaterThan(0.99e9).isLessThanOrEqualTo(1e9 + 1e6);
    assertThat(r.cheetahCongestionEvents()).isPositive();
  }

  @Test
  void unlimitedHtcpFlowFillsAnIdleLinkAtLongRtt() {
    TcpCheetah htcp = TcpCheetah.study(0, 0.1, CongestionControl.HTCP);
    RunResult r = PortSimulation.run(Scenarios.idleLink(htcp, 30, 5), 1);
    assertThat(r.cheetahThroughputBps()).isGreaterThan(0.97e9).isLessThanOrEqualTo(1e9 + 1e6);
  }

  @Test
  void rateLimitedFlowRunsAtItsLimitWithoutLoss() {
    TcpCheetah paced = TcpCheetah.study(600e6, 0.1, CongestionControl.HTCP);
    RunResult r = PortSimulation.run(Scenarios.idleLink(paced, 6, 1), 1);
    assertThat(r.cheetahThroughputBps()).isCloseTo(600e6, within(600e6 * 0.002));
    assertThat(r.cheetahDroppedPackets()).isZero();
    assertThat(r.cheetahMeanDelaySeconds()).isZero();
  }

  @Test
  void bufferLimitedFlowSendsOneWindowPerRtt() {
    // 1 MB buffers: 666 packets of 1500 B per RTT of 100 ms (+ one 12 µs transmission).
    TcpCheetah small =
        new TcpCheetah(0, 0.1, CongestionControl.RENO, 1_000_000L, 4_000_000L, 10e9, 1500);
    RunResult r = PortSimulation.run(Scenarios.idleLink(small, 12, 4), 1);
    double expected = 666 * 1500 * 8 / (0.1 + 12e-6);
    assertThat(r.cheetahThroughputBps()).isCloseTo(expected, within(expected * 0.005));
    assertThat(r.cheetahCongestionEvents()).isZero();
  }
}
