package net.cheetah.core.flow;

/** The 5-tuple of a flow as seen by one exporter: the unit that records are stitched on. */
public record FlowKey(
    Address exporter, Address src, Address dst, int srcPort, int dstPort, int proto) {

  /** Stable 64-bit hash of the 5-tuple alone (the Kafka key of flows.v1). */
  public long tupleHash() {
    long h = Ids.mix(src.hi(), src.lo());
    h = Ids.mix(h, dst.hi());
    h = Ids.mix(h, dst.lo());
    return Ids.mix(h, ((long) srcPort << 32) | ((long) dstPort << 8) | proto);
  }
}
