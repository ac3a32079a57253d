package net.cheetah.jobs;

import java.nio.charset.StandardCharsets;
import net.cheetah.analytics.Flow;
import net.cheetah.jobs.cheetah.CheetahPipeline;
import net.cheetah.jobs.codec.Codec;
import net.cheetah.jobs.flink.KafkaIO;
import net.cheetah.jobs.flink.KafkaRecord;
import net.cheetah.jobs.flink.KeyedBytes;
import net.cheetah.schemas.v1.FlowRecord;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.util.Collector;

/** flows.v1 → cheetahs.v1: stitching and the interval rule. */
public final class CheetahJob {
  public static final String NAME = "cheetah-cheetahs";

  private CheetahJob() {}

  public static void addTo(StreamExecutionEnvironment env, JobSettings s) {
    DataStream<Flow> flows =
        env.fromSource(
                KafkaIO.source(s.bootstrap(), Topics.FLOWS, NAME),
                WatermarkStrategy.noWatermarks(),
                "flows.v1")
            .uid("flows-source")
            .flatMap(
                (KafkaRecord r, Collector<Flow> out) ->
                    out.collect(Codec.flow(FlowRecord.parseFrom(r.value()))))
            .returns(TypeInformation.of(Flow.class))
            .name("decode flows.v1")
            .uid("decode-flows")
            .assignTimestampsAndWatermarks(CheetahPipeline.flowWatermarks(s.detection()))
            .uid("flow-watermarks");
    CheetahPipeline.cheetahs(flows, s.detection())
        .map(
            e ->
                new KeyedBytes(
                    e.flowId().getBytes(StandardCharsets.UTF_8), Codec.toProto(e).toByteArray()))
        .returns(TypeInformation.of(KeyedBytes.class))
        .name("encode cheetahs.v1")
        .uid("encode-cheetahs")
        .sinkTo(KafkaIO.exactlyOnceSink(s.bootstrap(), Topics.CHEETAHS, NAME))
        .name("cheetahs.v1")
        .uid("cheetahs-sink");
  }
}
