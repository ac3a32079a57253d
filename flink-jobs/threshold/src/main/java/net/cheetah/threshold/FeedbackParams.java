package net.cheetah.threshold;

/**
 * Feedback mode: over the last {@code polls} SNMP polls, a mean discard rate above l_acpt lowers R
 * by ΔR (never below the floor); when every one of the last polls is at or below the calm rate, R
 * recovers by ΔR towards the rate the other modes chose.
 */
public record FeedbackParams(
    int polls, double lossAcceptable, double calmLossRate, double stepBps, double floorBps) {
  public FeedbackParams {
    if (polls < 1) {
      throw new IllegalArgumentException("feedback needs >= 1 poll, got " + polls);
    }
    if (!(lossAcceptable >= 0 && lossAcceptable <= 1)) {
      throw new IllegalArgumentException("l_acpt must be in [0, 1], got " + lossAcceptable);
    }
    if (!(calmLossRate >= 0 && calmLossRate <= lossAcceptable)) {
      throw new IllegalArgumentException(
          "the calm discard rate must be in [0, l_acpt], got " + calmLossRate);
    }
    if (!(stepBps > 0) || !(floorBps >= 0)) {
      throw new IllegalArgumentException("ΔR must be > 0 and the floor >= 0 bits/s");
    }
  }
}
