package net.cheetah.jobs;

import net.cheetah.core.Topics;
import net.cheetah.jobs.codec.Codec;
import net.cheetah.jobs.flink.KafkaIO;
import net.cheetah.jobs.flink.KafkaRecord;
import net.cheetah.jobs.flink.KeyedBytes;
import net.cheetah.jobs.normalize.Normalizer;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.metrics.Counter;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.ProcessFunction;
import org.apache.flink.util.Collector;
import org.apache.flink.util.OutputTag;

/** flows.goflow2.v1 → flows.v1 (+ flows.rejected.v1). */
public final class NormalizeJob implements StreamJob {
  public static final String NAME = "cheetah-normalize";
  static final OutputTag<KeyedBytes> REJECTED = new OutputTag<>("rejected") {};

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public void addTo(StreamExecutionEnvironment env, JobSettings s) {
    SingleOutputStreamOperator<KeyedBytes> flows =
        env.fromSource(
                KafkaIO.source(s.kafka(NAME), Topics.GOFLOW2, NAME),
                WatermarkStrategy.noWatermarks(),
                "goflow2 messages")
            .uid("goflow2-source")
            .process(new NormalizeFunction())
            .name("normalize")
            .uid("normalize");
    flows
        .sinkTo(KafkaIO.exactlyOnceSink(s.kafka(NAME), Topics.FLOWS, NAME + "-flows"))
        .name("flows.v1")
        .uid("flows-sink");
    flows
        .getSideOutput(REJECTED)
        .sinkTo(KafkaIO.exactlyOnceSink(s.kafka(NAME), Topics.REJECTED, NAME + "-rejected"))
        .name("flows.rejected.v1")
        .uid("rejected-sink");
  }

  static final class NormalizeFunction extends ProcessFunction<KafkaRecord, KeyedBytes> {
    private transient Normalizer normalizer;
    private transient Counter in;
    private transient Counter accepted;
    private transient Counter rejected;

    @Override
    public void open(OpenContext ctx) {
      normalizer = new Normalizer("normalize");
      var g = getRuntimeContext().getMetricGroup();
      in = g.counter("messagesIn");
      accepted = g.counter("flowsOut");
      rejected = g.counter("flowsRejected");
    }

    @Override
    public void processElement(KafkaRecord r, Context ctx, Collector<KeyedBytes> out) {
      in.inc();
      normalizer.normalizeEncoded(
          r.value(),
          new Normalizer.Origin(r.topic(), r.partition(), r.offset()),
          (hash, f) -> {
            accepted.inc();
            out.collect(new KeyedBytes(Codec.key(hash), f));
          },
          bad -> {
            rejected.inc();
            ctx.output(REJECTED, new KeyedBytes(new byte[0], bad.toByteArray()));
          });
    }
  }
}
