package net.cheetah.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import net.cheetah.fabric.Fabric;
import net.cheetah.fabric.FabricFile;
import net.cheetah.fabric.FabricPath;
import net.cheetah.fabric.FatTree;
import net.cheetah.fabric.Layer;
import net.cheetah.fabric.Switch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code ./cheetah fabric}: the fabric topology file of elephant re-routing (docs/FABRIC.md): write
 * the k-ary fat-tree's, or check a file and list its equal-cost paths.
 */
@Command(
    name = "fabric",
    mixinStandardHelpOptions = true,
    description = {
      "The datacenter fabric's topology file (docs/FABRIC.md, \"The topology file\").",
      "  ./cheetah fabric fat-tree --k 4 --capacity 10e6 --out k4.yaml",
      "  ./cheetah fabric check k4.yaml [--paths e1 e3]",
      "Exit status: 0 done; 2 a bad file or option (the error names the entry)."
    },
    subcommands = {FabricCommand.WriteFatTree.class, FabricCommand.Check.class})
final class FabricCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Override
  public Integer call() {
    spec.commandLine().usage(spec.commandLine().getErr());
    return 2;
  }

  @Command(
      name = "fat-tree",
      mixinStandardHelpOptions = true,
      description =
          "Write the topology file of a k-ary fat-tree (docs/FABRIC.md, \"The k-ary fat-tree\").")
  static final class WriteFatTree implements Callable<Integer> {
    @Option(names = "--k", defaultValue = "4", description = "Ports per switch (even; default 4).")
    int k;

    @Option(
        names = "--capacity",
        paramLabel = "BPS",
        defaultValue = "10e6",
        description = "Every cable's capacity in bit/s, each way (default 10e6, the study's).")
    double capacity;

    @Option(names = "--out", paramLabel = "FILE", description = "Write here (default: stdout).")
    Path out;

    @Spec CommandSpec spec;

    @Override
    public Integer call() throws IOException {
      Fabric f = FatTree.of(k, capacity);
      String text =
          FabricFile.write(
              f,
              "k = "
                  + k
                  + " fat-tree, "
                  + FabricCommand.bps(capacity)
                  + " cables: written by ./cheetah fabric fat-tree (docs/FABRIC.md)");
      if (out == null) {
        spec.commandLine().getOut().print(text);
        spec.commandLine().getOut().flush();
      } else {
        Files.writeString(out, text);
        spec.commandLine().getOut().println(f + " written to " + out);
      }
      return 0;
    }
  }

  @Command(
      name = "check",
      mixinStandardHelpOptions = true,
      description = "Load a topology file, print what it holds, and optionally the paths.")
  static final class Check implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "FILE", description = "The topology file (YAML).")
    Path file;

    @Option(
        names = "--paths",
        arity = "2",
        paramLabel = "EDGE",
        description = "Print the equal-cost paths from one edge switch to another.")
    List<String> paths;

    @Spec CommandSpec spec;

    @Override
    public Integer call() {
      Fabric f = FabricFile.load(file);
      PrintWriter out = spec.commandLine().getOut();
      out.println(f.name() + ": " + f.portCount() + " switch ports");
      for (Layer layer : Layer.values()) {
        List<String> names =
            f.switches().stream().filter(s -> s.layer() == layer).map(Switch::name).toList();
        out.println("  " + layer.written() + ": " + names.size() + " " + names);
      }
      out.println(
          "  hosts: " + f.hosts().size() + ", links (one per direction): " + f.links().size());
      if (paths != null) {
        List<FabricPath> p = f.paths(paths.get(0), paths.get(1));
        out.println(
            p.size() + " equal-cost paths from " + paths.get(0) + " to " + paths.get(1) + ":");
        p.forEach(x -> out.println("  " + String.join("-", x.switches()) + "  " + x));
      }
      out.flush();
      return 0;
    }
  }

  static String bps(double v) {
    return v >= 1e9 ? (v / 1e9) + " Gb/s" : (v / 1e6) + " Mb/s";
  }
}
