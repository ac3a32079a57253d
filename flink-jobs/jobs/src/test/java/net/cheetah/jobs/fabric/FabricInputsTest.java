package net.cheetah.jobs.fabric;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import net.cheetah.core.flow.Address;
import net.cheetah.fabric.Fabric;
import net.cheetah.fabric.FabricFile;
import net.cheetah.fabric.FabricFlow;
import net.cheetah.fabric.FabricRounds;
import net.cheetah.fabric.Port;
import net.cheetah.fabric.SflowPortMap;
import net.cheetah.jobs.codec.Codec;
import net.cheetah.schemas.v1.FlowRecord;
import net.cheetah.schemas.v1.FlowSource;
import net.cheetah.schemas.v1.SnmpCounters;
import org.junit.jupiter.api.Test;

/**
 * The fabric job's readers on hand-built records of the leaf-spine example (docs/FABRIC.md): an
 * sFlow sample of the map's agent is placed on the links it measures, with normalize's scaled bytes
 * kept as they are; a counter record names the link leaving its port; records of other exporters,
 * of ports not in the map and of SNMP links are not the fabric's.
 */
class FabricInputsTest {
  static final Fabric LEAF_SPINE =
      FabricFile.parse(
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
          """,
          "leaf-spine.yaml");

  /** ifIndex 10 + port on leaf1, 20 + port on leaf2, 30 + port on spine1, 40 + port on spine2. */
  static final SflowPortMap MAP = map();

  static SflowPortMap map() {
    List<SflowPortMap.Entry> rows = new ArrayList<>();
    String[] switches = {"leaf1", "leaf2", "spine1", "spine2"};
    for (int s = 0; s < 4; s++) {
      for (int port = 1; port <= (s < 2 ? 3 : 2); port++) {
        rows.add(
            new SflowPortMap.Entry("127.0.0.1", 10L * (s + 1) + port, new Port(switches[s], port)));
      }
    }
    return SflowPortMap.of(LEAF_SPINE, rows);
  }

  static FlowRecord sample(String exporter, int in, int out) {
    return FlowRecord.newBuilder()
        .setExporter(Codec.addr(Address.parse(exporter)))
        .setSource(FlowSource.FLOW_SOURCE_SFLOW)
        .setReceivedMs(5000)
        .setStartMs(5000)
        .setEndMs(5000)
        .setSrcAddr(Codec.addr(Address.parse("10.0.1.2")))
        .setDstAddr(Codec.addr(Address.parse("10.0.2.2")))
        .setSrcPort(40001)
        .setDstPort(5201)
        .setProto(6)
        .setBytes(10_000) // a 1000-byte frame sampled 1 in 10, as normalize writes it
        .setPackets(10)
        .setSamplingRate(10)
        .setInIf(in)
        .setOutIf(out)
        .build();
  }

  static SnmpCounters counters(String linkId) {
    return SnmpCounters.newBuilder()
        .setLinkId(linkId)
        .setPolledMs(7000)
        .setIfHcOutOctets(123_456)
        .setIfHighSpeedMbps(10_000)
        .setCountersReset(true)
        .build();
  }

  @Test
  void aSampleOfTheMapsAgentIsPlacedOnTheLinksItMeasures() {
    FabricRounds.Sample s = FabricInputs.sample(LEAF_SPINE, MAP, sample("127.0.0.1", 11, 12)).get();
    // At leaf1, in by h1's port, out by port 2: h1's link (no sFlow at the host) and the up-link.
    assertThat(s.measured()).containsExactly("h1:0>leaf1:1", "leaf1:2>spine1:1");
    assertThat(s.scaledBytes()).isEqualTo(10_000);
    assertThat(s.atMs()).isEqualTo(5000);
    assertThat(s.flow())
        .isEqualTo(
            new FabricFlow(Address.parse("10.0.1.2"), Address.parse("10.0.2.2"), 40001, 5201, 6));
    // At spine1, in 1 out 2: only the down-link is measured there.
    assertThat(FabricInputs.sample(LEAF_SPINE, MAP, sample("127.0.0.1", 31, 32)).get().measured())
        .containsExactly("spine1:2>leaf2:2");
  }

  @Test
  void samplesOfOtherExportersOrPortsAreNotTheFabrics() {
    assertThat(FabricInputs.sample(LEAF_SPINE, MAP, sample("10.9.9.9", 11, 12))).isEmpty();
    // A bridge's own port (OpenFlow LOCAL) is not in the map.
    assertThat(FabricInputs.sample(LEAF_SPINE, MAP, sample("127.0.0.1", 99, 12))).isEmpty();
  }

  @Test
  void aCounterRecordIsASampleOfTheLinkLeavingItsPort() {
    FabricInput c = FabricInputs.counter(LEAF_SPINE, MAP, counters("127.0.0.1/12")).get();
    assertThat(c.sample()).isNull();
    assertThat(c.linkId()).isEqualTo("leaf1:2>spine1:1");
    assertThat(List.of(c.atMs(), c.octets())).containsExactly(7000L, 123_456L);
    assertThat(c.speedBps()).isEqualTo(10e9);
    assertThat(c.reset()).isTrue();
    assertThat(FabricInputs.counter(LEAF_SPINE, MAP, counters("127.0.0.1/21")).get().linkId())
        .isEqualTo("leaf2:1>h2:0");
    for (String other : List.of("127.0.0.1/99", "10.9.9.9/12", "esnet-a", "r1/x", "/12")) {
      assertThat(FabricInputs.counter(LEAF_SPINE, MAP, counters(other))).as(other).isEmpty();
    }
  }
}
