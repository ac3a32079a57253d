package net.cheetah.fabric;

import java.io.Serializable;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Deque;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import net.cheetah.core.flow.Address;

/**
 * A datacenter fabric (docs/FABRIC.md, "The model"): switches with their ports, the links between
 * them (each cable two directed links), and the hosts on edge switch ports. Built only through
 * {@link Builder}, which checks every entry, so a Fabric is always consistent: every port in use is
 * declared and used once, hosts sit on edge switches, and every edge switch reaches every other.
 * Immutable; the equal-cost paths between edge switches are computed on first use.
 */
public final class Fabric implements Serializable {
  private final String name;
  private final Map<String, Switch> switches;
  private final Map<String, Host> hosts;
  private final List<Link> links;
  private final Map<String, Link> linksById;
  private final Map<Port, Link> linkFrom;
  private final Map<Address, Host> hostByAddress;
  private final transient Map<String, List<FabricPath>> pathCache = new ConcurrentHashMap<>();

  private Fabric(String name, Map<String, Switch> switches, Map<String, Host> hosts, List<Link> l) {
    this.name = name;
    this.switches = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(switches));
    this.hosts = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(hosts));
    this.links = List.copyOf(l);
    Map<String, Link> byId = new LinkedHashMap<>();
    Map<Port, Link> from = new HashMap<>();
    for (Link link : links) {
      byId.put(link.id(), link);
      from.put(link.from(), link);
    }
    this.linksById = java.util.Collections.unmodifiableMap(byId);
    this.linkFrom = java.util.Collections.unmodifiableMap(from);
    Map<Address, Host> byAddress = new HashMap<>();
    hosts.values().forEach(h -> byAddress.put(h.address(), h));
    this.hostByAddress = java.util.Collections.unmodifiableMap(byAddress);
  }

  public String name() {
    return name;
  }

  /** Switches in the order they were declared. */
  public Collection<Switch> switches() {
    return switches.values();
  }

  public Optional<Switch> switchNamed(String switchName) {
    return Optional.ofNullable(switches.get(switchName));
  }

  /** Hosts in the order they were declared. */
  public Collection<Host> hosts() {
    return hosts.values();
  }

  public Optional<Host> hostAt(Address address) {
    return Optional.ofNullable(hostByAddress.get(address));
  }

  /** Every directed link, switch-to-switch and host cables alike, each cable's two in a row. */
  public List<Link> links() {
    return links;
  }

  public Optional<Link> link(String id) {
    return Optional.ofNullable(linksById.get(id));
  }

  /** The link leaving {@code port}, if the port is in use. */
  public Optional<Link> linkFrom(Port port) {
    return Optional.ofNullable(linkFrom.get(port));
  }

  /** Every switch port (declared), in use or not. */
  public int portCount() {
    return switches.values().stream().mapToInt(s -> s.ports().size()).sum();
  }

  /**
   * The shortest paths from edge switch {@code from} to edge switch {@code to}, over switch-to-
   * switch links (the equal-cost paths of ECMP), in a fixed order: by the port numbers taken at
   * each hop. One empty path when {@code from} is {@code to}.
   */
  public List<FabricPath> paths(String from, String to) {
    for (String s : List.of(from, to)) {
      Switch sw = switches.get(s);
      if (sw == null || sw.layer() != Layer.EDGE) {
        throw new IllegalArgumentException("'" + s + "' is not an edge switch of " + name);
      }
    }
    return pathCache.computeIfAbsent(from + ">" + to, k -> shortestPaths(from, to));
  }

  private List<FabricPath> shortestPaths(String from, String to) {
    Map<String, Integer> hopsTo = hopsTo(to);
    List<FabricPath> out = new ArrayList<>();
    if (hopsTo.containsKey(from)) {
      walk(from, hopsTo, new ArrayDeque<>(), out);
    }
    return List.copyOf(out);
  }

  /** Each switch's distance in hops to {@code to} (breadth-first over switch links, reversed). */
  private Map<String, Integer> hopsTo(String to) {
    Map<String, Integer> hops = new HashMap<>();
    hops.put(to, 0);
    Deque<String> queue = new ArrayDeque<>(List.of(to));
    while (!queue.isEmpty()) {
      String at = queue.poll();
      for (Link in : switchLinksInto(at)) {
        String prev = in.from().node();
        if (!hops.containsKey(prev)) {
          hops.put(prev, hops.get(at) + 1);
          queue.add(prev);
        }
      }
    }
    return hops;
  }

  private void walk(
      String at, Map<String, Integer> hopsTo, Deque<Link> sofar, List<FabricPath> out) {
    int left = hopsTo.get(at);
    if (left == 0) {
      out.add(new FabricPath(new ArrayList<>(sofar)));
      return;
    }
    for (int port : switches.get(at).ports()) {
      Link next = linkFrom.get(new Port(at, port));
      if (next == null || !switches.containsKey(next.to().node())) {
        continue;
      }
      Integer h = hopsTo.get(next.to().node());
      if (h != null && h == left - 1) {
        sofar.addLast(next);
        walk(next.to().node(), hopsTo, sofar, out);
        sofar.removeLast();
      }
    }
  }

  private List<Link> switchLinksInto(String switchName) {
    List<Link> in = new ArrayList<>();
    for (int port : switches.get(switchName).ports()) {
      Link out = linkFrom.get(new Port(switchName, port));
      if (out != null && switches.containsKey(out.to().node())) {
        in.add(out.reverse());
      }
    }
    return in;
  }

  private Object readResolve() {
    // The cache is transient: rebuild it empty after deserialisation.
    return new Fabric(name, switches, hosts, links);
  }

  @Override
  public String toString() {
    return name
        + " ("
        + switches.size()
        + " switches, "
        + hosts.size()
        + " hosts, "
        + links.size()
        + " links)";
  }

  /**
   * Adds switches, then links and hosts, checking each; {@code where} in each call names the entry
   * (e.g. "links[3]") and starts every error about it.
   */
  public static final class Builder {
    private final String name;
    private final Map<String, Switch> switches = new LinkedHashMap<>();
    private final Map<String, Host> hosts = new LinkedHashMap<>();
    private final List<Link> links = new ArrayList<>();

    /** What uses each port: "links[3]" or "host h1". */
    private final Map<Port, String> used = new HashMap<>();

    private final Map<Address, String> addresses = new HashMap<>();

    public Builder(String name) {
      this.name = name;
    }

    public Builder addSwitch(String where, String switchName, Layer layer, List<Integer> ports) {
      requireName(where, switchName);
      if (switches.containsKey(switchName)) {
        throw new FabricException(where + ": switch '" + switchName + "' is declared twice");
      }
      if (ports.isEmpty()) {
        throw new FabricException(where + ": switch '" + switchName + "' declares no ports");
      }
      TreeSet<Integer> sorted = new TreeSet<>();
      for (int p : ports) {
        if (p < 1 || p > Port.MAX_NUMBER) {
          throw new FabricException(
              where
                  + ": switch '"
                  + switchName
                  + "' has port "
                  + p
                  + "; port numbers are OpenFlow's, 1.."
                  + Port.MAX_NUMBER);
        }
        if (!sorted.add(p)) {
          throw new FabricException(
              where + ": switch '" + switchName + "' lists port " + p + " twice");
        }
      }
      switches.put(switchName, new Switch(switchName, layer, new ArrayList<>(sorted)));
      return this;
    }

    /** A cable between two switch ports, {@code capacityBps} in each direction. */
    public Builder addLink(String where, Port a, Port b, double capacityBps) {
      requireCapacity(where, capacityBps);
      if (a.node().equals(b.node())) {
        throw new FabricException(
            where + ": link " + a + " - " + b + " connects switch '" + a.node() + "' to itself");
      }
      String what = where + " (" + a + " - " + b + ")";
      requireFreePort(where, a, what);
      requireFreePort(where, b, what);
      used.put(a, what);
      used.put(b, what);
      Link ab = new Link(a, b, capacityBps);
      links.add(ab);
      links.add(ab.reverse());
      return this;
    }

    /** A host on an edge switch port; its cable has {@code capacityBps} in each direction. */
    public Builder addHost(
        String where, String hostName, Address address, Port edge, double capacityBps) {
      requireName(where, hostName);
      requireCapacity(where, capacityBps);
      if (switches.containsKey(hostName) || hosts.containsKey(hostName)) {
        throw new FabricException(
            where + ": host name '" + hostName + "' is already a switch's or a host's");
      }
      String other = addresses.putIfAbsent(address, where);
      if (other != null) {
        throw new FabricException(
            where + ": address " + address + " is already " + other + "'s; addresses are unique");
      }
      String what = "host " + hostName + " (" + where + ")";
      requireFreePort(where, edge, what);
      Switch sw = switches.get(edge.node());
      if (sw.layer() != Layer.EDGE) {
        throw new FabricException(
            where
                + ": host '"
                + hostName
                + "' is on "
                + edge
                + ", a "
                + sw.layer().written()
                + " switch; hosts attach to edge switches");
      }
      used.put(edge, what);
      Host h = new Host(hostName, address, edge, capacityBps);
      hosts.put(hostName, h);
      Link up = new Link(h.port(), edge, capacityBps);
      links.add(up);
      links.add(up.reverse());
      return this;
    }

    /** The fabric; fails when some edge switch cannot reach another. */
    public Fabric build() {
      List<String> edges =
          switches.values().stream()
              .filter(s -> s.layer() == Layer.EDGE)
              .map(Switch::name)
              .toList();
      if (edges.isEmpty()) {
        throw new FabricException(name + ": the fabric has no edge switch");
      }
      Fabric f = new Fabric(name, switches, hosts, links);
      Map<String, Integer> reach = f.hopsTo(edges.get(0));
      for (String e : edges) {
        if (!reach.containsKey(e)) {
          throw new FabricException(
              name
                  + ": edge switches '"
                  + edges.get(0)
                  + "' and '"
                  + e
                  + "' are not connected; every edge switch must reach every other");
        }
      }
      return f;
    }

    private void requireFreePort(String where, Port p, String what) {
      Switch sw = switches.get(p.node());
      if (sw == null) {
        throw new FabricException(
            where + ": unknown switch '" + p.node() + "' in " + p + "; declare it under switches");
      }
      if (!sw.ports().contains(p.number())) {
        throw new FabricException(
            where
                + ": switch '"
                + p.node()
                + "' has no port "
                + p.number()
                + " (its ports: "
                + sw.ports()
                + ")");
      }
      String other = used.get(p);
      if (other != null) {
        throw new FabricException(
            where + ": port " + p + " is already used by " + other + "; a port takes one cable");
      }
    }

    private static void requireName(String where, String n) {
      if (n == null || !n.matches("[A-Za-z0-9_.-]+")) {
        throw new FabricException(
            where + ": name '" + n + "' must be letters, digits, '_', '.' or '-'");
      }
    }

    private static void requireCapacity(String where, double bps) {
      if (!(bps > 0) || Double.isInfinite(bps)) {
        throw new FabricException(where + ": capacity_bps must be > 0, got " + bps);
      }
    }
  }
}
