package net.cheetah.fabric;

import java.io.Serializable;
import net.cheetah.core.flow.Address;

/**
 * A host: its name, its address (how a flow's ends are placed on the fabric) and the edge switch
 * port its cable ends at; {@code capacityBps} is that cable's capacity in each direction.
 */
public record Host(String name, Address address, Port edge, double capacityBps)
    implements Serializable {

  /** The host's own end of its cable. */
  public Port port() {
    return new Port(name, Port.HOST_PORT);
  }
}
