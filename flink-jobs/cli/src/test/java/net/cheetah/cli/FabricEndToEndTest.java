package net.cheetah.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import net.cheetah.core.Topics;
import net.cheetah.core.flow.Address;
import net.cheetah.jobs.FabricJob;
import net.cheetah.jobs.codec.Codec;
import net.cheetah.runtime.Wait;
import net.cheetah.schemas.v1.FabricLinkState;
import net.cheetah.schemas.v1.FlowRecord;
import net.cheetah.schemas.v1.FlowSource;
import net.cheetah.schemas.v1.RedirectAction;
import net.cheetah.schemas.v1.RedirectCommand;
import net.cheetah.schemas.v1.SnmpCounters;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;

/**
 * flows.v1 (sFlow flow samples) and snmp.counters.v1 (sFlow interface counters) → the fabric job →
 * a signed REROUTE on redirects.commands.v1, in the embedded stack with fabric.topology-file set
 * (so the stack runs the job). The leaf-spine example of docs/FABRIC.md, 10 Mb/s links, its sFlow
 * map written here by hand as fabric-up writes it (agent 127.0.0.1, an ifIndex per port). Records
 * built by hand as the collector and normalize write them: two TCP flows from h1 to h2 both through
 * spine1, 4.5 and 3.5 Mb/s (bytes already scaled by the sampling rate 10), spine1's links at 8
 * Mb/s, spine2's at 0.5 Mb/s. The 4.5 Mb/s flow is moved to spine2; the command's HMAC is checked
 * with javax.crypto and the stack's key, as the adapters check it. The round's view of the 12 links
 * (4 cables and 2 host cables, both ways) comes out on fabric.links.v1, once each.
 */
@Tag("integration")
class FabricEndToEndTest {
  static final String TEST = "fabric";
  static final String AGENT = "127.0.0.1";

  @TempDir(cleanup = CleanupMode.ON_SUCCESS)
  Path dir;

  /** The leaf-spine example of docs/FABRIC.md, "The topology file". */
  static final String YAML =
      """
      name: leaf-spine
      switches:
        - {name: spine1, layer: core, ports: [1, 2]}
        - {name: spine2, layer: core, ports: [1, 2]}
        - {name: leaf1, layer: edge, ports: [1, 2, 3]}
        - {name: leaf2, layer: edge, ports: [1, 2, 3]}
      links:
        - {a: leaf1:2, b: spine1:1, capacity_bps: 10e6}
        - {a: leaf1:3, b: spine2:1, capacity_bps: 10e6}
        - {a: leaf2:2, b: spine1:2, capacity_bps: 10e6}
        - {a: leaf2:3, b: spine2:2, capacity_bps: 10e6}
      hosts:
        - {name: h1, address: 10.0.1.2, edge: leaf1:1, capacity_bps: 10e6}
        - {name: h2, address: 10.0.2.2, edge: leaf2:1, capacity_bps: 10e6}
      """;

  /** ifIndex of a switch port: leaf1 1x, leaf2 2x, spine1 3x, spine2 4x (x = the port). */
  static final Map<String, Integer> BASE =
      Map.of("leaf1", 10, "leaf2", 20, "spine1", 30, "spine2", 40);

  static int ifIndex(String sw, int port) {
    return BASE.get(sw) + port;
  }

  /**
   * Writes the topology and its sFlow map (as fabric-up writes it) to {@code dir}; returns the
   * settings that make the stack run the fabric job on them.
   */
  static Map<String, String> writeFabric(Path dir) throws IOException {
    Path topology = dir.resolve("leaf-spine.yaml");
    Files.writeString(topology, YAML);
    StringBuilder map = new StringBuilder("[");
    for (String sw : List.of("leaf1", "leaf2", "spine1", "spine2")) {
      for (int port = 1; port <= (sw.startsWith("leaf") ? 3 : 2); port++) {
        map.append(map.length() > 1 ? "," : "")
            .append(
                String.format(
                    "{\"agent\": \"%s\", \"if_index\": %d, \"switch\": \"%s\", \"port\": %d,"
                        + " \"interface\": \"x%s%d\"}",
                    AGENT, ifIndex(sw, port), sw, port, sw, port));
      }
    }
    Path sflowMap = dir.resolve("sflow-map.json");
    Files.writeString(sflowMap, map.append("]").toString());
    return Map.of(
        "fabric.topology-file", topology.toString(),
        "fabric.sflow-map-file", sflowMap.toString());
  }

  /**
   * Second {@code s} after {@code t0}: counters at its start for the second before (spine1's links
   * at 8 Mb/s, spine2's at 0.5 Mb/s: 1 000 000 and 62 500 bytes, {@code octets} running totals of
   * leaf1:2, spine1:2, leaf1:3, spine2:2), then samples at 100 and 600 ms into it of the two flows
   * from h1 to h2 through spine1, 4.5 and 3.5 Mb/s.
   */
  static void second(KafkaProducer<byte[], byte[]> producer, long t0, int s, long[] octets)
      throws Exception {
    long t = t0 + s * 1000L;
    int i = 0;
    for (String port : List.of("leaf1:2", "spine1:2", "leaf1:3", "spine2:2")) {
      octets[i] += i < 2 ? 1_000_000 : 62_500;
      String[] sp = port.split(":");
      send(
          producer,
          Topics.SNMP_COUNTERS,
          SnmpCounters.newBuilder()
              .setLinkId(AGENT + "/" + ifIndex(sp[0], Integer.parseInt(sp[1])))
              .setDevice(AGENT)
              .setIfIndex(ifIndex(sp[0], Integer.parseInt(sp[1])))
              .setPolledMs(t)
              .setIfHcOutOctets(octets[i])
              .setIfHighSpeedMbps(10_000)
              .setCountersReset(s == 0)
              .build()
              .toByteArray());
      i++;
    }
    for (long at : new long[] {t + 100, t + 600}) {
      for (int[] flow : new int[][] {{40001, 4_500_000}, {40002, 3_500_000}}) {
        long bytes = flow[1] / 16; // half a second of the flow
        // At leaf1: in from h1 (port 1), out to spine1 (port 2); at spine1: in 1, out 2.
        send(producer, Topics.FLOWS, sample(at, flow[0], bytes, "leaf1", 1, 2).toByteArray());
        send(producer, Topics.FLOWS, sample(at + 5, flow[0], bytes, "spine1", 1, 2).toByteArray());
      }
    }
  }

  @Test
  void twoElephantsOnOneSpineOneIsReroutedByASignedCommand() throws Exception {
    Map<String, String> settings = writeFabric(dir);
    Tools tools = EndToEnd.tools();
    try (Stack stack =
        new Stack(
            EndToEnd.config(settings),
            tools,
            dir.resolve("stack"),
            true,
            s -> EndToEnd.say(TEST, s))) {
      stack.start();
      Properties p = new Properties();
      p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, stack.bootstrap());
      p.put(ProducerConfig.ACKS_CONFIG, "all");
      Properties c = new Properties();
      c.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, stack.bootstrap());
      c.put(ConsumerConfig.GROUP_ID_CONFIG, "fabric-test");
      c.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
      // Event time: whole seconds a minute ago (the readers refuse times ahead of the record's).
      long t0 = (System.currentTimeMillis() / 1000) * 1000 - 60_000;
      try (KafkaProducer<byte[], byte[]> producer =
              new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer());
          KafkaConsumer<byte[], byte[]> consumer =
              new KafkaConsumer<>(c, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
        consumer.subscribe(List.of(Topics.REDIRECTS_COMMANDS));
        long[] octets = new long[4];
        // Three seconds: counters at each second's start for the second before (8 and 0.5 Mb/s:
        // 1 000 000 and 62 500 bytes), samples at 100 and 600 ms into it. Only the round ending
        // at t0 + 1 s runs (a round waits for both topics to pass its end by 0.5 s): the later
        // ones would see the same 8 Mb/s, which these records do not lower after the move.
        for (int s = 0; s <= 2; s++) {
          second(producer, t0, s, octets);
        }
        producer.flush();
        List<RedirectCommand> commands = new ArrayList<>();
        Wait.forValue(
            "a command on " + Topics.REDIRECTS_COMMANDS,
            Duration.ofMinutes(2),
            Duration.ofMillis(10),
            () -> {
              for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                try {
                  commands.add(RedirectCommand.parseFrom(r.value()));
                } catch (com.google.protobuf.InvalidProtocolBufferException e) {
                  throw new AssertionError("undecodable command", e);
                }
              }
              return commands.isEmpty() ? Optional.empty() : Optional.of(commands.size());
            });
        // Nothing else: a second command would be a second move.
        long until = System.nanoTime() + 5_000_000_000L;
        while (System.nanoTime() < until) {
          for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
            commands.add(RedirectCommand.parseFrom(r.value()));
          }
        }
        assertThat(commands).hasSize(1);
        RedirectCommand add = commands.get(0);
        assertThat(add.getAction()).isEqualTo(RedirectAction.REDIRECT_ACTION_REROUTE);
        assertThat(add.getDeviceId()).isEqualTo("leaf-spine");
        assertThat(add.getSrcPrefix()).isEqualTo(Codec.addr(Address.parse("10.0.1.2")));
        assertThat(add.getDstPrefix()).isEqualTo(Codec.addr(Address.parse("10.0.2.2")));
        assertThat(List.of(add.getSrcPort(), add.getDstPort(), add.getProto()))
            .containsExactly(40001, 5201, 6);
        assertThat(add.getPath()).isEqualTo("leaf1:3>spine2:1,spine2:2>leaf2:3");
        assertThat(add.getLinkId()).isEqualTo("leaf1:2>spine1:1");
        // The round ending at t0 + 1 s took the samples of its second and the counters at 1 s.
        assertThat(add.getIssuedMs()).isEqualTo(t0 + 1000);
        assertThat(add.getExpiresMs()).isEqualTo(t0 + 1000 + 3_600_000);
        assertThat(add.getReason()).contains("80.0 %", "biggest", "4.50 Mb/s");
        JsonNode keys = new ObjectMapper().readTree(Files.readString(stack.redirectKeys()));
        String secret = keys.get("keys").get(add.getKeyId()).asText();
        assertThat(add.getKeyId()).isEqualTo(keys.get("active").asText());
        Mac m = Mac.getInstance("HmacSHA256");
        m.init(new SecretKeySpec(HexFormat.of().parseHex(secret), "HmacSHA256"));
        byte[] expected = m.doFinal(add.toBuilder().clearHmac().build().toByteArray());
        assertThat(HexFormat.of().formatHex(add.getHmac().toByteArray()))
            .isEqualTo(HexFormat.of().formatHex(expected));
        assertLinkStates(stack, t0, add.getCommandId());
      }
      assertThat(stack.jobStatuses()).containsEntry(FabricJob.NAME, JobStatus.RUNNING);
      assertThat(stack.jobRestarts().get(FabricJob.NAME)).isZero();
    }
  }

  /**
   * The one round's links on fabric.links.v1, read committed (the topic is transactional): one row
   * per link of the fabric, 12, none twice; spine1's up-link as worked by hand above.
   */
  private static void assertLinkStates(Stack stack, long t0, String rerouteId) throws Exception {
    Properties c = new Properties();
    c.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, stack.bootstrap());
    c.put(ConsumerConfig.GROUP_ID_CONFIG, "fabric-links-test");
    c.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    c.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    List<FabricLinkState> links = new ArrayList<>();
    try (KafkaConsumer<byte[], byte[]> consumer =
        new KafkaConsumer<>(c, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      consumer.subscribe(List.of(Topics.FABRIC_LINKS));
      Wait.forValue(
          "12 link states on " + Topics.FABRIC_LINKS,
          Duration.ofMinutes(2),
          Duration.ofMillis(10),
          () -> {
            for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
              try {
                links.add(FabricLinkState.parseFrom(r.value()));
              } catch (com.google.protobuf.InvalidProtocolBufferException e) {
                throw new AssertionError("undecodable link state", e);
              }
            }
            return links.size() >= 12 ? Optional.of(links.size()) : Optional.empty();
          });
      // A checkpoint later: still 12 (no row twice, no other round).
      long until = System.nanoTime() + 5_000_000_000L;
      while (System.nanoTime() < until) {
        for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
          links.add(FabricLinkState.parseFrom(r.value()));
        }
      }
    }
    assertThat(links).hasSize(12);
    assertThat(links).extracting(FabricLinkState::getLinkId).doesNotHaveDuplicates();
    assertThat(links)
        .allMatch(l -> l.getRoundMs() == t0 + 1000 && l.getFabric().equals("leaf-spine"));
    FabricLinkState up1 =
        links.stream().filter(l -> l.getLinkId().equals("leaf1:2>spine1:1")).findFirst().get();
    // 1 000 000 bytes in the second before t0 + 1 s: 8 Mb/s of 10, over 7; both flows (4.5 and
    // 3.5 Mb/s) above 1 Mb/s; the 4.5 Mb/s one is the top and the one moved.
    assertThat(
            String.format(
                Locale.ROOT,
                "%s %d>%s %d %.0f %.0f %b %d %d %.0f %d",
                up1.getFromNode(),
                up1.getFromPort(),
                up1.getToNode(),
                up1.getToPort(),
                up1.getCapacityBps(),
                up1.getUtilisationBps(),
                up1.getOverThreshold(),
                up1.getFlows(),
                up1.getElephants(),
                up1.getTopBps(),
                up1.getTopSrcPort()))
        .isEqualTo("leaf1 2>spine1 1 10000000 8000000 true 2 2 4500000 40001");
    assertThat(up1.getRerouteCommandId()).isEqualTo(rerouteId);
    // h1's cable into leaf1: sampled by leaf1 (both flows), no counters for it.
    FabricLinkState host =
        links.stream().filter(l -> l.getLinkId().equals("h1:0>leaf1:1")).findFirst().get();
    assertThat(host.getFlows()).isEqualTo(2);
    assertThat(host.getMeasured()).isFalse();
    assertThat(host.getBetweenSwitches()).isFalse();
  }

  /** A flow sample as normalize writes it from goflow2's sFlow record (bytes scaled by N = 10). */
  static FlowRecord sample(long at, int srcPort, long bytes, String sw, int in, int out) {
    return FlowRecord.newBuilder()
        .setExporter(Codec.addr(Address.parse(AGENT)))
        .setSource(FlowSource.FLOW_SOURCE_SFLOW)
        .setReceivedMs(at)
        .setStartMs(at)
        .setEndMs(at)
        .setSrcAddr(Codec.addr(Address.parse("10.0.1.2")))
        .setDstAddr(Codec.addr(Address.parse("10.0.2.2")))
        .setSrcPort(srcPort)
        .setDstPort(5201)
        .setProto(6)
        .setBytes(bytes)
        .setPackets(Math.max(1, bytes / 1000))
        .setSamplingRate(10)
        .setInIf(ifIndex(sw, in))
        .setOutIf(ifIndex(sw, out))
        .build();
  }

  static void send(KafkaProducer<byte[], byte[]> producer, String topic, byte[] value)
      throws Exception {
    producer.send(new ProducerRecord<>(topic, null, value)).get();
  }
}
