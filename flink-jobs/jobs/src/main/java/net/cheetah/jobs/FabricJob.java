package net.cheetah.jobs;

import java.nio.file.Path;
import java.util.Optional;
import net.cheetah.config.CheetahConfig;
import net.cheetah.core.Topics;
import net.cheetah.fabric.Fabric;
import net.cheetah.fabric.FabricFile;
import net.cheetah.fabric.SflowPortMap;
import net.cheetah.jobs.fabric.FabricFunction;
import net.cheetah.jobs.fabric.FabricInput;
import net.cheetah.jobs.fabric.FabricInputs;
import net.cheetah.jobs.flink.KafkaIO;
import net.cheetah.jobs.redirects.EncodedDecision;
import net.cheetah.jobs.redirects.RedirectKeys;
import net.cheetah.jobs.redirects.RedirectSinks;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * EFM elephant re-routing on a fabric (docs/FABRIC.md, "The job"): sFlow flow samples from flows.v1
 * and sFlow interface counters from snmp.counters.v1, both of the ports of the sFlow map, placed on
 * the fabric's links → one {@link net.cheetah.fabric.ElephantRerouter} round per second of event
 * time → signed REROUTE and REMOVE commands on redirects.commands.v1 and every decision on
 * redirects.decisions.v1, as the redirect job publishes them. Runs only when {@code
 * fabric.topology-file} is set ({@link StreamJob#stack(CheetahConfig)}). The decider runs at
 * parallelism 1: a fabric is one decision.
 */
public final class FabricJob implements StreamJob {
  public static final String NAME = "cheetah-fabric";

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public void addTo(StreamExecutionEnvironment env, JobSettings s) {
    CheetahConfig.Fabric cfg = s.config().fabric();
    if (!cfg.jobConfigured()) {
      throw new IllegalArgumentException(
          NAME
              + " needs "
              + CheetahConfig.Fabric.TOPOLOGY_FILE.name()
              + " and "
              + CheetahConfig.Fabric.SFLOW_MAP_FILE.name()
              + " (docs/FABRIC.md, \"The job\")");
    }
    // Loaded at submission: a bad file fails here, naming the entry, not in a task.
    Fabric fabric = FabricFile.load(Path.of(cfg.topologyFile()));
    SflowPortMap map = SflowPortMap.load(fabric, Path.of(cfg.sflowMapFile()));
    Path keysFile = s.redirectKeysFile();
    RedirectKeys.load(keysFile);
    KafkaIO.Access bootstrap = s.kafka(NAME);
    // No watermarks: the decider keeps the fabric's clock from its inputs (FabricRounds).
    KafkaIO.Checked<FabricInput> samples =
        KafkaIO.checked(
            env,
            bootstrap,
            Topics.FLOWS,
            NAME,
            FabricInputs.samples(fabric, map),
            Optional.empty(),
            "flows-source");
    KafkaIO.Checked<FabricInput> counters =
        KafkaIO.checked(
            env,
            bootstrap,
            Topics.SNMP_COUNTERS,
            NAME,
            FabricInputs.counters(fabric, map),
            Optional.empty(),
            "counters-source");
    samples
        .rejected()
        .union(counters.rejected())
        .sinkTo(KafkaIO.rejectedSink(bootstrap, NAME))
        .name(Topics.REJECTED)
        .uid("rejected-sink");
    SingleOutputStreamOperator<EncodedDecision> decisions =
        samples
            .values()
            .union(counters.values())
            .process(
                new FabricFunction(
                    fabric,
                    cfg,
                    s.config().redirects().settings(),
                    keysFile.toAbsolutePath().toString()))
            .returns(TypeInformation.of(EncodedDecision.class))
            .setParallelism(1)
            .setMaxParallelism(1)
            .name("decide (EFM rounds, guardrails, sign)")
            .uid("decide");
    RedirectSinks.publish(decisions, bootstrap);
    // What each round saw of each link, for the operators: exactly once, unlike the commands.
    decisions
        .getSideOutput(FabricFunction.LINKS)
        .sinkTo(KafkaIO.exactlyOnceSink(bootstrap, Topics.FABRIC_LINKS, NAME))
        .name(Topics.FABRIC_LINKS)
        .uid("links-sink");
  }
}
