package net.cheetah.threshold;

import java.util.Objects;
import net.cheetah.core.threshold.ThresholdMode;

/**
 * A threshold R and why it was chosen; the fields map onto thresholds.v1 (alphaBg, lossAcceptable
 * and measuredLoss are 0 where the mode does not use them).
 */
public record ThresholdDecision(
    double rateBps,
    ThresholdMode mode,
    double alphaBg,
    double lossAcceptable,
    double measuredLoss,
    String reason) {

  public ThresholdDecision {
    Objects.requireNonNull(mode, "mode");
    if (reason == null || reason.isBlank()) {
      throw new IllegalArgumentException("every threshold decision needs a reason");
    }
    if (!(rateBps >= 0)) {
      throw new IllegalArgumentException("threshold must be >= 0 bits/s, got " + rateBps);
    }
  }
}
