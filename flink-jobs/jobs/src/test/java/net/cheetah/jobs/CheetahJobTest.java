package net.cheetah.jobs;

import static org.assertj.core.api.Assertions.assertThat;

import net.cheetah.jobs.throughput.FlowSerializer;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.graph.StreamGraph;
import org.apache.flink.streaming.api.graph.StreamNode;
import org.junit.jupiter.api.Test;

/** The cheetah job's graph as JobMain builds it. */
class CheetahJobTest {
  /**
   * Every flows.v1 record crosses the keyed exchange into the cheetah operator, and is copied
   * between the chained operators before it: in the form written by hand (41 bytes for IPv4, no
   * copy of an immutable record), not through Flink's reflective record serializer (124 bytes).
   */
  @Test
  void flowRecordsReachTheCheetahOperatorThroughTheHandWrittenSerializer() throws Exception {
    JobMain.Plan plan =
        JobMain.plan(
                new String[] {"--job", CheetahJob.NAME, "--set", "kafka.bootstrap=127.0.0.1:1"},
                System.out)
            .orElseThrow();
    StreamExecutionEnvironment env = new StreamExecutionEnvironment();
    JobMain.build(plan, env);
    StreamGraph graph = env.getStreamGraph();
    StreamNode cheetahs = node(graph, "cheetahs:");
    assertThat(cheetahs.getTypeSerializersIn()).containsExactly(FlowSerializer.INSTANCE);
    StreamNode checked = node(graph, "checked flows.v1");
    assertThat(checked.getTypeSerializerOut()).isSameAs(FlowSerializer.INSTANCE);
  }

  private static StreamNode node(StreamGraph graph, String namePrefix) {
    return graph.getStreamNodes().stream()
        .filter(n -> n.getOperatorName().startsWith(namePrefix))
        .findFirst()
        .orElseThrow();
  }
}
