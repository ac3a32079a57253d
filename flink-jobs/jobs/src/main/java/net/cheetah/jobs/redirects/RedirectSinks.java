package net.cheetah.jobs.redirects;

import net.cheetah.core.Topics;
import net.cheetah.jobs.flink.KafkaIO;
import net.cheetah.jobs.flink.KeyedBytes;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.streaming.api.datastream.DataStream;

/**
 * Where every job that issues redirect commands sends its decisions (docs/REDIRECTS.md): each one
 * to redirects.decisions.v1 (the audit), the published ones to redirects.commands.v1, both at least
 * once (command ids are hashes of the cause, so a repeat changes nothing), keyed by the device.
 */
public final class RedirectSinks {
  private RedirectSinks() {}

  public static void publish(DataStream<EncodedDecision> decisions, KafkaIO.Access bootstrap) {
    decisions
        .map(d -> new KeyedBytes(d.device(), d.decision()))
        .returns(TypeInformation.of(KeyedBytes.class))
        .name("decisions")
        .uid("decisions")
        .sinkTo(KafkaIO.atLeastOnceSink(bootstrap, Topics.REDIRECTS_DECISIONS))
        .name("redirects.decisions.v1")
        .uid("decisions-sink");
    decisions
        .filter(EncodedDecision::published)
        .name("published only")
        .uid("published")
        .map(d -> new KeyedBytes(d.device(), d.command()))
        .returns(TypeInformation.of(KeyedBytes.class))
        .name("commands")
        .uid("commands")
        .sinkTo(KafkaIO.atLeastOnceSink(bootstrap, Topics.REDIRECTS_COMMANDS))
        .name("redirects.commands.v1")
        .uid("commands-sink");
  }
}
