package net.cheetah.jobs;

import java.util.Map;
import java.util.Optional;
import net.cheetah.analytics.throughput.HostSample;
import net.cheetah.analytics.throughput.Transfer;
import net.cheetah.config.CheetahConfig;
import net.cheetah.core.Topics;
import net.cheetah.jobs.flink.IdleAdvancingWatermarks;
import net.cheetah.jobs.flink.KafkaIO;
import net.cheetah.jobs.flink.KeyedBytes;
import net.cheetah.jobs.throughput.PairKeySerializer;
import net.cheetah.jobs.throughput.PrcaFunction;
import net.cheetah.jobs.throughput.ThroughputFunction;
import net.cheetah.jobs.throughput.ThroughputInput;
import net.cheetah.jobs.throughput.ThroughputInputs;
import org.apache.flink.api.common.eventtime.SerializableTimestampAssigner;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * flows.v1 + transfers.v1 (+ transfers.hosts.v1) → throughput.v1 and alerts.v1
 * (docs/ARCHITECTURE.md, "Transfer throughput"): application instances and logged transfers with
 * their throughput, forecasts and diurnal fits per host pair; forecast-band violations, step
 * changes and PRCA reports (naming a saturated host resource from the host samples) as alerts. The
 * same analyses as `cheetah throughput` offline, in event time (record ends, with the detection
 * section's watermarks), written exactly once.
 *
 * <pre>
 * flows.v1 ─────┬─► host pair: instances, series ─┬─► throughput.v1
 * transfers.v1 ─┤                                 └─► alerts.v1 (outside_band, step)
 *               └─► peer group: PRCA ─────────────────► alerts.v1 (prca)
 * transfers.hosts.v1 ──(broadcast)──┘
 * </pre>
 */
public final class ThroughputJob implements StreamJob {
  public static final String NAME = "cheetah-throughput";

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public void addTo(StreamExecutionEnvironment env, JobSettings s) {
    KafkaIO.Access bootstrap = s.kafka(NAME);
    CheetahConfig.Throughput cfg = s.config().throughput();
    // Its own interval (JobEnvironment set flink.checkpoint-interval-ms): every pair's series are
    // in the state, written in full at each checkpoint (docs/BENCHMARKS.md, section 2).
    env.configure(
        Configuration.fromMap(
            Map.of(
                CheckpointingOptions.CHECKPOINTING_INTERVAL.key(),
                cfg.checkpointIntervalMs() + " ms")));
    CheetahConfig.Detection d = s.config().detection();
    KafkaIO.Checked<ThroughputInput> flows =
        KafkaIO.checked(
            env,
            bootstrap,
            Topics.FLOWS,
            NAME,
            ThroughputInputs.flows(),
            Optional.of(watermarks(d, d.effectiveFirstRecordHoldMs())),
            "flows-source");
    KafkaIO.Checked<ThroughputInput> transfers =
        KafkaIO.checked(
            env,
            bootstrap,
            Topics.TRANSFERS,
            NAME,
            ThroughputInputs.transfers(),
            // Sparse: an empty transfers.v1 must not hold the flows back for
            // detection.first-record-hold-ms (the demo's is 10 minutes).
            Optional.of(watermarks(d, d.defaultFirstRecordHoldMs())),
            "transfers-source");
    KafkaIO.Checked<HostSample> samples =
        KafkaIO.checked(
            env,
            bootstrap,
            Topics.HOST_SAMPLES,
            NAME,
            ThroughputInputs.hostSamples(),
            // Sparse as transfers.v1 (often no host is sampled at all).
            Optional.of(watermarks(d, d.defaultFirstRecordHoldMs(), (h, ts) -> h.ms())),
            "host-samples-source");
    flows
        .rejected()
        .union(transfers.rejected(), samples.rejected())
        .sinkTo(KafkaIO.rejectedSink(bootstrap, NAME))
        .name(Topics.REJECTED)
        .uid("rejected-sink");
    SingleOutputStreamOperator<KeyedBytes> rows =
        flows
            .values()
            .union(transfers.values())
            .keyBy(ThroughputInput::pairKey, PairKeySerializer.TYPE)
            .process(new ThroughputFunction(cfg, d))
            .returns(TypeInformation.of(KeyedBytes.class))
            .name("instances and series per host pair")
            .uid("throughput-pairs");
    rows.sinkTo(KafkaIO.exactlyOnceSink(bootstrap, Topics.THROUGHPUT, NAME + "-throughput"))
        .name(Topics.THROUGHPUT)
        .uid("throughput-sink");
    DataStream<KeyedBytes> prca =
        transfers
            .values()
            .map(ThroughputInput::transfer)
            .returns(TypeInformation.of(Transfer.class))
            .name("transfers")
            .uid("prca-transfers")
            .keyBy(t -> PrcaFunction.peerGroup(cfg, t), TypeInformation.of(String.class))
            .connect(samples.values().broadcast(PrcaFunction.SAMPLES))
            .process(new PrcaFunction(cfg))
            .returns(TypeInformation.of(KeyedBytes.class))
            .name("PRCA per peer group")
            .uid("throughput-prca");
    rows.getSideOutput(ThroughputFunction.ALERTS)
        .union(prca)
        .sinkTo(KafkaIO.exactlyOnceSink(bootstrap, Topics.ALERTS, NAME + "-alerts"))
        .name(Topics.ALERTS)
        .uid("alerts-sink");
  }

  /**
   * Event time of both inputs: a record's end, as the cheetah job's (detection.*), a partition
   * without records held back for {@code holdMs} before it is left out.
   */
  static WatermarkStrategy<ThroughputInput> watermarks(CheetahConfig.Detection d, long holdMs) {
    return watermarks(d, holdMs, (in, ts) -> in.eventMs());
  }

  /** As the other, for records whose event time {@code assigner} gives (a host sample's time). */
  static <T> WatermarkStrategy<T> watermarks(
      CheetahConfig.Detection d, long holdMs, SerializableTimestampAssigner<T> assigner) {
    IdleAdvancingWatermarks.FirstRecords firstRecords = new IdleAdvancingWatermarks.FirstRecords();
    return WatermarkStrategy.<T>forGenerator(
            c ->
                new IdleAdvancingWatermarks<>(
                    d.outOfOrdernessMs(), d.idleAdvanceMs(), holdMs, firstRecords))
        .withTimestampAssigner(assigner);
  }
}
