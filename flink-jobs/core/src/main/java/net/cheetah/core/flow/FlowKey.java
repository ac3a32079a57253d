package net.cheetah.core.flow;

/** The 5-tuple of a flow as seen by one exporter: the unit that records are stitched on. */
public record FlowKey(
    Address exporter, Address src, Address dst, int srcPort, int dstPort, int proto) {

  /** Stable 64-bit hash of the 5-tuple alone (the Kafka key of flows.v1). */
  public long tupleHash() {
    return tupleHash(src, dst, srcPort, dstPort, proto);
  }

  /** {@link #tupleHash()} of a 5-tuple not (yet) held as a key. */
  public static long tupleHash(Address src, Address dst, int srcPort, int dstPort, int proto) {
    long h = Ids.mix(src.hi(), src.lo());
    h = Ids.mix(h, dst.hi());
    h = Ids.mix(h, dst.lo());
    return Ids.mix(h, ((long) srcPort << 32) | ((long) dstPort << 8) | proto);
  }

  // equals and hashCode written out: the record's generated ones go through method handles
  // (java.lang.runtime.ObjectMethods), which the JIT left uninlined on the keyed-state lookups of
  // the cheetah operator (5 % of the streaming path's CPU in a JFR profile, docs/BENCHMARKS.md).
  // hashCode must stay the record's own, 31 * h + component in declaration order: it picks the
  // key group of every key in checkpoints and savepoints (FlowKeyTest pins it).

  @Override
  public boolean equals(Object o) {
    return this == o
        || o instanceof FlowKey k
            && srcPort == k.srcPort
            && dstPort == k.dstPort
            && proto == k.proto
            && src.equals(k.src)
            && dst.equals(k.dst)
            && exporter.equals(k.exporter);
  }

  @Override
  public int hashCode() {
    int h = exporter.hashCode();
    h = 31 * h + src.hashCode();
    h = 31 * h + dst.hashCode();
    h = 31 * h + srcPort;
    h = 31 * h + dstPort;
    return 31 * h + proto;
  }
}
