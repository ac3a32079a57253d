package net.cheetah.fabric;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.util.List;
import net.cheetah.core.flow.Address;
import org.junit.jupiter.api.Test;

/**
 * The k-ary fat-tree against facts counted by hand from its definition (Al-Fares et al.): k = 4 has
 * 4 core, 8 aggregation and 8 edge switches of 4 ports each (80 ports), 16 hosts, 16 edge-to-
 * aggregation and 16 aggregation-to-core cables plus 16 host cables (48 cables, 96 directed links);
 * (k/2)² = 4 equal-cost paths of 4 links between edge switches of different pods, k/2 = 2 of 2
 * links within a pod.
 */
class FatTreeTest {
  private static final double TEN_MBPS = 10e6;
  private final Fabric k4 = FatTree.of(4, TEN_MBPS);

  @Test
  void k4HasTheSwitchesHostsPortsAndLinksCountedByHand() {
    assertThat(k4.switches().stream().filter(s -> s.layer() == Layer.CORE)).hasSize(4);
    assertThat(k4.switches().stream().filter(s -> s.layer() == Layer.AGGREGATION)).hasSize(8);
    assertThat(k4.switches().stream().filter(s -> s.layer() == Layer.EDGE)).hasSize(8);
    assertThat(k4.hosts()).hasSize(16);
    assertThat(k4.portCount()).isEqualTo(80);
    assertThat(k4.links()).hasSize(96);
    // Every declared port carries exactly one cable: 80 ports, 80 link ends leaving a switch.
    assertThat(k4.links().stream().filter(l -> k4.switchNamed(l.from().node()).isPresent()))
        .hasSize(80);
    assertThat(k4.links()).allSatisfy(l -> assertThat(l.capacityBps()).isEqualTo(TEN_MBPS));
  }

  @Test
  void hostsHaveTheirAddressesAndEdgePorts() {
    Host first = k4.hostAt(Address.parse("10.0.0.2")).orElseThrow();
    assertThat(first.name()).isEqualTo("h1");
    assertThat(first.edge()).isEqualTo(new Port("e1", 1));
    Host last = k4.hostAt(Address.parse("10.3.1.3")).orElseThrow();
    assertThat(last.name()).isEqualTo("h16");
    assertThat(last.edge()).isEqualTo(new Port("e8", 2));
    assertThat(k4.hostAt(Address.parse("10.0.0.1"))).isEmpty();
  }

  @Test
  void edgeSwitchesOfDifferentPodsHaveFourPathsThroughTheFourCores() {
    List<FabricPath> paths = k4.paths("e1", "e3");
    assertThat(paths).hasSize(4);
    assertThat(paths)
        .extracting(FabricPath::switches)
        .containsExactly(
            List.of("e1", "a1", "c1", "a3", "e3"),
            List.of("e1", "a1", "c2", "a3", "e3"),
            List.of("e1", "a2", "c3", "a4", "e3"),
            List.of("e1", "a2", "c4", "a4", "e3"));
    assertThat(paths.get(0).toString()).isEqualTo("e1:3>a1:1,a1:3>c1:1,c1:2>a3:3,a3:1>e3:3");
  }

  @Test
  void edgeSwitchesOfOnePodHaveTwoPathsThroughTheirAggregationSwitches() {
    assertThat(k4.paths("e1", "e2"))
        .extracting(FabricPath::switches)
        .containsExactly(List.of("e1", "a1", "e2"), List.of("e1", "a2", "e2"));
    assertThat(k4.paths("e1", "e1")).containsExactly(new FabricPath(List.of()));
  }

  @Test
  void everyPairOfEdgeSwitchesHasTheCountTheFormulaGives() {
    for (int k : new int[] {2, 4, 6}) {
      Fabric f = FatTree.of(k, TEN_MBPS);
      int half = k / 2;
      for (int from = 1; from <= k * half; from++) {
        for (int to = 1; to <= k * half; to++) {
          int expected = from == to ? 1 : (from - 1) / half == (to - 1) / half ? half : half * half;
          assertThat(f.paths("e" + from, "e" + to))
              .as("k=%d e%d>e%d", k, from, to)
              .hasSize(expected);
        }
      }
    }
    Fabric k8 = FatTree.of(8, TEN_MBPS);
    assertThat(k8.switches()).hasSize(16 + 32 + 32);
    assertThat(k8.hosts()).hasSize(128);
  }

  @Test
  void pathsAreOnlyBetweenEdgeSwitches() {
    assertThatThrownBy(() -> k4.paths("a1", "e3")).hasMessageContaining("'a1' is not an edge");
    assertThatThrownBy(() -> FatTree.of(3, TEN_MBPS)).hasMessageContaining("even k");
  }

  @Test
  void theFileWrittenFromAFatTreeReadsBackToTheSameFabric() {
    String text = FabricFile.write(k4, "k = 4 fat-tree, 10 Mb/s links");
    Fabric back = FabricFile.parse(text, "k4.yaml");
    assertThat(back.name()).isEqualTo(k4.name());
    assertThat(back.switches()).containsExactlyElementsOf(k4.switches());
    assertThat(back.hosts()).containsExactlyInAnyOrderElementsOf(k4.hosts());
    assertThat(back.links()).containsExactlyInAnyOrderElementsOf(k4.links());
    assertThat(back.paths("e1", "e8")).isEqualTo(k4.paths("e1", "e8"));
  }

  @Test
  void aFabricSurvivesJavaSerialisationWithItsPaths() throws Exception {
    // Flink ships operators' fields by Java serialisation: the path cache is rebuilt empty.
    k4.paths("e1", "e3");
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
      out.writeObject(k4);
    }
    Fabric back;
    try (ObjectInputStream in =
        new ObjectInputStream(new ByteArrayInputStream(bytes.toByteArray()))) {
      back = (Fabric) in.readObject();
    }
    assertThat(back.paths("e1", "e3")).isEqualTo(k4.paths("e1", "e3"));
    assertThat(back.links()).isEqualTo(k4.links());
  }
}
