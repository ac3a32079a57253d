package net.cheetah.jobs;

import java.nio.charset.StandardCharsets;
import java.util.Optional;
import net.cheetah.analytics.links.LinkWindow;
import net.cheetah.config.CheetahConfig;
import net.cheetah.core.Topics;
import net.cheetah.jobs.flink.KafkaIO;
import net.cheetah.jobs.flink.KeyedBytes;
import net.cheetah.jobs.links.LinkInput;
import net.cheetah.jobs.links.LinkInputs;
import net.cheetah.jobs.links.LinkStatsFunction;
import net.cheetah.schemas.v1.LinkStats;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * probe.bins.v1 + cheetahs.v1 + snmp.counters.v1 → links.stats.v1: background rate, burstiness and
 * utilisation per link, per T2 window and on a sliding basis (docs/ARCHITECTURE.md, "Burstiness");
 * what its readers refuse goes to flows.rejected.v1 (LinkInputs).
 */
public final class LinkStatsJob implements StreamJob {
  public static final String NAME = "cheetah-link-stats";

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public void addTo(StreamExecutionEnvironment env, JobSettings s) {
    KafkaIO.Access bootstrap = s.kafka(NAME);
    CheetahConfig.LinkStats cfg = s.config().linkStats();
    // The operator keeps each link's clock from its bins: no watermarks.
    KafkaIO.Checked<LinkInput> bins =
        KafkaIO.checked(
            env,
            bootstrap,
            Topics.PROBE_BINS,
            NAME,
            LinkInputs.bins(),
            Optional.empty(),
            "bins-source");
    KafkaIO.Checked<LinkInput> cheetahs =
        KafkaIO.checked(
            env,
            bootstrap,
            Topics.CHEETAHS,
            NAME,
            LinkInputs.netflowCheetahs(),
            Optional.empty(),
            "cheetahs-source");
    KafkaIO.Checked<LinkInput> capacities =
        KafkaIO.checked(
            env,
            bootstrap,
            Topics.SNMP_COUNTERS,
            NAME,
            LinkInputs.capacities(),
            Optional.empty(),
            "snmp-source");
    bins.rejected()
        .union(cheetahs.rejected(), capacities.rejected())
        .sinkTo(KafkaIO.rejectedSink(bootstrap, NAME))
        .name(Topics.REJECTED)
        .uid("rejected-sink");
    bins.values()
        .union(cheetahs.values(), capacities.values())
        .keyBy(LinkInput::linkId)
        .process(new LinkStatsFunction(cfg))
        .returns(TypeInformation.of(LinkWindow.class))
        .name("link statistics")
        .uid("link-stats")
        .map(
            w ->
                new KeyedBytes(
                    w.linkId().getBytes(StandardCharsets.UTF_8), toProto(w, cfg).toByteArray()))
        .returns(TypeInformation.of(KeyedBytes.class))
        .name("encode links.stats.v1")
        .uid("encode-link-stats")
        .sinkTo(KafkaIO.exactlyOnceSink(bootstrap, Topics.LINKS_STATS, NAME))
        .name("links.stats.v1")
        .uid("link-stats-sink");
  }

  static LinkStats toProto(LinkWindow w, CheetahConfig.LinkStats cfg) {
    return LinkStats.newBuilder()
        .setLinkId(w.linkId())
        .setWindowStartMs(w.startMs())
        .setWindowEndMs(w.endMs())
        .setT1Ms((int) cfg.t1Ms())
        .setT2Ms(cfg.t2Ms())
        .setBins(w.bins())
        .setMeanBgBps(w.meanBgBps())
        .setBurstiness(w.burstiness())
        .setUtilization(w.utilization())
        .setCapacityBps(w.capacityBps())
        .setHourOfDay(w.hourOfDay())
        .setSliding(w.sliding())
        .build();
  }
}
