package net.cheetah.fabric;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import net.cheetah.core.flow.Address;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * sFlow samples placed on the leaf-spine example of docs/FABRIC.md, with the ifIndex map of one
 * measured bring-up ({@code fabric-up --sflow}, agent 127.0.0.1): leaf1 ports 1, 2, 3 are ifIndex
 * 1045, 1037, 1039; spine1 ports 1, 2 are 1036, 1040; spine2 ports 1, 2 are 1038, 1042; leaf2 ports
 * 1, 2, 3 are 1047, 1041, 1043. Links expected by hand from the wiring (leaf1:2-spine1:1,
 * leaf1:3-spine2:1, leaf2:2-spine1:2, leaf2:3-spine2:2, h1 on leaf1:1, h2 on leaf2:1).
 */
class SflowPlacementTest {
  static final String LEAF_SPINE =
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
  static final Fabric FABRIC = FabricFile.parse(LEAF_SPINE, "test");
  static final String AGENT = "127.0.0.1";
  static final String MAP_JSON =
      """
      [{"agent": "127.0.0.1", "if_index": 1045, "switch": "leaf1", "port": 1, "interface": "x"},
       {"agent": "127.0.0.1", "if_index": 1037, "switch": "leaf1", "port": 2},
       {"agent": "127.0.0.1", "if_index": 1039, "switch": "leaf1", "port": 3},
       {"agent": "127.0.0.1", "if_index": 1036, "switch": "spine1", "port": 1},
       {"agent": "127.0.0.1", "if_index": 1040, "switch": "spine1", "port": 2},
       {"agent": "127.0.0.1", "if_index": 1038, "switch": "spine2", "port": 1},
       {"agent": "127.0.0.1", "if_index": 1042, "switch": "spine2", "port": 2},
       {"agent": "127.0.0.1", "if_index": 1047, "switch": "leaf2", "port": 1},
       {"agent": "127.0.0.1", "if_index": 1041, "switch": "leaf2", "port": 2},
       {"agent": "127.0.0.1", "if_index": 1043, "switch": "leaf2", "port": 3}]
      """;
  static final FabricFlow FLOW =
      new FabricFlow(Address.parse("10.0.1.2"), Address.parse("10.0.2.2"), 41000, 5201, 6);

  @TempDir Path dir;

  SflowPortMap map() throws Exception {
    Path file = dir.resolve("sflow-map.json");
    Files.writeString(file, MAP_JSON);
    return SflowPortMap.load(FABRIC, file);
  }

  private static List<String> ids(List<Link> links) {
    return links.stream().map(Link::id).toList();
  }

  @Test
  void aSampleAtEachSwitchIsPlacedOnTheLinksItCrossed() throws Exception {
    SflowPortMap map = map();
    // At leaf1: in by h1's port (1045), out by port 2 (1037) towards spine1.
    var leaf1 = SflowPlacement.place(FABRIC, map, AGENT, 1045, 1037, 1500, 10);
    assertThat(leaf1.placed()).isTrue();
    assertThat(leaf1.in().map(Link::id)).contains("h1:0>leaf1:1");
    assertThat(leaf1.out().map(Link::id)).contains("leaf1:2>spine1:1");
    // h1's link has no sFlow upstream: leaf1 measures it and its own out link.
    assertThat(ids(leaf1.measured())).containsExactly("h1:0>leaf1:1", "leaf1:2>spine1:1");
    assertThat(leaf1.scaledBytes()).isEqualTo(15000.0); // 1500 bytes x 10
    // At spine1: in by port 1 (1036), out by port 2 (1040): measures only spine1:2>leaf2:2.
    var spine1 = SflowPlacement.place(FABRIC, map, AGENT, 1036, 1040, 1500, 10);
    assertThat(spine1.in().map(Link::id)).contains("leaf1:2>spine1:1");
    assertThat(ids(spine1.measured())).containsExactly("spine1:2>leaf2:2");
    // At leaf2: in by port 2 (1041), out to h2 (1047).
    var leaf2 = SflowPlacement.place(FABRIC, map, AGENT, 1041, 1047, 1500, 10);
    assertThat(leaf2.out().map(Link::id)).contains("leaf2:1>h2:0");
    assertThat(ids(leaf2.measured())).containsExactly("leaf2:1>h2:0");
  }

  @Test
  void droppedOrMultipleOutputIsSeenComingInOnly() throws Exception {
    SflowPortMap map = map();
    for (long out : List.of(0x40000001L, 0x80000002L, 0L)) {
      var p = SflowPlacement.place(FABRIC, map, AGENT, 1036, out, 100, 10);
      assertThat(p.placed()).isTrue();
      assertThat(p.in().map(Link::id)).contains("leaf1:2>spine1:1");
      assertThat(p.out()).isEmpty();
      assertThat(p.measured()).isEmpty();
    }
  }

  @Test
  void unknownInterfacesAndBadRatesAreRefusedSayingWhy() throws Exception {
    SflowPortMap map = map();
    assertThat(SflowPlacement.place(FABRIC, map, AGENT, 9999, 1040, 100, 10).reason())
        .isEqualTo("input ifIndex 9999 of agent 127.0.0.1 is not in the sFlow map");
    assertThat(SflowPlacement.place(FABRIC, map, "10.9.9.9", 1036, 1040, 100, 10).reason())
        .isEqualTo("input ifIndex 1036 of agent 10.9.9.9 is not in the sFlow map");
    assertThat(SflowPlacement.place(FABRIC, map, AGENT, 1036, 7, 100, 10).reason())
        .isEqualTo("output ifIndex 7 of agent 127.0.0.1 is not in the sFlow map");
    assertThat(SflowPlacement.place(FABRIC, map, AGENT, 1036, 1040, 100, 0).reason())
        .startsWith("sampling rate 0");
  }

  @Test
  void ratesPerLinkAreScaledBytesPerSecond() throws Exception {
    SflowPortMap map = map();
    // In a 2 s window, 3 samples of FLOW at leaf1 (1500 B, 1 in 10) and 1 at spine1 (1000 B).
    var atLeaf1 = SflowPlacement.place(FABRIC, map, AGENT, 1045, 1037, 1500, 10);
    var atSpine1 = SflowPlacement.place(FABRIC, map, AGENT, 1036, 1040, 1000, 10);
    var rates =
        SflowPlacement.flowRatesBps(
            List.of(
                Map.entry(FLOW, atLeaf1),
                Map.entry(FLOW, atLeaf1),
                Map.entry(FLOW, atLeaf1),
                Map.entry(FLOW, atSpine1)),
            2000);
    // leaf1:2>spine1:1: 3 x 1500 x 10 = 45000 B in 2 s = 22500 B/s = 180000 bit/s.
    assertThat(rates.get("leaf1:2>spine1:1")).containsExactlyEntriesOf(Map.of(FLOW, 180000.0));
    assertThat(rates.get("h1:0>leaf1:1")).containsExactlyEntriesOf(Map.of(FLOW, 180000.0));
    // spine1:2>leaf2:2: 1000 x 10 = 10000 B in 2 s = 40000 bit/s.
    assertThat(rates.get("spine1:2>leaf2:2")).containsExactlyEntriesOf(Map.of(FLOW, 40000.0));
    assertThat(rates).containsOnlyKeys("leaf1:2>spine1:1", "h1:0>leaf1:1", "spine1:2>leaf2:2");
  }

  @Test
  void theMapIsCheckedAgainstTheFabric() {
    Port p = new Port("leaf1", 2);
    assertThatThrownBy(
            () ->
                SflowPortMap.of(
                    FABRIC, List.of(new SflowPortMap.Entry(AGENT, 5, new Port("leaf9", 1)))))
        .hasMessage("sflow map[0]: unknown switch 'leaf9' (not in the fabric)");
    assertThatThrownBy(
            () ->
                SflowPortMap.of(
                    FABRIC, List.of(new SflowPortMap.Entry(AGENT, 5, new Port("leaf1", 4)))))
        .hasMessage("sflow map[0]: switch leaf1 has no port 4");
    assertThatThrownBy(
            () ->
                SflowPortMap.of(
                    FABRIC,
                    List.of(
                        new SflowPortMap.Entry(AGENT, 5, p),
                        new SflowPortMap.Entry(AGENT, 5, new Port("leaf1", 3)))))
        .hasMessage("sflow map[1]: agent 127.0.0.1 ifIndex 5 is named twice");
    assertThatThrownBy(
            () ->
                SflowPortMap.of(
                    FABRIC,
                    List.of(
                        new SflowPortMap.Entry(AGENT, 5, p), new SflowPortMap.Entry(AGENT, 6, p))))
        .hasMessage("sflow map[1]: port leaf1:2 is named twice");
    // the same ifIndex at two agents is two ports
    SflowPortMap two =
        SflowPortMap.of(
            FABRIC,
            List.of(
                new SflowPortMap.Entry(AGENT, 5, p),
                new SflowPortMap.Entry("127.0.0.2", 5, new Port("leaf1", 3))));
    assertThat(two.port("127.0.0.2", 5)).isEqualTo(Optional.of(new Port("leaf1", 3)));
  }

  @Test
  void aBadMapFileIsRefusedNamingTheRow() throws Exception {
    Path file = dir.resolve("bad.json");
    Files.writeString(file, "[{\"agent\": \"127.0.0.1\", \"if_index\": 3, \"switch\": \"leaf1\"}]");
    assertThatThrownBy(() -> SflowPortMap.load(FABRIC, file))
        .hasMessage(file + ": [0] has no 'port'");
  }
}
