package net.cheetah.fabric;

import java.io.Serializable;

/**
 * One direction of a cable: traffic leaving {@code from} and entering {@code to}, up to {@code
 * capacityBps}. Utilisation is measured per direction, so each cable is two links. The id, {@code
 * from>to} (e.g. {@code e1:3>a1:1}), names the link in inputs and decisions.
 */
public record Link(Port from, Port to, double capacityBps) implements Serializable {

  public String id() {
    return from + ">" + to;
  }

  /** The same cable the other way. */
  public Link reverse() {
    return new Link(to, from, capacityBps);
  }

  @Override
  public String toString() {
    return id();
  }
}
