package net.cheetah.jobs;

import net.cheetah.config.CheetahConfig;
import net.cheetah.jobs.flink.KafkaIO;
import net.cheetah.jobs.flink.KeyedBytes;
import net.cheetah.jobs.thresholds.ThresholdFunction;
import net.cheetah.jobs.thresholds.ThresholdInput;
import net.cheetah.jobs.thresholds.ThresholdInputs;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * links.stats.v1 + snmp.counters.v1 → thresholds.v1 (compacted, versioned per link): the rate
 * threshold R the probes and the redirect job use. Published at least once, without waiting for a
 * checkpoint (a control path); consumers keep the highest version per link.
 */
public final class ThresholdJob {
  public static final String NAME = "cheetah-thresholds";

  private ThresholdJob() {}

  public static void addTo(
      StreamExecutionEnvironment env, String bootstrap, CheetahConfig.Thresholds cfg) {
    DataStream<ThresholdInput> stats =
        KafkaIO.unwatermarked(
            env, bootstrap, Topics.LINKS_STATS, NAME, ThresholdInputs.stats(), "stats-source");
    DataStream<ThresholdInput> polls =
        KafkaIO.unwatermarked(
            env, bootstrap, Topics.SNMP_COUNTERS, NAME, ThresholdInputs.polls(), "snmp-source");
    stats
        .union(polls)
        .keyBy(ThresholdInput::linkId)
        .process(new ThresholdFunction(cfg))
        .returns(TypeInformation.of(KeyedBytes.class))
        .name("rate threshold R")
        .uid("thresholds")
        .sinkTo(KafkaIO.atLeastOnceSink(bootstrap, Topics.THRESHOLDS))
        .name("thresholds.v1")
        .uid("thresholds-sink");
  }
}
