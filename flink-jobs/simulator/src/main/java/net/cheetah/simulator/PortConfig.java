package net.cheetah.simulator;

/**
 * The output port: capacity and the byte buffers of its two queues (primary, and the scavenger
 * queue that is served only when the primary is empty).
 */
public record PortConfig(double capacityBps, long primaryBufferBytes, long scavengerBufferBytes) {
  /** The study's port: 1 Gb/s, 5 MB + 5 MB. */
  public static PortConfig study() {
    return new PortConfig(1e9, 5_000_000L, 5_000_000L);
  }

  public PortConfig {
    if (!(capacityBps > 0) || Double.isInfinite(capacityBps)) {
      throw new IllegalArgumentException(
          "port capacity must be a positive number of bits/s, got " + capacityBps);
    }
    if (primaryBufferBytes < 0 || scavengerBufferBytes < 0) {
      throw new IllegalArgumentException(
          "queue buffers must be >= 0 bytes, got "
              + primaryBufferBytes
              + " and "
              + scavengerBufferBytes);
    }
  }
}
