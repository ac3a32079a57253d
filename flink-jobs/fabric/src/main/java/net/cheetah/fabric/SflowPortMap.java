package net.cheetah.fabric;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.Serializable;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What an sFlow datagram names a port by, (agent address, ifIndex), mapped to the fabric's switch
 * port (docs/FABRIC.md, "sFlow"): the map {@code ./cheetah fabric-up --sflow} prints and writes to
 * {@code sflow-map.json}. Checked against the fabric when built: every entry is a declared port of
 * a declared switch, and no (agent, ifIndex) or port is named twice.
 */
public final class SflowPortMap implements Serializable {
  /** One row of the map. */
  public record Entry(String agent, long ifIndex, Port port) implements Serializable {}

  private final Map<String, Port> ports;

  private SflowPortMap(Map<String, Port> ports) {
    this.ports = Map.copyOf(ports);
  }

  private static String key(String agent, long ifIndex) {
    return agent + "#" + ifIndex;
  }

  /** The map of {@code entries} on {@code fabric}; an inconsistent entry is an error naming it. */
  public static SflowPortMap of(Fabric fabric, List<Entry> entries) {
    Map<String, Port> byKey = new HashMap<>();
    Map<Port, Entry> byPort = new HashMap<>();
    for (int i = 0; i < entries.size(); i++) {
      Entry e = entries.get(i);
      String where = "sflow map[" + i + "]";
      Switch sw =
          fabric
              .switchNamed(e.port().node())
              .orElseThrow(
                  () ->
                      new FabricException(
                          where
                              + ": unknown switch '"
                              + e.port().node()
                              + "' (not in the fabric)"));
      if (!sw.ports().contains(e.port().number())) {
        throw new FabricException(
            where + ": switch " + sw.name() + " has no port " + e.port().number());
      }
      if (e.ifIndex() <= 0 || e.ifIndex() > 0xffffffffL) {
        throw new FabricException(where + ": ifIndex " + e.ifIndex() + " is not in 1..2^32-1");
      }
      if (byKey.putIfAbsent(key(e.agent(), e.ifIndex()), e.port()) != null) {
        throw new FabricException(
            where + ": agent " + e.agent() + " ifIndex " + e.ifIndex() + " is named twice");
      }
      if (byPort.putIfAbsent(e.port(), e) != null) {
        throw new FabricException(where + ": port " + e.port() + " is named twice");
      }
    }
    return new SflowPortMap(byKey);
  }

  /** Reads the JSON {@code fabric-up} writes: a list of {agent, if_index, switch, port}. */
  public static SflowPortMap load(Fabric fabric, Path file) {
    JsonNode root;
    try {
      root = new ObjectMapper().readTree(Files.readString(file));
    } catch (IOException e) {
      throw new FabricException(file + ": cannot read the sFlow map (" + e.getMessage() + ")");
    }
    if (root == null || !root.isArray()) {
      throw new FabricException(file + ": the sFlow map is a JSON list of rows");
    }
    List<Entry> entries = new java.util.ArrayList<>();
    for (int i = 0; i < root.size(); i++) {
      JsonNode row = root.get(i);
      for (String field : List.of("agent", "if_index", "switch", "port")) {
        if (row == null || !row.hasNonNull(field)) {
          throw new FabricException(file + ": [" + i + "] has no '" + field + "'");
        }
      }
      if (!row.get("if_index").canConvertToLong() || !row.get("port").canConvertToInt()) {
        throw new FabricException(file + ": [" + i + "]: if_index and port are whole numbers");
      }
      entries.add(
          new Entry(
              row.get("agent").asText(),
              row.get("if_index").asLong(),
              new Port(row.get("switch").asText(), row.get("port").asInt())));
    }
    try {
      return of(fabric, entries);
    } catch (FabricException e) {
      throw new FabricException(file + ": " + e.getMessage());
    }
  }

  /** The switch port an agent names by {@code ifIndex}, if it is in the map. */
  public Optional<Port> port(String agent, long ifIndex) {
    return Optional.ofNullable(ports.get(key(agent, ifIndex)));
  }
}
