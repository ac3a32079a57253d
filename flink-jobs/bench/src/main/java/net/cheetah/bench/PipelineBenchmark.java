package net.cheetah.bench;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import net.cheetah.analytics.CheetahDetector;
import net.cheetah.analytics.FlowsetGrouper;
import net.cheetah.config.CheetahConfig;
import net.cheetah.config.CheetahConfig.Detection;
import net.cheetah.core.flow.CheetahEvent;
import net.cheetah.core.flow.Flow;
import net.cheetah.core.flow.FlowKey;
import net.cheetah.core.flow.FlowsetMember;
import net.cheetah.core.flow.StitchedFlow;
import net.cheetah.jobs.codec.Codec;
import net.cheetah.jobs.codec.FlowRecordReader;
import net.cheetah.jobs.codec.RecordChecks;
import net.cheetah.jobs.flowset.PairKey;
import net.cheetah.jobs.normalize.Normalizer;
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
 * Per-core throughput of the hot paths on one thread, in flow records per second (flowset stage:
 * cheetah events per second), over {@link SyntheticWorkload}'s research-site mix: decoding +
 * normalising goflow2 messages, decoding flows.v1 + stitching + the interval rule, and flowset
 * grouping. No Flink, no Kafka: the end-to-end figure is {@link EndToEndBenchmark}'s. Run with
 * {@code flink-jobs/bench/run.sh jmh} (docs/BENCHMARKS.md).
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 2, time = 3)
@Measurement(iterations = 3, time = 3)
@Fork(
    value = 1,
    jvmArgsAppend = {"-Xmx2g", "-XX:+UseParallelGC"})
@State(Scope.Thread)
public class PipelineBenchmark {
  /** Records per invocation: ~67 virtual seconds of the mix, 30,000 long flows' state included. */
  static final int N = 100_000;

  /** Cheetah events per invocation of {@link #flowsetPerEvent}. */
  static final int EVENTS = 4_096;

  private final Detection detection = CheetahConfig.defaultConfig().detection();
  private byte[][] goflowValues;
  private byte[][] flowsV1;
  private Flow[] flows;
  private CheetahEvent[] events;
  private List<FlowsetMember> sixteen;
  private Normalizer normalizer;
  private CheetahDetector detector;
  private FlowsetGrouper grouper;

  @Setup
  public void setup() throws Exception {
    normalizer = new Normalizer("bench");
    detector = new CheetahDetector(detection);
    grouper = new FlowsetGrouper(detection.tauMs(), detection.flowsetLatenessMs());

    List<SyntheticWorkload.Message> mix =
        new SyntheticWorkload(SyntheticWorkload.Params.researchSite(1)).take(N);
    goflowValues = new byte[N][];
    flowsV1 = new byte[N][];
    flows = new Flow[N];
    Normalizer.Origin o = new Normalizer.Origin("flows.goflow2.v1", 0, 0);
    int[] accepted = {0};
    for (int i = 0; i < N; i++) {
      goflowValues[i] = mix.get(i).value();
      normalizer.normalize(
          goflowValues[i],
          o,
          f -> {
            flowsV1[accepted[0]] = f.toByteArray();
            flows[accepted[0]++] = Codec.flow(f);
          },
          bad -> {
            throw new IllegalStateException("the synthetic mix must be valid: " + bad);
          });
    }
    int started = 0;
    Map<FlowKey, StitchedFlow> state = new HashMap<>();
    for (Flow f : flows) {
      StitchedFlow s = state.get(f.key());
      boolean wasCheetah = s != null && s.cheetah;
      s = detector.onRecord(s, f, e -> {});
      state.put(f.key(), s);
      started += !wasCheetah && s.cheetah ? 1 : 0;
    }
    if (started == 0) {
      throw new IllegalStateException("the mix has no cheetah: the detector path is not exercised");
    }
    events = cheetahEvents(EVENTS);

    sixteen = new ArrayList<>();
    long t0 = SyntheticWorkload.T0_MS;
    for (int i = 0; i < 16; i++) {
      sixteen.add(
          new FlowsetMember(
              Long.toHexString(i), t0 + i * 500L, t0 + 600_000, 1_000_000_000L, true, 0, 0));
    }
  }

  /** Cheetah events, in order, from the detector over the transfers-only mix. */
  private CheetahEvent[] cheetahEvents(int n) {
    List<CheetahEvent> out = new ArrayList<>(n);
    Map<FlowKey, StitchedFlow> state = new HashMap<>();
    SyntheticWorkload w = new SyntheticWorkload(SyntheticWorkload.Params.transfersOnly(2));
    Normalizer.Origin o = new Normalizer.Origin("", 0, 0);
    for (int batch = 0; out.size() < n; batch++) {
      if (batch > 10_000) {
        throw new IllegalStateException("the transfers-only mix yields too few cheetah events");
      }
      w.generate(
          100,
          m ->
              normalizer.normalize(
                  m.value(),
                  o,
                  rec -> {
                    Flow f = Codec.flow(rec);
                    state.put(f.key(), detector.onRecord(state.get(f.key()), f, out::add));
                  },
                  bad -> {}));
    }
    return out.subList(0, n).toArray(CheetahEvent[]::new);
  }

  /**
   * What the normalize job does per goflow2 message: decode, validate, scale, encode flows.v1 and
   * its Kafka key (NormalizeJob.NormalizeFunction, {@code Normalizer.normalizeEncoded}: by hand).
   */
  @Benchmark
  @OperationsPerInvocation(N)
  public void normalize(Blackhole bh) {
    Normalizer.Origin o = new Normalizer.Origin("flows.goflow2.v1", 0, 0);
    for (byte[] v : goflowValues) {
      normalizer.normalizeEncoded(
          v,
          o,
          (hash, f) -> {
            bh.consume(Codec.key(hash));
            bh.consume(f);
          },
          bh::consume);
    }
  }

  /**
   * {@link #normalize} the message way, as the job did before: protobuf-java's parser and builder,
   * and the key from the record decoded again into a {@code Flow}.
   */
  @Benchmark
  @OperationsPerInvocation(N)
  public void normalizeMessages(Blackhole bh) {
    Normalizer.Origin o = new Normalizer.Origin("flows.goflow2.v1", 0, 0);
    for (byte[] v : goflowValues) {
      normalizer.normalize(
          v,
          o,
          f -> {
            bh.consume(Codec.key(Codec.flow(f).key().tupleHash()));
            bh.consume(f.toByteArray());
          },
          bh::consume);
    }
  }

  /** The Normalizer alone: goflow2 bytes → validated, scaled FlowRecord (not encoded). */
  @Benchmark
  @OperationsPerInvocation(N)
  public void normalizeOnly(Blackhole bh) {
    Normalizer.Origin o = new Normalizer.Origin("flows.goflow2.v1", 0, 0);
    for (byte[] v : goflowValues) {
      normalizer.normalize(v, o, bh::consume, bh::consume);
    }
  }

  /**
   * What the cheetah job's source and detector do per flows.v1 record: decode (Decoders.flows) and
   * stitch + the interval rule, state per 5-tuple (here a HashMap, not Flink keyed state).
   */
  @Benchmark
  @OperationsPerInvocation(N)
  public void decodeAndDetect(Blackhole bh) throws Exception {
    Map<FlowKey, StitchedFlow> state = new HashMap<>();
    for (byte[] v : flowsV1) {
      Flow f = FlowRecordReader.read(v, 0);
      state.put(f.key(), detector.onRecord(state.get(f.key()), f, bh::consume));
    }
    bh.consume(state);
  }

  /** A flows.v1 record to a checked {@code Flow}, as the cheetah job's source reads it. */
  @Benchmark
  @OperationsPerInvocation(N)
  public void decode(Blackhole bh) throws Exception {
    for (byte[] v : flowsV1) {
      bh.consume(FlowRecordReader.read(v, 0));
    }
  }

  /** {@link #decode} the message way, as the source did before: protobuf-java, then the checks. */
  @Benchmark
  @OperationsPerInvocation(N)
  public void decodeMessages(Blackhole bh) throws Exception {
    for (byte[] v : flowsV1) {
      bh.consume(RecordChecks.flow(FlowRecord.parseFrom(v), 0));
    }
  }

  /** The pure detector alone on already-decoded records. */
  @Benchmark
  @OperationsPerInvocation(N)
  public void detect(Blackhole bh) {
    Map<FlowKey, StitchedFlow> state = new HashMap<>();
    for (Flow f : flows) {
      state.put(f.key(), detector.onRecord(state.get(f.key()), f, bh::consume));
    }
    bh.consume(state);
  }

  /**
   * What the flowset operator does per cheetah event (FlowsetFunction): membership update, the τ
   * grouping for its timers, and, when event time passes a group's close time, closing it (the
   * timer's work), with state per (src, dst) pair. Event time is taken as the event's own time.
   */
  @Benchmark
  @OperationsPerInvocation(EVENTS)
  public void flowsetPerEvent(Blackhole bh) {
    Map<PairKey, Map<String, FlowsetMember>> open = new HashMap<>();
    Map<PairKey, Long> closedUpTo = new HashMap<>();
    for (CheetahEvent e : events) {
      PairKey k = new PairKey(e.key().src(), e.key().dst());
      Map<String, FlowsetMember> members = open.computeIfAbsent(k, x -> new LinkedHashMap<>());
      FlowsetMember m = FlowsetMember.of(e);
      FlowsetMember known = members.get(e.flowId());
      if (known == null) {
        Long closed = closedUpTo.get(k);
        if (grouper.isLate(
            m.startMs(), closed == null ? OptionalLong.empty() : OptionalLong.of(closed))) {
          bh.consume(e);
          continue;
        }
      } else if (known.ended()) {
        continue;
      }
      members.put(e.flowId(), m);
      long next = Long.MAX_VALUE;
      for (long t : grouper.closeTimes(new ArrayList<>(members.values()))) {
        next = Math.min(next, t);
      }
      if (e.eventMs() >= next) {
        for (List<FlowsetMember> g :
            grouper.closable(new ArrayList<>(members.values()), e.eventMs())) {
          bh.consume(FlowsetGrouper.toFlowset(k.src(), k.dst(), g, e.eventMs()));
          closedUpTo.merge(k, g.get(g.size() - 1).startMs(), Math::max);
          g.forEach(x -> members.remove(x.flowId()));
        }
      }
    }
    bh.consume(open);
  }

  /** Grouping a 16-member pair and building its flowset (a timer firing of one pair). */
  @Benchmark
  public void groupFlowset(Blackhole bh) {
    for (List<FlowsetMember> g : grouper.closable(sixteen, Long.MAX_VALUE)) {
      bh.consume(
          FlowsetGrouper.toFlowset(
              events[0].key().src(), events[0].key().dst(), g, Long.MAX_VALUE));
    }
  }
}
