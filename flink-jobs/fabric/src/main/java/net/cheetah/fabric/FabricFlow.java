package net.cheetah.fabric;

import java.io.Serializable;
import java.util.Comparator;
import net.cheetah.core.flow.Address;

/** A flow on the fabric, by its 5-tuple; written {@code SRC:PORT>DST:PORT/PROTO}. */
public record FabricFlow(Address src, Address dst, int srcPort, int dstPort, int proto)
    implements Comparable<FabricFlow>, Serializable {
  private static final Comparator<FabricFlow> ORDER =
      Comparator.comparing(FabricFlow::src)
          .thenComparing(FabricFlow::dst)
          .thenComparingInt(FabricFlow::srcPort)
          .thenComparingInt(FabricFlow::dstPort)
          .thenComparingInt(FabricFlow::proto);

  @Override
  public int compareTo(FabricFlow o) {
    return ORDER.compare(this, o);
  }

  @Override
  public String toString() {
    return src + ":" + srcPort + ">" + dst + ":" + dstPort + "/" + proto;
  }
}
