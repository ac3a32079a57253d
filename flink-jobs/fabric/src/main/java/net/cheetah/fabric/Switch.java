package net.cheetah.fabric;

import java.io.Serializable;
import java.util.List;

/** A fabric switch: its name, tier and port numbers (ascending, no duplicates). */
public record Switch(String name, Layer layer, List<Integer> ports) implements Serializable {
  public Switch {
    ports = List.copyOf(ports);
  }
}
