package net.cheetah.fabric;

import java.io.Serializable;

/**
 * One port of a fabric node, written {@code NODE:NUMBER} (e.g. {@code e1:3}): a switch port (its
 * OpenFlow port number) or a host's single port, number {@link #HOST_PORT}.
 */
public record Port(String node, int number) implements Comparable<Port>, Serializable {
  /** The port number a host's end of its cable has. */
  public static final int HOST_PORT = 0;

  /** The highest OpenFlow port number of a physical port (OFPP_MAX, 0xff00). */
  public static final int MAX_NUMBER = 0xff00;

  /** {@code e1:3}; errors say what was expected. */
  public static Port parse(String text) {
    int colon = text.lastIndexOf(':');
    if (colon <= 0 || colon == text.length() - 1) {
      throw new IllegalArgumentException(
          "'" + text + "' is not a port: write SWITCH:NUMBER, e.g. e1:3");
    }
    String number = text.substring(colon + 1);
    int n;
    try {
      n = Integer.parseInt(number);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          "'" + text + "' is not a port: the number after ':' must be a whole number");
    }
    return new Port(text.substring(0, colon), n);
  }

  @Override
  public String toString() {
    return node + ":" + number;
  }

  @Override
  public int compareTo(Port o) {
    int c = node.compareTo(o.node);
    return c != 0 ? c : Integer.compare(number, o.number);
  }
}
