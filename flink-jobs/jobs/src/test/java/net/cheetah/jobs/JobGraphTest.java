package net.cheetah.jobs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import net.cheetah.jobs.flink.KafkaRecord;
import net.cheetah.jobs.flink.KafkaRecordSerializer;
import net.cheetah.jobs.throughput.FlowSerializer;
import org.apache.flink.core.memory.DataInputViewStreamWrapper;
import org.apache.flink.core.memory.DataOutputViewStreamWrapper;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.graph.StreamGraph;
import org.apache.flink.streaming.api.graph.StreamNode;
import org.junit.jupiter.api.Test;

/** The jobs' graphs as JobMain builds them: the types their hot streams travel in. */
class JobGraphTest {
  /**
   * Every flows.v1 record crosses the keyed exchange into the cheetah operator, and is copied
   * between the chained operators before it: in the form written by hand (41 bytes for IPv4, no
   * copy of an immutable record), not through Flink's reflective record serializer (124 bytes).
   */
  @Test
  void flowRecordsReachTheCheetahOperatorThroughTheHandWrittenSerializer() throws Exception {
    StreamGraph graph = graph(CheetahJob.NAME);
    StreamNode cheetahs = node(graph, "cheetahs:");
    assertThat(cheetahs.getTypeSerializersIn()).containsExactly(FlowSerializer.INSTANCE);
    StreamNode checked = node(graph, "checked flows.v1");
    assertThat(checked.getTypeSerializerOut()).isSameAs(FlowSerializer.INSTANCE);
  }

  /** goflow2's records reach normalize uncopied: their serializer treats them as immutable. */
  @Test
  void goflow2RecordsReachNormalizeWithoutACopy() throws Exception {
    StreamNode normalize = node(graph(NormalizeJob.NAME), "normalize");
    assertThat(normalize.getTypeSerializersIn()).containsExactly(KafkaRecordSerializer.INSTANCE);
    KafkaRecord r =
        new KafkaRecord("flows.goflow2.v1", 1, 42, 1_790_000_000_000L, "abc".getBytes());
    assertThat(KafkaRecordSerializer.INSTANCE.copy(r)).isSameAs(r);
  }

  /** Should a record cross an exchange, it arrives whole, a tombstone's null value included. */
  @Test
  void kafkaRecordsRoundTrip() throws Exception {
    for (byte[] v : new byte[][] {"goflow2".getBytes(StandardCharsets.UTF_8), new byte[0], null}) {
      KafkaRecord r = new KafkaRecord("flows.goflow2.v1", 3, 1L << 40, -1, v);
      ByteArrayOutputStream b = new ByteArrayOutputStream();
      KafkaRecordSerializer.INSTANCE.serialize(r, new DataOutputViewStreamWrapper(b));
      KafkaRecord back =
          KafkaRecordSerializer.INSTANCE.deserialize(
              new DataInputViewStreamWrapper(new java.io.ByteArrayInputStream(b.toByteArray())));
      assertThat(back.topic()).isEqualTo("flows.goflow2.v1");
      assertThat(back.partition()).isEqualTo(3);
      assertThat(back.offset()).isEqualTo(1L << 40);
      assertThat(back.timestampMs()).isEqualTo(-1);
      assertThat(back.value()).isEqualTo(v);
    }
  }

  private static StreamGraph graph(String job) throws Exception {
    JobMain.Plan plan =
        JobMain.plan(
                new String[] {"--job", job, "--set", "kafka.bootstrap=127.0.0.1:1"}, System.out)
            .orElseThrow();
    StreamExecutionEnvironment env = new StreamExecutionEnvironment();
    JobMain.build(plan, env);
    return env.getStreamGraph();
  }

  private static StreamNode node(StreamGraph graph, String namePrefix) {
    return graph.getStreamNodes().stream()
        .filter(n -> n.getOperatorName().startsWith(namePrefix))
        .findFirst()
        .orElseThrow();
  }
}
