package net.cheetah.jobs;

import java.nio.charset.StandardCharsets;
import java.util.Optional;
import net.cheetah.core.Topics;
import net.cheetah.core.flow.CheetahEvent;
import net.cheetah.core.flow.Flow;
import net.cheetah.core.flow.Flowset;
import net.cheetah.jobs.cheetah.CheetahPipeline;
import net.cheetah.jobs.codec.Codec;
import net.cheetah.jobs.codec.Decoders;
import net.cheetah.jobs.flink.KafkaIO;
import net.cheetah.jobs.flink.KeyedBytes;
import net.cheetah.jobs.flowset.FlowsetFunction;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * flows.v1 → cheetahs.v1 and flowsets.v1: stitching and the interval rule, then parallel flowsets.
 * The cheetah events also go to cheetahs.control.v1 at once (at least once), the redirect job's
 * input.
 *
 * <p>The flowset operator runs in this job, fed by the cheetah operator directly, so that its event
 * time is the flow stream's: cheetah events are sparse, and a job reading only cheetahs.v1 would
 * stall its clock (and never close the last flowsets) whenever no cheetah is active. It is also the
 * exact graph `cheetah analyze` runs in batch.
 */
public final class CheetahJob implements StreamJob {
  public static final String NAME = "cheetah-cheetahs";

  /** The stage of the flows.v1 records it refuses (RecordChecks.flow). */
  public static final String STAGE = "cheetahs";

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public void addTo(StreamExecutionEnvironment env, JobSettings s) {
    KafkaIO.Checked<Flow> checked =
        KafkaIO.checked(
            env,
            s.kafka(NAME),
            Topics.FLOWS,
            NAME,
            Decoders.flows(STAGE),
            Optional.of(CheetahPipeline.flowWatermarks(s.config().detection())),
            "flows-source");
    checked
        .rejected()
        .sinkTo(KafkaIO.rejectedSink(s.kafka(NAME), NAME))
        .name(Topics.REJECTED)
        .uid("rejected-sink");
    DataStream<Flow> flows = checked.values();
    SingleOutputStreamOperator<CheetahEvent> events =
        CheetahPipeline.cheetahs(flows, s.config().detection());
    DataStream<KeyedBytes> encoded =
        events
            .map(
                e ->
                    new KeyedBytes(
                        e.flowId().getBytes(StandardCharsets.UTF_8),
                        Codec.toProto(e).toByteArray()))
            .returns(TypeInformation.of(KeyedBytes.class))
            .name("encode cheetahs.v1")
            .uid("encode-cheetahs");
    encoded
        .sinkTo(KafkaIO.exactlyOnceSink(s.kafka(NAME), Topics.CHEETAHS, NAME + "-cheetahs"))
        .name("cheetahs.v1")
        .uid("cheetahs-sink");
    // The same events at once, at least once, for the redirect job: a command must not wait for
    // the checkpoint that commits cheetahs.v1 (docs/ARCHITECTURE.md, "Redirect commands").
    encoded
        .sinkTo(KafkaIO.atLeastOnceSink(s.kafka(NAME), Topics.CHEETAHS_CONTROL))
        .name(Topics.CHEETAHS_CONTROL)
        .uid("cheetahs-control-sink");
    SingleOutputStreamOperator<Flowset> sets =
        CheetahPipeline.flowsets(events, s.config().detection());
    sets.map(f -> new KeyedBytes(pairKey(f), Codec.toProto(f).toByteArray()))
        .returns(TypeInformation.of(KeyedBytes.class))
        .name("encode flowsets.v1")
        .uid("encode-flowsets")
        .sinkTo(KafkaIO.exactlyOnceSink(s.kafka(NAME), Topics.FLOWSETS, NAME + "-flowsets"))
        .name("flowsets.v1")
        .uid("flowsets-sink");
    // Late members are counted by FlowsetFunction (metric lateFlowsetMembers) and logged here.
    sets.getSideOutput(FlowsetFunction.LATE)
        .map(e -> "late flowset member " + e.flowId() + " (start " + e.startMs() + ")")
        .name("late members")
        .uid("late-members")
        .print();
  }

  private static byte[] pairKey(Flowset f) {
    byte[] k = new byte[32];
    System.arraycopy(f.src().toBytes16(), 0, k, 0, 16);
    System.arraycopy(f.dst().toBytes16(), 0, k, 16, 16);
    return k;
  }
}
