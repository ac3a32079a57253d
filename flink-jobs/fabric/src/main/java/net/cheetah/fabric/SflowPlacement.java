package net.cheetah.fabric;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Places an sFlow flow sample on the fabric's links (docs/FABRIC.md, "sFlow"). A switch samples the
 * packets it receives: the sample's input ifIndex is the port the packet came in by, its output
 * ifIndex the port it left by. So the packet crossed the link <em>into</em> the input port and
 * takes the link <em>out of</em> the output port.
 *
 * <p>Each link is measured at one end only, so a packet sampled at every switch it crosses is
 * counted once per link: the link leaving a switch port is measured by that switch (the output of
 * its samples); a host's link into its edge switch, whose far end sends no sFlow, by the edge
 * switch (the input of its samples). {@link Placement#measured} lists those links.
 */
public final class SflowPlacement {
  /** sFlow's output value with bit 30 set: the packet was dropped (sflow_version_5.txt). */
  static final long DISCARDED = 0x40000000L;

  /** sFlow's output value with bit 31 set: sent to several ports (or to an unknown number). */
  static final long MULTIPLE = 0x80000000L;

  private SflowPlacement() {}

  /**
   * Where a sample goes: the links it was seen on, the links it measures, its bytes scaled by the
   * sampling rate (the estimate of the bytes it stands for); or why it is not placed.
   */
  public record Placement(
      Optional<Link> in,
      Optional<Link> out,
      List<Link> measured,
      double scaledBytes,
      String reason) {
    public boolean placed() {
      return reason.isEmpty();
    }
  }

  private static Placement refused(String reason) {
    return new Placement(Optional.empty(), Optional.empty(), List.of(), 0, reason);
  }

  /**
   * Places one flow sample: {@code agent} is the datagram's agent address (a flow record's
   * exporter), {@code inIf}/{@code outIf} its input and output (sFlow's 32-bit values), {@code
   * bytes} the sampled packet's length, {@code samplingRate} the 1-in-N it was sampled at.
   */
  public static Placement place(
      Fabric fabric,
      SflowPortMap map,
      String agent,
      long inIf,
      long outIf,
      long bytes,
      long samplingRate) {
    if (samplingRate <= 0) {
      return refused(
          "sampling rate " + samplingRate + " (a sample stands for 1 in N packets, N >= 1)");
    }
    if (bytes < 0) {
      return refused("negative length " + bytes);
    }
    Optional<Port> inPort = map.port(agent, inIf);
    if (inPort.isEmpty()) {
      return refused("input ifIndex " + inIf + " of agent " + agent + " is not in the sFlow map");
    }
    // The link into the input port is the reverse of the one leaving it.
    Optional<Link> in = fabric.linkFrom(inPort.get()).map(Link::reverse);
    if (in.isEmpty()) {
      return refused("port " + inPort.get() + " (input) takes no cable or host in the fabric");
    }
    // Dropped, sent to several ports, or unknown (0): seen coming in only.
    Optional<Link> out = Optional.empty();
    if ((outIf & MULTIPLE) == 0 && (outIf & DISCARDED) == 0 && outIf != 0) {
      Optional<Port> outPort = map.port(agent, outIf);
      if (outPort.isEmpty()) {
        return refused(
            "output ifIndex " + outIf + " of agent " + agent + " is not in the sFlow map");
      }
      out = fabric.linkFrom(outPort.get());
      if (out.isEmpty()) {
        return refused("port " + outPort.get() + " (output) takes no cable or host in the fabric");
      }
    }
    List<Link> measured = new java.util.ArrayList<>();
    if (fabric.switchNamed(in.get().from().node()).isEmpty()) {
      measured.add(in.get()); // from a host: nobody upstream measures it
    }
    out.ifPresent(measured::add);
    return new Placement(in, out, List.copyOf(measured), (double) bytes * samplingRate, "");
  }

  /**
   * The rate of each flow on each link, in bit/s, from the placed samples of one window of {@code
   * windowMs}: the sum of their scaled bytes on the links they measure, times 8, per second.
   */
  public static Map<String, Map<FabricFlow, Double>> flowRatesBps(
      List<Map.Entry<FabricFlow, Placement>> samples, long windowMs) {
    if (windowMs <= 0) {
      throw new IllegalArgumentException("window " + windowMs + " ms: give a positive window");
    }
    Map<String, Map<FabricFlow, Double>> rates = new HashMap<>();
    for (Map.Entry<FabricFlow, Placement> s : samples) {
      for (Link link : s.getValue().measured()) {
        rates
            .computeIfAbsent(link.id(), k -> new HashMap<>())
            .merge(s.getKey(), s.getValue().scaledBytes() * 8 * 1000.0 / windowMs, Double::sum);
      }
    }
    return rates;
  }
}
