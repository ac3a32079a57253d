package net.cheetah.core.flow;

/** A start, update or end of a cheetah flow (a cheetahs.v1 event, before encoding). */
public record CheetahEvent(
    String flowId,
    Kind kind,
    long eventMs,
    long seq,
    FlowKey key,
    long startMs,
    long endMs,
    long bytes,
    long packets,
    long peakIntervalBytes,
    long peakIntervalStartMs,
    int records,
    int srcAs,
    int dstAs) {

  public enum Kind {
    START,
    UPDATE,
    END
  }

  /** Mean rate over the flow's life so far, bits per second (0 for a zero-length flow). */
  public double rateBps() {
    long d = endMs - startMs;
    return d <= 0 ? 0.0 : bytes * 8_000.0 / d;
  }
}
