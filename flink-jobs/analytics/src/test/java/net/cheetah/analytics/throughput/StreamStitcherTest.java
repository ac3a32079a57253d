package net.cheetah.analytics.throughput;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import net.cheetah.core.flow.Address;
import net.cheetah.core.flow.Flow;
import net.cheetah.core.flow.FlowKey;
import org.junit.jupiter.api.Test;

class StreamStitcherTest {
  static final Address EXPORTER = Address.parse("192.0.2.254");
  static final FlowKey A = key(40001);
  static final FlowKey B = key(40002);

  static FlowKey key(int srcPort) {
    return new FlowKey(
        EXPORTER, Address.parse("10.0.1.1"), Address.parse("10.0.2.1"), srcPort, 5201, 6);
  }

  static Flow f(FlowKey k, long start, long end, long bytes) {
    return new Flow(k, start, end, bytes, Math.max(1, bytes / 1000), 0, 0);
  }

  @Test
  void recordsCutByTheActiveTimeoutAreOneStream() {
    // 0-60 s, 60-120 s, 120-130 s of one key (gap 0 each time): one stream 0-130 s, 3 + 3 + 1 MB.
    List<FlowStream> s =
        StreamStitcher.stitch(
            List.of(
                f(A, 60_000, 120_000, 3_000_000),
                f(A, 0, 60_000, 3_000_000),
                f(A, 120_000, 130_000, 1_000_000)),
            30_000);
    assertThat(s).containsExactly(new FlowStream("10.0.1.1", "10.0.2.1", 0, 130_000, 7_000_000));
  }

  @Test
  void aRecordPastTheGapIsANewStreamAndKeysStayApart() {
    // A: 0-10 s, then 40,001 ms after its end (gap 30 s + 10,001 ms): two streams. B: its own.
    List<FlowStream> s =
        StreamStitcher.stitch(
            List.of(f(A, 0, 10_000, 1_000), f(A, 40_001, 50_000, 2_000), f(B, 5_000, 6_000, 3_000)),
            30_000);
    assertThat(s)
        .containsExactly(
            new FlowStream("10.0.1.1", "10.0.2.1", 0, 10_000, 1_000),
            new FlowStream("10.0.1.1", "10.0.2.1", 5_000, 6_000, 3_000),
            new FlowStream("10.0.1.1", "10.0.2.1", 40_001, 50_000, 2_000));
  }

  @Test
  void exactlyTheGapIsStitched() {
    List<FlowStream> s =
        StreamStitcher.stitch(List.of(f(A, 0, 10_000, 1_000), f(A, 40_000, 50_000, 2_000)), 30_000);
    assertThat(s).containsExactly(new FlowStream("10.0.1.1", "10.0.2.1", 0, 50_000, 3_000));
  }

  @Test
  void nothingInNothingOut() {
    assertThat(StreamStitcher.stitch(List.of(), 30_000)).isEmpty();
  }
}
