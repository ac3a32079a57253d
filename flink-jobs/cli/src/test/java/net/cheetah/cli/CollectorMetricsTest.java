package net.cheetah.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

/** goflow2's counters and its ready line, as the stack reads them (values by hand). */
class CollectorMetricsTest {
  @Test
  void sumsEverySeriesOfOneMetricOnly() {
    String page =
        "# HELP cheetah_goflow2_socket_drops_total Datagrams ...\n"
            + "# TYPE cheetah_goflow2_socket_drops_total counter\n"
            + "cheetah_goflow2_socket_drops_total{local_port=\"2055\"} 7\n"
            + "cheetah_goflow2_socket_drops_total{local_port=\"6343\"} 1e+06\n"
            + "cheetah_goflow2_socket_drops_total_other 5\n";
    assertThat(CollectorMetrics.sum(page, CollectorMetrics.KERNEL_DROPS)).isEqualTo(1_000_007);
    assertThat(CollectorMetrics.sum(page, "absent_metric")).isZero();
  }

  @Test
  void unreachableMetricsAreEmptyNotAnError() {
    assertThat(CollectorMetrics.read("http://127.0.0.1:1/metrics", CollectorMetrics.KERNEL_DROPS))
        .isEmpty();
  }

  @Test
  void theReceiveBufferLineWarnsWhenTheKernelGrantedLess() {
    assertThat(
            Collector.receiveBufferLine(
                Map.of("event", "ready", "rcvbuf_asked", "4194304", "rcvbuf_bytes", "8388608")))
        .isEqualTo(
            "goflow2's UDP receive buffer: 8,388,608 bytes granted"
                + " (netflow.receive-buffer-bytes=4194304, doubled by the kernel)");
    String capped =
        Collector.receiveBufferLine(
            Map.of("event", "ready", "rcvbuf_asked", "8388608", "rcvbuf_bytes", "8388608"));
    assertThat(capped)
        .startsWith(
            "WARNING: goflow2's UDP receive buffer is 8,388,608 bytes, below the 16,777,216")
        .contains("sysctl -w net.core.rmem_max=8388608");
    assertThat(
            Collector.receiveBufferLine(
                Map.of("event", "ready", "rcvbuf_asked", "0", "rcvbuf_bytes", "425984")))
        .contains("425,984 bytes (the kernel's default");
  }
}
