package net.cheetah.core.flow;

import java.util.List;

/**
 * A parallel flowset (docs/ARCHITECTURE.md, "Parallel flowset"): cheetah flows of one (src, dst)
 * started within τ.
 */
public record Flowset(
    String flowsetId,
    Address src,
    Address dst,
    int srcAs,
    int dstAs,
    long startMs,
    long endMs,
    long bytes,
    List<String> memberFlowIds,
    long closedMs) {

  public Flowset {
    memberFlowIds = List.copyOf(memberFlowIds);
  }

  public int nFlows() {
    return memberFlowIds.size();
  }

  /** N = 1: a single cheetah flow, reported as such. */
  public boolean single() {
    return nFlows() == 1;
  }

  public double durationS() {
    return (endMs - startMs) / 1000.0;
  }

  /** size / duration in bits per second; 0 for a zero-length set. */
  public double rateBps() {
    return endMs > startMs ? bytes * 8.0 / durationS() : 0.0;
  }
}
