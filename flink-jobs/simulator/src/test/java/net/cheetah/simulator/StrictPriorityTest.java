package net.cheetah.simulator;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The scheduler checked from outside, on the log of every transmission. */
class StrictPriorityTest {
  private record Service(int queue, double arrival, double start, int bytes) {}

  @Test
  void scavengerIsNeverServedWhilePrimaryHasPackets() {
    // Bursty background (λ = 10) and an unlimited redirected cheetah: both queues stay busy.
    TcpCheetah unlimited = TcpCheetah.study(0, 0.01, CongestionControl.RENO);
    Scenario s =
        new Scenario(
            PortConfig.study(), ParetoBursts.study(10), Optional.of(unlimited), true, 4, 0.5, 0.1);
    List<Service> log = new ArrayList<>();
    PortSimulation.run(s, 5, (q, a, st, b, tag) -> log.add(new Service(q, a, st, b)));

    List<Service> primary = log.stream().filter(x -> x.queue() == 0).toList();
    List<Service> scavenger = log.stream().filter(x -> x.queue() == 1).toList();
    assertThat(primary).hasSizeGreaterThan(10_000);
    assertThat(scavenger).hasSizeGreaterThan(10_000);

    // A primary packet waits during [arrival, start); no scavenger packet may start inside it.
    int violations = 0;
    int p = 0;
    double[] waitEnds = primary.stream().mapToDouble(Service::start).toArray();
    double[] waitStarts = primary.stream().mapToDouble(Service::arrival).toArray();
    for (Service sc : scavenger) {
      while (p < waitEnds.length && waitEnds[p] <= sc.start()) {
        p++;
      }
      // Primary is FIFO: packet p is the first still waiting or not yet arrived at sc.start.
      if (p < waitStarts.length && waitStarts[p] < sc.start()) {
        violations++;
      }
    }
    assertThat(violations).isZero();

    // Non-preemptive, one packet at a time at 1 Gb/s.
    for (int i = 1; i < log.size(); i++) {
      Service prev = log.get(i - 1);
      assertThat(log.get(i).start())
          .isGreaterThanOrEqualTo(prev.start() + prev.bytes() * 8 / 1e9 - 1e-12);
    }
  }
}
