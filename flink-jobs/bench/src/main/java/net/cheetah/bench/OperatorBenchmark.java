package net.cheetah.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import net.cheetah.config.CheetahConfig;
import net.cheetah.config.CheetahConfig.Detection;
import net.cheetah.core.flow.CheetahEvent;
import net.cheetah.core.flow.Flow;
import net.cheetah.core.flow.FlowKey;
import net.cheetah.jobs.cheetah.CheetahOperator;
import net.cheetah.jobs.cheetah.FlowKeySerializer;
import net.cheetah.jobs.codec.Codec;
import net.cheetah.jobs.normalize.Normalizer;
import org.apache.flink.runtime.state.storage.FileSystemCheckpointStorage;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

/**
 * The cheetah operator's own thread, which bounds the end-to-end rate (docs/BENCHMARKS.md, section
 * 2): {@link CheetahOperator} in Flink's keyed operator test harness (heap state backend, as the
 * stack runs it) fed {@value #N} decoded flows.v1 records of {@link SyntheticWorkload}'s
 * research-site mix (~11 virtual minutes: every long flow's records, mice closing, cheetahs
 * starting and ending), with a watermark every {@value #WATERMARK_EVERY} records at the newest end
 * minus the out-of-orderness (what the job's source emits, per 200 ms at ~200 k records/s) and a
 * checkpoint every {@value #CHECKPOINT_EVERY} records (2 s at that rate; here written in the
 * benchmark's thread, where the job writes its asynchronous part in another). One operation is one
 * record; each invocation starts from empty state. No Kafka, no network exchange: what is measured
 * is the keyed-state lookups and the schedule, the cost that e2e runs can only show within their
 * ±15 % spread. {@code flink-jobs/bench/run.sh jmh cheetahOperator}.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 2, batchSize = 1)
@Measurement(iterations = 5, batchSize = 1)
@Fork(
    value = 1,
    jvmArgsAppend = {"-Xmx4g", "-XX:+UseParallelGC"})
@State(Scope.Thread)
public class OperatorBenchmark {
  static final int N = 1_000_000;
  static final int WATERMARK_EVERY = 40_000;
  static final int CHECKPOINT_EVERY = 400_000;

  private final Detection detection = CheetahConfig.defaultConfig().detection();
  private Flow[] flows;
  private Path checkpoints;
  private KeyedOneInputStreamOperatorTestHarness<FlowKey, Flow, CheetahEvent> harness;

  @Setup(Level.Trial)
  public void records() throws Exception {
    List<SyntheticWorkload.Message> mix =
        new SyntheticWorkload(SyntheticWorkload.Params.researchSite(1)).take(N);
    Normalizer normalizer = new Normalizer("bench");
    Normalizer.Origin o = new Normalizer.Origin("flows.goflow2.v1", 0, 0);
    flows = new Flow[N];
    int[] n = {0};
    for (SyntheticWorkload.Message m : mix) {
      normalizer.normalize(
          m.value(),
          o,
          f -> flows[n[0]++] = Codec.flow(f),
          bad -> {
            throw new IllegalStateException("the synthetic mix must be valid: " + bad);
          });
    }
    checkpoints = Files.createTempDirectory("cheetah-operator-bench");
  }

  @Setup(Level.Invocation)
  public void operator() throws Exception {
    harness =
        new KeyedOneInputStreamOperatorTestHarness<>(
            new CheetahOperator(detection), Flow::key, FlowKeySerializer.TYPE);
    harness.setCheckpointStorage(new FileSystemCheckpointStorage(checkpoints.toUri()));
    harness.open();
  }

  @TearDown(Level.Invocation)
  public void close() throws Exception {
    harness.close();
  }

  @TearDown(Level.Trial)
  public void removeCheckpoints() throws Exception {
    BenchRun.removeDir(checkpoints, false, System.err::println);
  }

  @Benchmark
  @OperationsPerInvocation(N)
  public void cheetahOperator(Blackhole bh) throws Exception {
    long newest = Long.MIN_VALUE;
    long checkpoint = 0;
    for (int i = 0; i < N; i++) {
      Flow r = flows[i];
      harness.processElement(new StreamRecord<>(r, r.endMs()));
      newest = Math.max(newest, r.endMs());
      if ((i + 1) % WATERMARK_EVERY == 0) {
        harness.processWatermark(newest - detection.outOfOrdernessMs());
      }
      if ((i + 1) % CHECKPOINT_EVERY == 0) {
        checkpoint++;
        bh.consume(harness.snapshot(checkpoint, checkpoint));
      }
    }
    harness.processWatermark(Long.MAX_VALUE);
    int events = harness.extractOutputValues().size();
    if (events == 0) {
      throw new IllegalStateException(
          "no cheetah event: the operator's detection is not exercised");
    }
    bh.consume(events);
  }
}
