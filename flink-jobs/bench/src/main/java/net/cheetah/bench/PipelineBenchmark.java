package net.cheetah.bench;

import com.google.protobuf.ByteString;
import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import net.cheetah.analytics.Address;
import net.cheetah.analytics.CheetahDetector;
import net.cheetah.analytics.CheetahEvent;
import net.cheetah.analytics.Flow;
import net.cheetah.analytics.FlowKey;
import net.cheetah.analytics.FlowsetGrouper;
import net.cheetah.analytics.FlowsetMember;
import net.cheetah.analytics.StitchedFlow;
import net.cheetah.config.CheetahConfig;
import net.cheetah.config.CheetahConfig.Detection;
import net.cheetah.jobs.codec.Codec;
import net.cheetah.jobs.normalize.Normalizer;
import net.cheetah.schemas.goflow2.FlowMessage;
import net.cheetah.schemas.v1.FlowRecord;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

/**
 * Per-core throughput of the hot paths, in flow records per second: decoding + normalising goflow2
 * messages, stitching + the interval rule, and flowset grouping. Run with {@code ./cheetah bench}.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 3, time = 3)
@Fork(1)
@State(Scope.Thread)
public class PipelineBenchmark {
  static final int N = 10_000;
  private final Detection detection = CheetahConfig.defaultConfig().detection();
  private byte[][] goflowValues;
  private Flow[] flows;
  private List<FlowsetMember> members;
  private Normalizer normalizer;
  private CheetahDetector detector;
  private FlowsetGrouper grouper;

  @Setup
  public void setup() throws Exception {
    Random r = new Random(1);
    goflowValues = new byte[N][];
    flows = new Flow[N];
    long t0 = 1_795_000_000_000L;
    Address exporter = Address.parse("127.0.0.1");
    for (int i = 0; i < N; i++) {
      int flow = i % 500; // 500 concurrent flows, 20 records each (active-timeout splits)
      long start = t0 + (i / 500) * 60_000L;
      long bytes = 1_000_000L + r.nextInt(5_000_000);
      FlowMessage m =
          FlowMessage.newBuilder()
              .setType(FlowMessage.FlowType.NETFLOW_V9)
              .setSamplerAddress(ByteString.copyFrom(new byte[] {127, 0, 0, 1}))
              .setTimeReceivedNs((start + 60_000) * 1_000_000)
              .setTimeFlowStartNs(start * 1_000_000)
              .setTimeFlowEndNs((start + 59_999) * 1_000_000)
              .setSrcAddr(ByteString.copyFrom(new byte[] {(byte) 198, 18, 1, (byte) flow}))
              .setDstAddr(ByteString.copyFrom(new byte[] {(byte) 198, 18, 2, (byte) (flow / 7)}))
              .setEtype(0x0800)
              .setProto(6)
              .setSrcPort(40_000 + flow)
              .setDstPort(2811)
              .setBytes(bytes)
              .setPackets(bytes / 1400)
              .setSamplingRate(1)
              .build();
      ByteArrayOutputStream o = new ByteArrayOutputStream();
      m.writeDelimitedTo(o);
      goflowValues[i] = o.toByteArray();
      flows[i] =
          new Flow(
              new FlowKey(
                  exporter,
                  Address.parse("198.18.1." + (flow % 250)),
                  Address.parse("198.18.2." + (flow / 7)),
                  40_000 + flow,
                  2811,
                  6),
              start,
              start + 59_999,
              bytes * 1000,
              bytes,
              0,
              0);
    }
    members = new ArrayList<>();
    for (int i = 0; i < 16; i++) {
      members.add(
          new FlowsetMember(
              Long.toHexString(i), t0 + i * 3_000L, t0 + 600_000, 1_000_000_000L, true, 0, 0));
    }
    normalizer = new Normalizer("bench");
    detector = new CheetahDetector(detection);
    grouper = new FlowsetGrouper(detection.tauMs(), detection.flowsetLatenessMs());
  }

  /** goflow2 bytes → validated, scaled flows.v1 record bytes. */
  @Benchmark
  @OperationsPerInvocation(N)
  public void normalize(Blackhole bh) {
    Normalizer.Origin o = new Normalizer.Origin("flows.goflow2.v1", 0, 0);
    for (byte[] v : goflowValues) {
      normalizer.normalize(v, o, f -> bh.consume(f.toByteArray()), bh::consume);
    }
  }

  /** flows.v1 bytes → Flow → stitching and the interval rule (500 flows, state per flow). */
  @Benchmark
  @OperationsPerInvocation(N)
  public void decodeAndDetect(Blackhole bh) throws Exception {
    java.util.HashMap<FlowKey, StitchedFlow> state = new java.util.HashMap<>();
    for (Flow f : flows) {
      FlowRecord rec =
          FlowRecord.newBuilder()
              .setExporter(Codec.addr(f.key().exporter()))
              .setSrcAddr(Codec.addr(f.key().src()))
              .setDstAddr(Codec.addr(f.key().dst()))
              .setSrcPort(f.key().srcPort())
              .setDstPort(f.key().dstPort())
              .setProto(6)
              .setStartMs(f.startMs())
              .setEndMs(f.endMs())
              .setBytes(f.bytes())
              .setPackets(f.packets())
              .build();
      Flow decoded = Codec.flow(FlowRecord.parseFrom(rec.toByteArray()));
      state.put(decoded.key(), detector.onRecord(state.get(decoded.key()), decoded, bh::consume));
    }
  }

  /** The pure detector alone on already-decoded records. */
  @Benchmark
  @OperationsPerInvocation(N)
  public void detect(Blackhole bh) {
    java.util.HashMap<FlowKey, StitchedFlow> state = new java.util.HashMap<>();
    for (Flow f : flows) {
      state.put(
          f.key(), detector.onRecord(state.get(f.key()), f, (CheetahEvent e) -> bh.consume(e)));
    }
  }

  /** Grouping a 16-member set by τ (done once per cheetah event of a pair). */
  @Benchmark
  public void groupFlowset(Blackhole bh) {
    bh.consume(grouper.closable(members, Long.MAX_VALUE));
  }
}
