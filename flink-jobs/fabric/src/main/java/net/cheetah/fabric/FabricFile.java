package net.cheetah.fabric;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import net.cheetah.core.flow.Address;

/**
 * The topology file (docs/FABRIC.md, "The topology file"): YAML with a {@code name} and three
 * lists, {@code switches} ({@code name}, {@code layer}, {@code ports}), {@code links} (cables:
 * {@code a}, {@code b}, {@code capacity_bps}) and {@code hosts} ({@code name}, {@code address},
 * {@code edge}, {@code capacity_bps}). Unknown fields are errors (a typo must not be ignored);
 * every error names the file and the entry.
 */
public final class FabricFile {
  private static final Set<String> TOP = Set.of("name", "switches", "links", "hosts");
  private static final Set<String> SWITCH = Set.of("name", "layer", "ports");
  private static final Set<String> LINK = Set.of("a", "b", "capacity_bps");
  private static final Set<String> HOST = Set.of("name", "address", "edge", "capacity_bps");

  private FabricFile() {}

  public static Fabric load(Path file) {
    String text;
    try {
      text = Files.readString(file);
    } catch (IOException e) {
      throw new FabricException(
          "cannot read the fabric topology file " + file + ": " + e + "; check the path");
    }
    return parse(text, file.toString());
  }

  /** The fabric described by {@code text}; {@code origin} (a file name) starts every error. */
  public static Fabric parse(String text, String origin) {
    JsonNode root;
    try {
      root = new ObjectMapper(new YAMLFactory()).readTree(text);
    } catch (JsonProcessingException e) {
      throw new FabricException(
          origin
              + " is not valid YAML (line "
              + e.getLocation().getLineNr()
              + ", column "
              + e.getLocation().getColumnNr()
              + "): "
              + e.getOriginalMessage());
    }
    if (root == null || !root.isObject()) {
      throw new FabricException(
          origin + " must be a YAML mapping with name, switches, links and hosts");
    }
    onlyFields(origin, "the file", root, TOP);
    String name = root.path("name").asText(origin);
    Fabric.Builder b = new Fabric.Builder(name);
    int i = 0;
    for (JsonNode s : list(origin, root, "switches")) {
      String where = origin + ": switches[" + i++ + "]";
      onlyFields(where, "a switch", s, SWITCH);
      b.addSwitch(where, text(where, s, "name"), layer(where, s), ports(where, s));
    }
    i = 0;
    for (JsonNode l : list(origin, root, "links")) {
      String where = origin + ": links[" + i++ + "]";
      onlyFields(where, "a link", l, LINK);
      b.addLink(where, port(where, l, "a"), port(where, l, "b"), capacity(where, l));
    }
    i = 0;
    for (JsonNode h : list(origin, root, "hosts")) {
      String where = origin + ": hosts[" + i++ + "]";
      onlyFields(where, "a host", h, HOST);
      String hostName = text(where, h, "name");
      if (!h.hasNonNull("edge")) {
        throw new FabricException(
            where
                + ": host '"
                + hostName
                + "' has no edge; give the edge switch port it is cabled to, e.g. edge: e1:1");
      }
      b.addHost(where, hostName, address(where, h), port(where, h, "edge"), capacity(where, h));
    }
    return b.build();
  }

  /** The file text of {@code fabric}; {@link #parse} reads it back to an equal fabric. */
  public static String write(Fabric fabric, String comment) {
    StringBuilder y = new StringBuilder();
    for (String line : comment.split("\n")) {
      y.append("# ").append(line).append('\n');
    }
    y.append("name: ").append(fabric.name()).append('\n');
    y.append("switches:\n");
    for (Switch s : fabric.switches()) {
      y.append("  - {name: ")
          .append(s.name())
          .append(", layer: ")
          .append(s.layer().written())
          .append(", ports: ")
          .append(s.ports())
          .append("}\n");
    }
    y.append("links:\n");
    List<Link> links = fabric.links();
    for (int i = 0; i < links.size(); i += 2) {
      Link l = links.get(i);
      if (fabric.switchNamed(l.from().node()).isEmpty()) {
        continue; // a host's cable: written under hosts
      }
      y.append("  - {a: ")
          .append(l.from())
          .append(", b: ")
          .append(l.to())
          .append(", capacity_bps: ")
          .append(number(l.capacityBps()))
          .append("}\n");
    }
    y.append("hosts:\n");
    for (Host h : fabric.hosts()) {
      y.append("  - {name: ")
          .append(h.name())
          .append(", address: ")
          .append(h.address())
          .append(", edge: ")
          .append(h.edge())
          .append(", capacity_bps: ")
          .append(number(h.capacityBps()))
          .append("}\n");
    }
    return y.toString();
  }

  private static String number(double v) {
    return v == Math.rint(v) && Math.abs(v) < 1e15 ? String.valueOf((long) v) : String.valueOf(v);
  }

  private static void onlyFields(String where, String what, JsonNode node, Set<String> allowed) {
    if (!node.isObject()) {
      throw new FabricException(where + ": " + what + " must be a mapping of " + allowed);
    }
    Iterator<String> it = node.fieldNames();
    while (it.hasNext()) {
      String f = it.next();
      if (!allowed.contains(f)) {
        throw new FabricException(
            where + ": unknown field '" + f + "' in " + what + "; known fields: " + allowed);
      }
    }
  }

  private static List<JsonNode> list(String origin, JsonNode root, String field) {
    JsonNode n = root.get(field);
    if (n == null || n.isNull()) {
      if (field.equals("hosts")) {
        return List.of();
      }
      throw new FabricException(origin + ": no '" + field + "' list");
    }
    if (!n.isArray()) {
      throw new FabricException(origin + ": '" + field + "' must be a list");
    }
    List<JsonNode> out = new ArrayList<>();
    n.forEach(out::add);
    return out;
  }

  private static String text(String where, JsonNode node, String field) {
    JsonNode n = node.get(field);
    if (n == null || n.isNull() || !n.isValueNode() || n.asText().isBlank()) {
      throw new FabricException(where + ": '" + field + "' is missing or empty");
    }
    return n.asText().trim();
  }

  private static Layer layer(String where, JsonNode s) {
    String t = text(where, s, "layer");
    try {
      return Layer.valueOf(t.toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      throw new FabricException(
          where + ": layer '" + t + "' is not one of edge, aggregation, core");
    }
  }

  private static List<Integer> ports(String where, JsonNode s) {
    JsonNode n = s.get("ports");
    if (n == null || !n.isArray()) {
      throw new FabricException(where + ": 'ports' must be a list of port numbers, e.g. [1, 2]");
    }
    List<Integer> out = new ArrayList<>();
    for (JsonNode p : n) {
      if (!p.canConvertToInt() || !p.isIntegralNumber()) {
        throw new FabricException(where + ": port '" + p.asText() + "' is not a whole number");
      }
      out.add(p.intValue());
    }
    return out;
  }

  private static Port port(String where, JsonNode node, String field) {
    try {
      return Port.parse(text(where, node, field));
    } catch (FabricException e) {
      throw e;
    } catch (IllegalArgumentException e) {
      throw new FabricException(where + ": " + field + ": " + e.getMessage());
    }
  }

  private static double capacity(String where, JsonNode node) {
    String t = text(where, node, "capacity_bps");
    try {
      // As text: YAML 1.1 reads 10e6 (no dot) as a string, not a number.
      return Double.parseDouble(t.replace("_", ""));
    } catch (NumberFormatException e) {
      throw new FabricException(
          where + ": capacity_bps '" + t + "' is not a number of bit/s (e.g. 10e6)");
    }
  }

  private static Address address(String where, JsonNode h) {
    String t = text(where, h, "address");
    // A literal only: Address.parse would resolve a name through DNS.
    if (!t.matches("[0-9.]+|[0-9A-Fa-f:.]*:[0-9A-Fa-f:.]*")) {
      throw new FabricException(where + ": address '" + t + "' is not an IP address");
    }
    try {
      return Address.parse(t);
    } catch (IllegalArgumentException e) {
      throw new FabricException(where + ": address '" + t + "' is not an IP address");
    }
  }
}
