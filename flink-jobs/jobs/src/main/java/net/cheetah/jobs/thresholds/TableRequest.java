package net.cheetah.jobs.thresholds;

import net.cheetah.threshold.BackgroundTag;

/**
 * A request to simulate the loss table of one link's tag (r̄_bg, b) on a port of capacity C, made
 * by the statistics window ending at {@code windowEndMs}. Flat, so Flink serialises it without
 * Kryo: in-flight requests are part of the async operator's checkpoints.
 */
public record TableRequest(
    String linkId, double tagBgBps, double tagBurstiness, double capacityBps, long windowEndMs) {

  public BackgroundTag tag() {
    return new BackgroundTag(tagBgBps, tagBurstiness);
  }
}
