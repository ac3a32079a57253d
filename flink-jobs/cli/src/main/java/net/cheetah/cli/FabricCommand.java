package net.cheetah.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import net.cheetah.core.flow.Address;
import net.cheetah.fabric.CounterRates;
import net.cheetah.fabric.Fabric;
import net.cheetah.fabric.FabricFile;
import net.cheetah.fabric.FabricFlow;
import net.cheetah.fabric.FabricPath;
import net.cheetah.fabric.FatTree;
import net.cheetah.fabric.Layer;
import net.cheetah.fabric.Link;
import net.cheetah.fabric.SflowPlacement;
import net.cheetah.fabric.SflowPortMap;
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
      "  ./cheetah fabric sflow-links leaf-spine.yaml --map sflow-map.json --samples S.jsonl"
          + " --counters C.jsonl",
      "Exit status: 0 done; 2 a bad file or option (the error names the entry)."
    },
    subcommands = {
      FabricCommand.WriteFatTree.class,
      FabricCommand.Check.class,
      FabricCommand.SflowLinks.class
    })
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

  @Command(
      name = "sflow-links",
      mixinStandardHelpOptions = true,
      description = {
        "Place sFlow samples and counter records on the fabric's links (docs/FABRIC.md, \"From"
            + " samples to links\") and print, as one JSON object, each flow's estimated bytes and"
            + " rate on each link it is measured on, each link's utilisation per counter interval,"
            + " and the records refused with their reasons.",
        "--samples: JSON lines {agent, in_if, out_if, bytes, sampling_rate, src, dst, src_port,"
            + " dst_port, proto}; --counters: the collector's \"counters\" lines (other lines are"
            + " skipped)."
      })
  static final class SflowLinks implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "FILE", description = "The topology file (YAML).")
    Path file;

    @Option(
        names = "--map",
        required = true,
        paramLabel = "FILE",
        description = "The ifIndex map ./cheetah fabric-up --sflow wrote (sflow-map.json).")
    Path map;

    @Option(names = "--samples", paramLabel = "FILE", description = "Flow samples, JSON lines.")
    Path samples;

    @Option(names = "--counters", paramLabel = "FILE", description = "Counter records, JSON lines.")
    Path counters;

    @Option(
        names = "--window-ms",
        defaultValue = "1000",
        description = "The time the samples span, for the flows' rates (default 1000).")
    long windowMs;

    @Spec CommandSpec spec;

    @Override
    public Integer call() throws IOException {
      Fabric f = FabricFile.load(file);
      SflowPortMap ports = SflowPortMap.load(f, map);
      ObjectMapper json = new ObjectMapper();
      ObjectNode result = json.createObjectNode();
      ArrayNode refused = json.createArrayNode();
      List<Map.Entry<FabricFlow, SflowPlacement.Placement>> placed = new ArrayList<>();
      if (samples != null) {
        List<String> lines = Files.readAllLines(samples);
        for (int i = 0; i < lines.size(); i++) {
          String where = samples + ":" + (i + 1);
          try {
            JsonNode s = json.readTree(lines.get(i));
            SflowPlacement.Placement p =
                SflowPlacement.place(
                    f,
                    ports,
                    text(s, "agent"),
                    number(s, "in_if"),
                    number(s, "out_if"),
                    number(s, "bytes"),
                    number(s, "sampling_rate"));
            if (!p.placed()) {
              refused.addObject().put("at", where).put("reason", p.reason());
              continue;
            }
            FabricFlow flow =
                new FabricFlow(
                    Address.parse(text(s, "src")),
                    Address.parse(text(s, "dst")),
                    (int) number(s, "src_port"),
                    (int) number(s, "dst_port"),
                    (int) number(s, "proto"));
            placed.add(Map.entry(flow, p));
          } catch (IOException | IllegalArgumentException e) {
            refused.addObject().put("at", where).put("reason", e.getMessage());
          }
        }
      }
      ArrayNode flows = result.putArray("flows");
      new TreeMap<>(SflowPlacement.flowRatesBps(placed, windowMs))
          .forEach(
              (link, rates) ->
                  new TreeMap<>(rates)
                      .forEach(
                          (flow, bps) ->
                              flows
                                  .addObject()
                                  .put("link", link)
                                  .put("flow", flow.toString())
                                  .put("estimated_bytes", bps * windowMs / 8000.0)
                                  .put("bps", bps)));
      ArrayNode utilisation = result.putArray("utilisation");
      if (counters != null) {
        CounterRates rates = new CounterRates();
        Map<String, Long> lastMs = new HashMap<>();
        List<String> lines = Files.readAllLines(counters);
        for (int i = 0; i < lines.size(); i++) {
          String where = counters + ":" + (i + 1);
          try {
            JsonNode c = json.readTree(lines.get(i));
            if (c.has("event") && !"counters".equals(c.get("event").asText())) {
              continue;
            }
            String agent = text(c, "device");
            long ifIndex = number(c, "if_index");
            Optional<Link> link = ports.port(agent, ifIndex).flatMap(f::linkFrom);
            if (link.isEmpty()) {
              refused
                  .addObject()
                  .put("at", where)
                  .put("reason", "agent " + agent + " ifIndex " + ifIndex + " is on no link");
              continue;
            }
            long at = number(c, "polled_ms");
            Long from = lastMs.get(link.get().id());
            CounterRates.Rate r =
                rates.update(
                    link.get().id(),
                    at,
                    number(c, "if_hc_out_octets"),
                    64,
                    number(c, "if_high_speed_mbps") * 1e6,
                    c.path("counters_reset").asBoolean(false));
            if (from == null || at > from) {
              lastMs.put(link.get().id(), at);
            }
            r.bps()
                .ifPresent(
                    bps ->
                        utilisation
                            .addObject()
                            .put("link", link.get().id())
                            .put("from_ms", from)
                            .put("to_ms", at)
                            .put("bps", bps));
          } catch (IOException | IllegalArgumentException e) {
            refused.addObject().put("at", where).put("reason", e.getMessage());
          }
        }
      }
      result.set("refused", refused);
      PrintWriter out = spec.commandLine().getOut();
      out.println(json.writeValueAsString(result));
      out.flush();
      return 0;
    }

    private static String text(JsonNode n, String field) {
      if (!n.hasNonNull(field)) {
        throw new IllegalArgumentException("no '" + field + "'");
      }
      return n.get(field).asText();
    }

    private static long number(JsonNode n, String field) {
      if (!n.hasNonNull(field) || !n.get(field).canConvertToLong()) {
        throw new IllegalArgumentException("no whole number '" + field + "'");
      }
      return n.get(field).asLong();
    }
  }

  static String bps(double v) {
    return v >= 1e9 ? (v / 1e9) + " Gb/s" : (v / 1e6) + " Mb/s";
  }
}
