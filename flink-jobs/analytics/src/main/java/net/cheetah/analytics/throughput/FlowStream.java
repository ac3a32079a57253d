package net.cheetah.analytics.throughput;

/**
 * One TCP stream as NetFlow saw it: the merged records of one flow key, from {@code src} (the
 * sender) to {@code dst}, hosts written as their addresses.
 */
public record FlowStream(String src, String dst, long startMs, long endMs, long bytes) {
  public FlowStream {
    if (endMs < startMs) {
      throw new IllegalArgumentException(
          "stream "
              + src
              + " -> "
              + dst
              + " ends ("
              + endMs
              + ") before it starts ("
              + startMs
              + ")");
    }
  }

  public long durationMs() {
    return endMs - startMs;
  }
}
