package net.cheetah.jobs.cheetah;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import net.cheetah.config.CheetahConfig.Detection;
import net.cheetah.core.flow.Address;
import net.cheetah.core.flow.CheetahEvent;
import net.cheetah.core.flow.Flow;
import net.cheetah.core.flow.FlowKey;
import net.cheetah.core.flow.Flowset;
import net.cheetah.jobs.flink.Loopback;
import org.apache.flink.api.common.RuntimeExecutionMode;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.util.CloseableIterator;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The cheetah and flowset operators on a MiniCluster, fed out of order, in streaming and in batch
 * execution: both must give the hand-computed result.
 */
class PipelineTest {
  @RegisterExtension
  static final MiniClusterExtension FLINK =
      new MiniClusterExtension(
          new MiniClusterResourceConfiguration.Builder()
              .setConfiguration(Loopback.configuration())
              .setNumberTaskManagers(1)
              .setNumberSlotsPerTaskManager(2)
              .build());

  /**
   * H = 1000 B, I = 60 s, G = 30 s, τ = 10 s, lateness 60 s, active timeout 20 s. The input comes
   * in reverse time order (up to 90 s apart), so the watermark bound is 200 s: a periodic watermark
   * firing mid-input must not make the rest of it late.
   */
  static final Detection D =
      new Detection(1000, 60_000, 30_000, 10_000, 60_000, 200_000, 0, 20_000, 0);

  static final Address EXP = Address.parse("192.0.2.1");
  static final Address SRC = Address.parse("198.18.1.10");
  static final Address DST = Address.parse("198.18.2.20");

  static Flow rec(int port, long start, long end, long bytes) {
    return new Flow(
        new FlowKey(EXP, SRC, DST, port, 2811, 6), start, end, bytes, bytes / 100, 0, 0);
  }

  /**
   * A: three 400 B records in minute 0 (cheetah, 1200 B); B starts 5 s later, two 600 B records in
   * minute 0 (cheetah); C starts at 30 s, 25 s after B (> τ): a set of its own; D is a mouse; E is
   * a 1500 B flow split evenly across minutes 0 and 1 (750 B each): not a cheetah.
   */
  static List<Flow> input() {
    List<Flow> in =
        new ArrayList<>(
            List.of(
                rec(1, 0, 19_999, 400),
                rec(1, 20_000, 39_999, 400),
                rec(1, 40_000, 59_999, 400),
                rec(2, 5_000, 24_999, 600),
                rec(2, 25_000, 44_999, 600),
                rec(3, 30_000, 49_999, 1100),
                rec(4, 1_000, 2_000, 300),
                rec(5, 30_000, 90_000, 1500)));
    // Arrival order differs from time order.
    java.util.Collections.reverse(in);
    return in;
  }

  /** The hand-computed input, with timestamps, on a fresh environment in {@code mode}. */
  private static DataStream<Flow> flows(RuntimeExecutionMode mode) {
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
    env.setRuntimeMode(mode);
    env.setParallelism(2);
    return env.fromData(input()).assignTimestampsAndWatermarks(CheetahPipeline.flowWatermarks(D));
  }

  private static <T> List<T> collect(DataStream<T> s) throws Exception {
    List<T> out = new ArrayList<>();
    try (CloseableIterator<T> it = s.executeAndCollect()) {
      it.forEachRemaining(out::add);
    }
    return out;
  }

  @ParameterizedTest
  @EnumSource(
      value = RuntimeExecutionMode.class,
      names = {"STREAMING", "BATCH"})
  void cheetahEndsMatchTheHandComputedFlows(RuntimeExecutionMode mode) throws Exception {
    DataStream<Flow> flows = flows(mode);
    List<CheetahEvent> ends =
        collect(CheetahPipeline.cheetahs(flows, D).filter(e -> e.kind() == CheetahEvent.Kind.END));
    ends.sort(Comparator.comparingInt(e -> e.key().srcPort()));
    assertThat(ends).extracting(e -> e.key().srcPort()).containsExactly(1, 2, 3);
    assertThat(ends).extracting(CheetahEvent::bytes).containsExactly(1200L, 1200L, 1100L);
    assertThat(ends).extracting(CheetahEvent::startMs).containsExactly(0L, 5_000L, 30_000L);
    assertThat(ends).extracting(CheetahEvent::endMs).containsExactly(59_999L, 44_999L, 49_999L);
    assertThat(ends)
        .extracting(CheetahEvent::peakIntervalBytes)
        .containsExactly(1200L, 1200L, 1100L);
    assertThat(ends).extracting(CheetahEvent::records).containsExactly(3, 2, 1);
  }

  @ParameterizedTest
  @EnumSource(
      value = RuntimeExecutionMode.class,
      names = {"STREAMING", "BATCH"})
  void flowsetsMatchTheTauRule(RuntimeExecutionMode mode) throws Exception {
    DataStream<Flow> flows = flows(mode);
    List<Flowset> sets = collect(CheetahPipeline.flowsets(CheetahPipeline.cheetahs(flows, D), D));
    sets.sort(Comparator.comparingLong(Flowset::startMs));
    assertThat(sets).hasSize(2);
    Flowset ab = sets.get(0);
    assertThat(ab.nFlows()).isEqualTo(2);
    assertThat(ab.bytes()).isEqualTo(2400);
    assertThat(ab.startMs()).isZero();
    assertThat(ab.endMs()).isEqualTo(59_999);
    assertThat(ab.single()).isFalse();
    Flowset c = sets.get(1);
    assertThat(c.single()).isTrue();
    assertThat(c.bytes()).isEqualTo(1100);
    assertThat(c.startMs()).isEqualTo(30_000);
  }
}
