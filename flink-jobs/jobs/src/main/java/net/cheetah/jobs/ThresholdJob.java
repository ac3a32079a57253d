package net.cheetah.jobs;

import java.util.Optional;
import java.util.concurrent.TimeUnit;
import net.cheetah.config.CheetahConfig;
import net.cheetah.core.Topics;
import net.cheetah.jobs.flink.KafkaIO;
import net.cheetah.jobs.flink.KeyedBytes;
import net.cheetah.jobs.thresholds.BuiltTable;
import net.cheetah.jobs.thresholds.LossTableBuilds;
import net.cheetah.jobs.thresholds.TableTagFunction;
import net.cheetah.jobs.thresholds.ThresholdFunction;
import net.cheetah.jobs.thresholds.ThresholdInput;
import net.cheetah.jobs.thresholds.ThresholdInputs;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.streaming.api.datastream.AsyncDataStream;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * links.stats.v1 + snmp.counters.v1 → thresholds.v1 (compacted, versioned per link): the rate
 * threshold R the probes and the redirect job use. Published at least once, without waiting for a
 * checkpoint (a control path); consumers keep the highest version per link.
 *
 * <pre>
 * stats ─► tags (hour-of-day prediction) ─┬─────────────────────────────► R per link ─► thresholds.v1
 *                                         └► table requests ─► simulator ─┘ (built tables, by link)
 * polls ──────────────────────────────────────────────────────────────────┘
 * </pre>
 *
 * The simulator runs in an async operator, so a table that takes minutes never blocks R. The graph
 * is the same in every mode (outside table mode nothing is requested), so a savepoint taken in one
 * mode restores in another.
 */
public final class ThresholdJob implements StreamJob {
  public static final String NAME = "cheetah-thresholds";
  // Table requests in flight at once; there is one per new tag per link, so this is never reached
  // in practice, and if it were, requests would wait upstream without holding up R.
  private static final int MAX_TABLES_IN_FLIGHT = 1000;

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public void addTo(StreamExecutionEnvironment env, JobSettings s) {
    KafkaIO.Access bootstrap = s.kafka(NAME);
    CheetahConfig.Thresholds cfg = s.config().thresholds();
    KafkaIO.Checked<ThresholdInput> stats =
        KafkaIO.checked(
            env,
            bootstrap,
            Topics.LINKS_STATS,
            NAME,
            ThresholdInputs.stats(),
            Optional.empty(),
            "stats-source");
    KafkaIO.Checked<ThresholdInput> polls =
        KafkaIO.checked(
            env,
            bootstrap,
            Topics.SNMP_COUNTERS,
            NAME,
            ThresholdInputs.polls(),
            Optional.empty(),
            "snmp-source");
    stats
        .rejected()
        .union(polls.rejected())
        .sinkTo(KafkaIO.rejectedSink(bootstrap, NAME))
        .name(Topics.REJECTED)
        .uid("rejected-sink");
    thresholds(stats.values(), polls.values(), cfg)
        .sinkTo(KafkaIO.atLeastOnceSink(bootstrap, Topics.THRESHOLDS))
        .name("thresholds.v1")
        .uid("thresholds-sink");
  }

  /** The job's operators between its sources and its sink. */
  public static DataStream<KeyedBytes> thresholds(
      DataStream<ThresholdInput> stats,
      DataStream<ThresholdInput> polls,
      CheetahConfig.Thresholds cfg) {
    SingleOutputStreamOperator<ThresholdInput> tagged =
        stats
            .keyBy(ThresholdInput::linkId)
            .process(new TableTagFunction(cfg))
            .returns(TypeInformation.of(ThresholdInput.class))
            .name("table tags")
            .uid("threshold-table-tags");
    DataStream<BuiltTable> tables =
        AsyncDataStream.unorderedWait(
                tagged.getSideOutput(TableTagFunction.REQUESTS),
                new LossTableBuilds(cfg.table()),
                cfg.table().timeoutMs(),
                TimeUnit.MILLISECONDS,
                MAX_TABLES_IN_FLIGHT)
            .returns(TypeInformation.of(BuiltTable.class))
            .name("loss tables (simulator)")
            .uid("threshold-loss-tables");
    return tagged
        .union(polls)
        .keyBy(ThresholdInput::linkId)
        .connect(tables.keyBy(BuiltTable::linkId))
        .process(new ThresholdFunction(cfg))
        .returns(TypeInformation.of(KeyedBytes.class))
        .name("rate threshold R")
        .uid("thresholds");
  }
}
