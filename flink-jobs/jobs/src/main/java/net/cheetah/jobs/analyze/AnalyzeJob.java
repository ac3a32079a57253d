package net.cheetah.jobs.analyze;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import net.cheetah.config.CheetahConfig.Detection;
import net.cheetah.core.flow.CheetahEvent;
import net.cheetah.core.flow.Flow;
import net.cheetah.core.flow.Flowset;
import net.cheetah.jobs.cheetah.CheetahPipeline;
import net.cheetah.jobs.codec.Codec;
import net.cheetah.jobs.normalize.Normalizer;
import org.apache.flink.api.common.JobExecutionResult;
import org.apache.flink.api.common.RuntimeExecutionMode;
import org.apache.flink.api.common.accumulators.LongCounter;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.connector.file.src.FileSource;
import org.apache.flink.connector.file.src.reader.TextLineInputFormat;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.ProcessFunction;
import org.apache.flink.util.CloseableIterator;
import org.apache.flink.util.Collector;
import org.apache.flink.util.OutputTag;

/**
 * `cheetah analyze`: the streaming pipeline's operators in Flink batch execution over flows that
 * nfdump printed from nfcapd archives ({@link NfdumpLine}).
 */
public final class AnalyzeJob {
  static final OutputTag<String> REJECTED = new OutputTag<>("rejected-lines") {};

  /** Final cheetahs (their END events), flowsets, and what was read and refused. */
  public record Result(
      List<CheetahEvent> cheetahs, List<Flowset> flowsets, long records, List<String> rejected) {}

  private AnalyzeJob() {}

  public static Result run(StreamExecutionEnvironment env, List<Path> nfdumpText, Detection d)
      throws Exception {
    env.setRuntimeMode(RuntimeExecutionMode.BATCH);
    FileSource<String> src =
        FileSource.forRecordStreamFormat(
                new TextLineInputFormat(),
                nfdumpText.stream()
                    .map(p -> new org.apache.flink.core.fs.Path(p.toUri()))
                    .toArray(org.apache.flink.core.fs.Path[]::new))
            .build();
    SingleOutputStreamOperator<Flow> flows =
        env.fromSource(src, WatermarkStrategy.noWatermarks(), "nfdump flows")
            .process(new ParseFunction())
            .name("parse + normalize");
    DataStream<Flow> timed = flows.assignTimestampsAndWatermarks(CheetahPipeline.flowWatermarks(d));
    SingleOutputStreamOperator<CheetahEvent> events = CheetahPipeline.cheetahs(timed, d);
    CloseableIterator<CheetahEvent> ends =
        events.filter(e -> e.kind() == CheetahEvent.Kind.END).collectAsync();
    CloseableIterator<Flowset> sets = CheetahPipeline.flowsets(events, d).collectAsync();
    CloseableIterator<String> bad = flows.getSideOutput(REJECTED).collectAsync();
    // Drain while the job runs: execute() would wait for the end, after which a local cluster is
    // gone and the collect sinks could no longer hand over their last results.
    // All three at once: each must be read before the job ends.
    JobClient job = env.executeAsync("cheetah-analyze");
    CompletableFuture<List<CheetahEvent>> c = drainAsync(ends);
    CompletableFuture<List<Flowset>> f = drainAsync(sets);
    CompletableFuture<List<String>> rej = drainAsync(bad);
    JobExecutionResult r = job.getJobExecutionResult().get();
    Long records = r.getAccumulatorResult("records");
    return new Result(c.get(), f.get(), records == null ? 0 : records, rej.get());
  }

  private static <T> CompletableFuture<List<T>> drainAsync(CloseableIterator<T> it) {
    return CompletableFuture.supplyAsync(
        () -> {
          List<T> l = new ArrayList<>();
          try (it) {
            it.forEachRemaining(l::add);
          } catch (Exception e) {
            throw new CompletionException(e);
          }
          return l;
        });
  }

  static final class ParseFunction extends ProcessFunction<String, Flow> {
    private transient Normalizer normalizer;
    private transient LongCounter records;

    @Override
    public void open(OpenContext ctx) {
      normalizer = new Normalizer("analyze");
      records = getRuntimeContext().getLongCounter("records");
    }

    @Override
    public void processElement(String line, Context ctx, Collector<Flow> out) {
      try {
        var m = NfdumpLine.parse(line);
        if (m.isEmpty()) {
          return;
        }
        records.add(1);
        normalizer.normalize(
            m.get(),
            new Normalizer.Origin("", 0, 0),
            f -> out.collect(Codec.flow(f)),
            bad -> ctx.output(REJECTED, bad.getReason() + ": " + bad.getDetail() + " | " + line));
      } catch (NfdumpLine.BadLine e) {
        records.add(1);
        ctx.output(REJECTED, "unreadable_line: " + e.getMessage() + " | " + line);
      }
    }
  }
}
