package net.cheetah.fabric;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The topology file: the documented example loads, and each mistake gets an error saying where. */
class FabricFileTest {
  /** Two edge (leaf) switches, two core (spine) switches, one host per leaf. */
  private static final String LEAF_SPINE =
      """
      name: leaf-spine
      switches:
        - {name: s1, layer: core, ports: [1, 2]}
        - {name: s2, layer: core, ports: [1, 2]}
        - {name: l1, layer: edge, ports: [1, 2, 3]}
        - {name: l2, layer: edge, ports: [1, 2, 3]}
      links:
        - {a: l1:2, b: s1:1, capacity_bps: 10e6}
        - {a: l1:3, b: s2:1, capacity_bps: 10e6}
        - {a: l2:2, b: s1:2, capacity_bps: 10e6}
        - {a: l2:3, b: s2:2, capacity_bps: 10e6}
      hosts:
        - {name: h1, address: 10.0.1.2, edge: l1:1, capacity_bps: 10e6}
        - {name: h2, address: 10.0.2.2, edge: l2:1, capacity_bps: 10e6}
      """;

  private static Fabric parse(String text) {
    return FabricFile.parse(text, "t.yaml");
  }

  @Test
  void aLeafSpineFileLoadsWithTwoPathsBetweenItsLeaves(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("leaf-spine.yaml");
    Files.writeString(file, LEAF_SPINE);
    Fabric f = FabricFile.load(file);
    assertThat(f.switches()).hasSize(4);
    assertThat(f.links()).hasSize(12); // 4 switch cables + 2 host cables, two directions each
    assertThat(f.paths("l1", "l2"))
        .extracting(FabricPath::toString)
        .containsExactly("l1:2>s1:1,s1:2>l2:2", "l1:3>s2:1,s2:2>l2:3");
    assertThat(f.link("l1:2>s1:1").orElseThrow().capacityBps()).isEqualTo(10e6);
    assertThat(f.link("s1:1>l1:2")).isPresent();
  }

  @Test
  void theExampleInTheDocsLoads() throws Exception {
    Path doc =
        Path.of(System.getProperty("cheetah.root", "../..")).resolve("docs").resolve("FABRIC.md");
    Matcher m = Pattern.compile("```yaml\n(.*?)```", Pattern.DOTALL).matcher(Files.readString(doc));
    assertThat(m.find()).as("docs/FABRIC.md has a ```yaml example").isTrue();
    Fabric f = FabricFile.parse(m.group(1), "docs/FABRIC.md");
    assertThat(f.paths(edges(f).get(0), edges(f).get(1))).hasSize(2);
  }

  private static List<String> edges(Fabric f) {
    return f.switches().stream().filter(s -> s.layer() == Layer.EDGE).map(Switch::name).toList();
  }

  private static void fails(String text, String... says) {
    assertThatThrownBy(() -> parse(text))
        .isInstanceOf(FabricException.class)
        .satisfies(
            e -> {
              for (String s : says) {
                assertThat(e.getMessage()).contains(s);
              }
            });
  }

  @Test
  void anUnknownSwitchIsNamed() {
    fails(LEAF_SPINE.replace("b: s2:2", "b: s3:2"), "t.yaml: links[3]", "unknown switch 's3'");
  }

  @Test
  void aPortListedTwiceIsAnError() {
    fails(
        LEAF_SPINE.replace("ports: [1, 2, 3]}", "ports: [1, 2, 2]}"),
        "switches[2]",
        "lists port 2 twice");
  }

  @Test
  void aPortCabledTwiceIsAnError() {
    fails(
        LEAF_SPINE.replace("b: s2:2", "b: s2:1"),
        "links[3]",
        "port s2:1 is already used by t.yaml: links[1] (l1:3 - s2:1)");
    fails(
        LEAF_SPINE.replace("edge: l2:1", "edge: l1:1"),
        "hosts[1]",
        "port l1:1 is already used by host h1");
  }

  @Test
  void aPortTheSwitchDoesNotDeclareIsAnError() {
    fails(
        LEAF_SPINE.replace("a: l2:3", "a: l2:4"),
        "links[3]",
        "switch 'l2' has no port 4 (its ports: [1, 2, 3])");
  }

  @Test
  void aHostWithoutAnEdgeOrOnANonEdgeSwitchIsAnError() {
    fails(LEAF_SPINE.replace(", edge: l2:1", ""), "hosts[1]", "host 'h2' has no edge");
    fails(
        LEAF_SPINE
            .replace(
                "{name: s2, layer: core, ports: [1, 2]}",
                "{name: s2, layer: core, ports: [1, 2, 3]}")
            .replace("edge: l2:1", "edge: s2:3"),
        "hosts[1]",
        "s2:3, a core switch; hosts attach to edge switches");
  }

  @Test
  void disconnectedEdgeSwitchesAreAnError() {
    fails(
        LEAF_SPINE
            .replace("  - {a: l2:2, b: s1:2, capacity_bps: 10e6}\n", "")
            .replace("  - {a: l2:3, b: s2:2, capacity_bps: 10e6}\n", ""),
        "edge switches 'l1' and 'l2' are not connected");
  }

  @Test
  void otherMistakesSayWhatToFix() {
    fails(
        LEAF_SPINE.replace("{name: s2, layer: core", "{name: s1, layer: core"),
        "switches[1]",
        "switch 's1' is declared twice");
    fails(
        LEAF_SPINE.replace(
            "layer: core, ports: [1, 2]}\n  - {name: s2",
            "layer: spine, ports: [1, 2]}\n  - {name: s2"),
        "switches[0]",
        "layer 'spine'");
    fails(
        LEAF_SPINE.replace("b: s1:1, capacity_bps: 10e6", "b: s1:1, capacity: 10e6"),
        "links[0]",
        "unknown field 'capacity'");
    fails(
        LEAF_SPINE.replace("b: s1:1, capacity_bps: 10e6", "b: s1:1, capacity_bps: 0"),
        "links[0]",
        "capacity_bps must be > 0");
    fails(
        LEAF_SPINE.replace("b: s1:1, capacity_bps: 10e6", "b: s1:1, capacity_bps: fast"),
        "links[0]",
        "'fast' is not a number");
    fails(LEAF_SPINE.replace("a: l1:2", "a: l1"), "links[0]", "'l1' is not a port");
    fails(LEAF_SPINE.replace("b: s1:1", "b: l1:3"), "links[0]", "connects switch 'l1' to itself");
    fails(
        LEAF_SPINE.replace("address: 10.0.2.2", "address: 10.0.1.2"),
        "hosts[1]",
        "address 10.0.1.2 is already");
    fails(
        LEAF_SPINE.replace("address: 10.0.2.2", "address: hostname"),
        "hosts[1]",
        "'hostname' is not an IP address");
    fails(LEAF_SPINE.replace("links:", "links: ["), "t.yaml is not valid YAML (line");
    fails("- just a list", "must be a YAML mapping");
    fails(LEAF_SPINE.replace("links:", "cables:"), "unknown field 'cables'");
  }
}
