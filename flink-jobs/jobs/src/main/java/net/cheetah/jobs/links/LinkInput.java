package net.cheetah.jobs.links;

/**
 * One input of the link-statistics operator, keyed by link: a T1 bin (probe.bins.v1), a NetFlow
 * cheetah on the link (cheetahs.v1), or the link's capacity (snmp.counters.v1 ifHighSpeed). One
 * flat record rather than three types, so that the three topics can be unioned and Flink serialises
 * it without Kryo.
 */
public record LinkInput(
    Kind kind,
    String linkId,
    long startMs,
    long endMs,
    long bytes,
    long cheetahBytes,
    double rateBps,
    String flowId) {

  public enum Kind {
    BIN,
    CHEETAH,
    CAPACITY
  }

  public static LinkInput bin(String linkId, long startMs, long bytes, long cheetahBytes) {
    return new LinkInput(Kind.BIN, linkId, startMs, startMs, bytes, cheetahBytes, 0, "");
  }

  public static LinkInput cheetah(
      String linkId, String flowId, long startMs, long endMs, double rateBps) {
    return new LinkInput(Kind.CHEETAH, linkId, startMs, endMs, 0, 0, rateBps, flowId);
  }

  public static LinkInput capacity(String linkId, double bps) {
    return new LinkInput(Kind.CAPACITY, linkId, 0, 0, 0, 0, bps, "");
  }
}
