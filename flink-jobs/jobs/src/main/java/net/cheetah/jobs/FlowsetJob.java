package net.cheetah.jobs;

import net.cheetah.analytics.CheetahEvent;
import net.cheetah.jobs.cheetah.CheetahPipeline;
import net.cheetah.jobs.codec.Codec;
import net.cheetah.jobs.flink.KafkaIO;
import net.cheetah.jobs.flink.KafkaRecord;
import net.cheetah.jobs.flink.KeyedBytes;
import net.cheetah.jobs.flowset.FlowsetFunction;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.util.Collector;

/** cheetahs.v1 → flowsets.v1: parallel flowsets by (src, dst) and τ. */
public final class FlowsetJob {
  public static final String NAME = "cheetah-flowsets";

  private FlowsetJob() {}

  public static void addTo(StreamExecutionEnvironment env, JobSettings s) {
    DataStream<CheetahEvent> events =
        env.fromSource(
                KafkaIO.source(s.bootstrap(), Topics.CHEETAHS, NAME),
                WatermarkStrategy.noWatermarks(),
                "cheetahs.v1")
            .uid("cheetahs-source")
            .flatMap(
                (KafkaRecord r, Collector<CheetahEvent> out) ->
                    Codec.fromProto(net.cheetah.schemas.v1.CheetahEvent.parseFrom(r.value()))
                        .ifPresent(out::collect))
            .returns(TypeInformation.of(CheetahEvent.class))
            .name("decode cheetahs.v1")
            .uid("decode-cheetahs")
            .assignTimestampsAndWatermarks(CheetahPipeline.eventWatermarks(s.detection()))
            .uid("event-watermarks");
    SingleOutputStreamOperator<net.cheetah.analytics.Flowset> sets =
        CheetahPipeline.flowsets(events, s.detection());
    sets.map(f -> new KeyedBytes(pairKey(f), Codec.toProto(f).toByteArray()))
        .returns(TypeInformation.of(KeyedBytes.class))
        .name("encode flowsets.v1")
        .uid("encode-flowsets")
        .sinkTo(KafkaIO.exactlyOnceSink(s.bootstrap(), Topics.FLOWSETS, NAME))
        .name("flowsets.v1")
        .uid("flowsets-sink");
    // Late members are counted by FlowsetFunction (metric lateFlowsetMembers) and logged here.
    sets.getSideOutput(FlowsetFunction.LATE)
        .map(e -> e.flowId())
        .name("late members")
        .uid("late-members")
        .print("late flowset member");
  }

  private static byte[] pairKey(net.cheetah.analytics.Flowset f) {
    byte[] k = new byte[32];
    System.arraycopy(f.src().toBytes16(), 0, k, 0, 16);
    System.arraycopy(f.dst().toBytes16(), 0, k, 16, 16);
    return k;
  }
}
