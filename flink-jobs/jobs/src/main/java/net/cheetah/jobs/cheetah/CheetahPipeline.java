package net.cheetah.jobs.cheetah;

import net.cheetah.config.CheetahConfig.Detection;
import net.cheetah.core.flow.CheetahEvent;
import net.cheetah.core.flow.Flow;
import net.cheetah.core.flow.Flowset;
import net.cheetah.jobs.flink.IdleAdvancingWatermarks;
import net.cheetah.jobs.flowset.FlowsetFunction;
import net.cheetah.jobs.flowset.PairKey;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;

/**
 * The analytic core shared by the streaming jobs and `cheetah analyze` (batch execution): the same
 * operators, state and timers in both modes.
 */
public final class CheetahPipeline {
  private CheetahPipeline() {}

  /** Event time of a flow record is its end: when the exporter could first report it. */
  public static WatermarkStrategy<Flow> flowWatermarks(Detection d) {
    IdleAdvancingWatermarks.FirstRecords firstRecords = new IdleAdvancingWatermarks.FirstRecords();
    return WatermarkStrategy.<Flow>forGenerator(
            c ->
                new IdleAdvancingWatermarks<>(
                    d.outOfOrdernessMs(),
                    d.idleAdvanceMs(),
                    d.effectiveFirstRecordHoldMs(),
                    firstRecords))
        .withTimestampAssigner((f, ts) -> f.endMs());
  }

  /** Flow records (with timestamps) → cheetah start/update/end events. */
  public static SingleOutputStreamOperator<CheetahEvent> cheetahs(
      DataStream<Flow> flows, Detection d) {
    return flows
        .keyBy(Flow::key, FlowKeySerializer.TYPE)
        .transform(
            "cheetahs: stitch + interval rule",
            TypeInformation.of(CheetahEvent.class),
            new CheetahOperator(d))
        .uid("cheetahs");
  }

  /** Cheetah events (with timestamps) → parallel flowsets. */
  public static SingleOutputStreamOperator<Flowset> flowsets(
      DataStream<CheetahEvent> events, Detection d) {
    return events
        .keyBy(e -> new PairKey(e.key().src(), e.key().dst()), TypeInformation.of(PairKey.class))
        .process(new FlowsetFunction(d))
        .name("flowsets: tau grouping")
        .uid("flowsets");
  }
}
