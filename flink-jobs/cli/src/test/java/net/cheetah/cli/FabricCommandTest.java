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
}
