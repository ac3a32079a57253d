package net.cheetah.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code ./cheetah fabric}: the fat-tree's file written, read back, and a bad file refused. */
class FabricCommandTest {
  @TempDir Path dir;

  // The leaf-spine example of docs/FABRIC.md and the ifIndex map of one measured bring-up, as in
  // flink-jobs/fabric's SflowPlacementTest.
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

  private record Run(int exit, String out, String err) {}

  private static Run run(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    CommandLine cl = Main.commandLine();
    cl.setOut(new PrintWriter(out));
    cl.setErr(new PrintWriter(err));
    int exit = cl.execute(args);
    return new Run(exit, out.toString(), err.toString());
  }

  @Test
  void theK4FatTreeIsWrittenAndCheckedWithItsFourPathsAcrossPods() {
    Path file = dir.resolve("k4.yaml");
    Run write = run("fabric", "fat-tree", "--k", "4", "--out", file.toString());
    assertThat(write.exit()).as(write.err()).isZero();
    assertThat(Files.exists(file)).isTrue();
    Run check = run("fabric", "check", file.toString(), "--paths", "e1", "e3");
    assertThat(check.exit()).as(check.err()).isZero();
    assertThat(check.out())
        .contains("fat-tree-k4: 80 switch ports")
        .contains("  core: 4 [c1, c2, c3, c4]")
        .contains("  aggregation: 8 ")
        .contains("  edge: 8 ")
        .contains("  hosts: 16, links (one per direction): 96")
        .contains("4 equal-cost paths from e1 to e3:")
        .contains("  e1-a2-c4-a4-e3  e1:4>a2:1,a2:4>c4:1,c4:2>a4:4,a4:1>e3:4");
  }

  @Test
  void aBadFileIsRefusedWithTheEntryNamed() throws Exception {
    Path file = dir.resolve("bad.yaml");
    Files.writeString(
        file,
        String.join(
            "\n",
            "name: bad",
            "switches:",
            "  - {name: l1, layer: edge, ports: [1, 2]}",
            "links:",
            "  - {a: l1:2, b: s9:1, capacity_bps: 10e6}",
            ""));
    Run check = run("fabric", "check", file.toString());
    assertThat(check.exit()).isEqualTo(2);
    assertThat(check.err()).contains("links[0]: unknown switch 's9' in s9:1");
    assertThat(run("fabric", "fat-tree", "--k", "3").err()).contains("even k");
  }

  @Test
  void sflowSamplesAndCountersArePlacedOnLinks() throws Exception {
    Path fabric = dir.resolve("leaf-spine.yaml");
    Files.writeString(fabric, LEAF_SPINE);
    Path map = dir.resolve("sflow-map.json");
    Files.writeString(map, MAP_JSON);
    String flow =
        "\"src\": \"10.0.1.2\", \"dst\": \"10.0.2.2\", \"src_port\": 41000, \"dst_port\": 5201,"
            + " \"proto\": 6";
    Path samples = dir.resolve("samples.jsonl");
    String atLeaf1 =
        "{\"agent\": \"127.0.0.1\", \"in_if\": 1045, \"out_if\": 1037, \"bytes\": 1500,"
            + " \"sampling_rate\": 10, "
            + flow
            + "}";
    Files.writeString(
        samples,
        String.join(
            "\n",
            atLeaf1,
            atLeaf1,
            atLeaf1,
            "{\"agent\": \"127.0.0.1\", \"in_if\": 1036, \"out_if\": 1040, \"bytes\": 1000,"
                + " \"sampling_rate\": 10, "
                + flow
                + "}",
            "{\"agent\": \"127.0.0.1\", \"in_if\": 9999, \"out_if\": 1040, \"bytes\": 1000,"
                + " \"sampling_rate\": 10, "
                + flow
                + "}"));
    Path counters = dir.resolve("counters.jsonl");
    String c =
        "{\"event\": \"counters\", \"device\": \"127.0.0.1\", \"if_index\": %d, \"polled_ms\": %d,"
            + " \"if_hc_out_octets\": %d, \"if_high_speed_mbps\": 10000, \"counters_reset\": %b}";
    Files.writeString(
        counters,
        String.join(
            "\n",
            "{\"event\": \"ready\"}",
            String.format(c, 1037, 1000, 0, true),
            String.format(c, 1037, 2000, 1_250_000, false),
            String.format(c, 77, 2000, 5, false)));
    Run r =
        run(
            "fabric",
            "sflow-links",
            fabric.toString(),
            "--map",
            map.toString(),
            "--samples",
            samples.toString(),
            "--counters",
            counters.toString(),
            "--window-ms",
            "2000");
    assertThat(r.exit()).as(r.err()).isZero();
    var out = new com.fasterxml.jackson.databind.ObjectMapper().readTree(r.out());
    // By hand: leaf1 measures h1's link and its up-link, 3 x 1500 B x 10 = 45000 B in 2 s =
    // 180000 bit/s; spine1 measures spine1:2>leaf2:2, 1000 B x 10 = 10000 B = 40000 bit/s.
    assertThat(out.get("flows").toString())
        .isEqualTo(
            "[{\"link\":\"h1:0>leaf1:1\",\"flow\":\"10.0.1.2:41000>10.0.2.2:5201/6\","
                + "\"estimated_bytes\":45000.0,\"bps\":180000.0},"
                + "{\"link\":\"leaf1:2>spine1:1\",\"flow\":\"10.0.1.2:41000>10.0.2.2:5201/6\","
                + "\"estimated_bytes\":45000.0,\"bps\":180000.0},"
                + "{\"link\":\"spine1:2>leaf2:2\",\"flow\":\"10.0.1.2:41000>10.0.2.2:5201/6\","
                + "\"estimated_bytes\":10000.0,\"bps\":40000.0}]");
    // 1 250 000 octets in 1 s out of leaf1:2 = 10 Mbit/s on leaf1:2>spine1:1.
    assertThat(out.get("utilisation").toString())
        .isEqualTo(
            "[{\"link\":\"leaf1:2>spine1:1\",\"from_ms\":1000,\"to_ms\":2000,\"bps\":1.0E7}]");
    assertThat(out.get("refused").toString())
        .contains("samples.jsonl:5\",\"reason\":\"input ifIndex 9999 of agent 127.0.0.1 is not in")
        .contains("counters.jsonl:4\",\"reason\":\"agent 127.0.0.1 ifIndex 77 is on no link\"");
  }
}
