package net.cheetah.jobs.throughput;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import net.cheetah.config.CheetahConfig;
import net.cheetah.core.flow.Address;
import net.cheetah.core.flow.Flow;
import net.cheetah.core.flow.FlowKey;
import net.cheetah.jobs.flink.KeyedBytes;
import net.cheetah.schemas.v1.Throughput;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.apache.flink.streaming.util.ProcessFunctionTestHarnesses;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The host-pair operator in event time: when an instance closes (gap G = 1 s, active timeout 2 s,
 * instance window 5 s), and when a pair's series are forgotten (throughput.pair-ttl-days = 8).
 */
class ThroughputFunctionTest {
  static final long DAY = 86_400_000L;
  static final CheetahConfig CFG =
      CheetahConfig.load(
          Optional.empty(),
          Map.of("detection.gap-ms", "1000", "detection.active-timeout-ms", "2000"));

  private KeyedOneInputStreamOperatorTestHarness<String, ThroughputInput, KeyedBytes> h;

  @BeforeEach
  void open() throws Exception {
    h =
        ProcessFunctionTestHarnesses.forKeyedProcessFunction(
            new ThroughputFunction(CFG.throughput(), CFG.detection()),
            ThroughputInput::pairKey,
            TypeInformation.of(String.class));
  }

  @AfterEach
  void close() throws Exception {
    h.close();
  }

  private void flow(int port, long start, long end, long bytes) throws Exception {
    FlowKey k =
        new FlowKey(
            Address.parse("192.0.2.1"),
            Address.parse("10.0.1.1"),
            Address.parse("10.0.2.1"),
            port,
            5201,
            6);
    h.processElement(
        new StreamRecord<>(ThroughputInput.of(new Flow(k, start, end, bytes, 1, 0, 0)), end));
  }

  private List<Throughput> rows() {
    return h.extractOutputValues().stream()
        .map(
            kb -> {
              try {
                return Throughput.parseFrom(kb.value());
              } catch (Exception e) {
                throw new AssertionError(e);
              }
            })
        .toList();
  }

  @Test
  void anInstanceClosesWhenNoMemberCanStartOrBeContinued() throws Exception {
    // Streams [0, 10 s] of 1.25e9 B and [4 s, 8 s] of 0.5e9 B: close = max(0 + 5 s, 10 s + 1 s)
    // + 2 s = 13 s. (1) 8·1.25e9/10 + 8·0.5e9/4 = 2e9; (2) 8·1.75e9 / 7 = 2e9; (3) 1.4e9.
    flow(1, 0, 10_000, 1_250_000_000L);
    flow(2, 4_000, 8_000, 500_000_000L);
    h.processWatermark(12_999);
    assertThat(rows()).isEmpty();
    h.processWatermark(13_000);
    Throughput r = rows().get(0);
    assertThat(rows()).hasSize(1);
    assertThat(r.getStreams()).isEqualTo(2);
    assertThat(r.getSumStreamBps()).isCloseTo(2e9, within(1e-3));
    assertThat(r.getMeanTimeBps()).isCloseTo(2e9, within(1e-3));
    assertThat(r.getMaxTimeBps()).isCloseTo(1.4e9, within(1e-3));
    // A record of the same stream continuing it, late: an instance of its own, never a change.
    flow(1, 10_500, 11_000, 1000);
    h.processWatermark(20_000);
    assertThat(rows()).hasSize(2);
    assertThat(rows().get(1).getStartMs()).isEqualTo(10_500);
  }

  @Test
  void aPairsSeriesIsForgottenAfterItsTimeToLive() throws Exception {
    flow(1, 0, 10_000, 1_250_000_000L);
    h.processWatermark(20_000);
    // 7 days later: the series goes on (EWMA forecast = the first rate, 1e9).
    flow(1, 7 * DAY, 7 * DAY + 10_000, 2_500_000_000L);
    h.processWatermark(7 * DAY + 20_000);
    assertThat(rows().get(1).getForecastEwmaBps()).isCloseTo(1e9, within(1e-3));
    // 8 days after its latest observation (and the day's end): forgotten, a new series starts.
    h.processWatermark(16 * DAY);
    flow(1, 16 * DAY, 16 * DAY + 10_000, 2_500_000_000L);
    h.processWatermark(16 * DAY + 20_000);
    assertThat(rows()).hasSize(3);
    assertThat(rows().get(2).getForecastEwmaBps()).isNaN();
  }
}
