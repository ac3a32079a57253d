package net.cheetah.jobs.throughput;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import net.cheetah.jobs.codec.Decoders.Refused;
import net.cheetah.schemas.v1.Transfer;
import org.junit.jupiter.api.Test;

/** transfers.v1 records as the throughput job takes them, and the ones it refuses. */
class ThroughputInputsTest {
  private static Transfer.Builder good() {
    return Transfer.newBuilder()
        .setSrcHost("dtn1.site-a.example")
        .setDstHost("dtn2.site-b.example")
        .setTool("iperf3")
        .setStreams(4)
        .setBytes(10_000_000_000L)
        .setSeconds(10)
        .setStartMs(1_000)
        .setEndMs(11_500)
        .setTcpBufferBytes(1 << 24);
  }

  @Test
  void aGoodTransferKeepsItsFieldsAndRate() throws Exception {
    var t = ThroughputInputs.transfer(good().build());
    assertThat(t.activeBps()).isEqualTo(8e9); // 8·1e10 bytes / 10 s
    assertThat(t.bufferBytes()).isEqualTo(1 << 24);
    assertThat(ThroughputInput.of(t).pairKey())
        .isEqualTo("dtn1.site-a.example\ndtn2.site-b.example");
  }

  @Test
  void impossibleTransfersAreRefusedWithTheirReason() {
    assertThatThrownBy(() -> ThroughputInputs.transfer(good().setDstHost("").build()))
        .isInstanceOf(Refused.class)
        .extracting(e -> ((Refused) e).reason())
        .isEqualTo("missing_host");
    assertThatThrownBy(() -> ThroughputInputs.transfer(good().setSrcHost("dtn1\ndtn3").build()))
        .extracting(e -> ((Refused) e).reason())
        .isEqualTo("bad_host");
    assertThatThrownBy(() -> ThroughputInputs.transfer(good().setEndMs(500).build()))
        .extracting(e -> ((Refused) e).reason())
        .isEqualTo("end_before_start");
    assertThatThrownBy(() -> ThroughputInputs.transfer(good().setSeconds(Double.NaN).build()))
        .extracting(e -> ((Refused) e).reason())
        .isEqualTo("bad_seconds");
    assertThatThrownBy(() -> ThroughputInputs.transfer(good().setTool(" ").build()))
        .extracting(e -> ((Refused) e).reason())
        .isEqualTo("missing_tool");
    assertThatThrownBy(() -> ThroughputInputs.transfer(good().setBytes(-1).build()))
        .extracting(e -> ((Refused) e).reason())
        .isEqualTo("bad_count");
  }

  @Test
  void aHostSampleLeavesWhatWasNotSampledNaN() throws Exception {
    var s =
        ThroughputInputs.hostSample(
            net.cheetah.schemas.v1.HostSample.newBuilder()
                .setHost("10.0.2.1")
                .setTimeMs(5_000)
                .setDiskPercent(97.5)
                .setNicBps(1e10)
                .build());
    assertThat(s.host()).isEqualTo("10.0.2.1");
    assertThat(s.ms()).isEqualTo(5_000);
    assertThat(s.cpuPercent()).as("not sampled: NaN, never 0").isNaN();
    assertThat(s.diskPercent()).isEqualTo(97.5);
    assertThat(s.nicPercent()).isNaN();
    assertThat(s.nicBps()).isEqualTo(1e10);
  }

  @Test
  void impossibleHostSamplesAreRefusedWithTheirReason() {
    var good = net.cheetah.schemas.v1.HostSample.newBuilder().setHost("dtn1").setTimeMs(1_000);
    assertThatThrownBy(() -> ThroughputInputs.hostSample(good.clone().setHost(" ").build()))
        .extracting(e -> ((Refused) e).reason())
        .isEqualTo("missing_host");
    assertThatThrownBy(() -> ThroughputInputs.hostSample(good.clone().setHost("a b").build()))
        .extracting(e -> ((Refused) e).reason())
        .isEqualTo("bad_host");
    assertThatThrownBy(() -> ThroughputInputs.hostSample(good.clone().setTimeMs(-1).build()))
        .extracting(e -> ((Refused) e).reason())
        .isEqualTo("bad_time");
    assertThatThrownBy(() -> ThroughputInputs.hostSample(good.clone().setCpuPercent(-3).build()))
        .extracting(e -> ((Refused) e).reason())
        .isEqualTo("bad_percent");
    assertThatThrownBy(
            () -> ThroughputInputs.hostSample(good.clone().setNicPercent(Double.NaN).build()))
        .extracting(e -> ((Refused) e).reason())
        .isEqualTo("bad_percent");
    assertThatThrownBy(
            () ->
                ThroughputInputs.hostSample(
                    good.clone().setNicBps(Double.POSITIVE_INFINITY).build()))
        .extracting(e -> ((Refused) e).reason())
        .isEqualTo("bad_nic_bps");
  }
}
