package net.cheetah.threshold;

import java.util.ArrayDeque;
import java.util.Optional;
import net.cheetah.core.threshold.ThresholdMode;

/**
 * Feedback mode for one link: corrects the threshold the formula or table chose (the base) from the
 * discards the router reports. State is an offset below the base, so a new base keeps the
 * correction learned so far. After every change the window restarts: the next decision needs {@code
 * polls} fresh polls that saw the new R.
 */
public final class DiscardFeedback {
  private final FeedbackParams params;
  private final ArrayDeque<Double> window = new ArrayDeque<>();
  private double baseBps;
  private double offsetBps;

  public DiscardFeedback(FeedbackParams params, double baseBps) {
    this.params = params;
    this.baseBps = baseBps;
  }

  /** What a streaming job checkpoints: the base, the learned offset and the recent poll rates. */
  public record State(double baseBps, double offsetBps, double[] window) {}

  public State state() {
    return new State(
        baseBps, offsetBps, window.stream().mapToDouble(Double::doubleValue).toArray());
  }

  /** A feedback loop continuing from a checkpointed {@link #state()}. */
  public static DiscardFeedback restore(FeedbackParams params, State s) {
    DiscardFeedback f = new DiscardFeedback(params, s.baseBps());
    f.offsetBps = s.offsetBps();
    for (double rate : s.window()) {
      f.window.addLast(rate);
    }
    return f;
  }

  public void rebase(double newBaseBps) {
    baseBps = newBaseBps;
  }

  public double currentBps() {
    return Math.max(params.floorBps(), baseBps - offsetBps);
  }

  /** Takes one poll; returns a decision when R changes. */
  public Optional<ThresholdDecision> onPoll(SnmpPoll poll) {
    window.addLast(poll.discardRate());
    if (window.size() > params.polls()) {
      window.removeFirst();
    }
    if (window.size() < params.polls()) {
      return Optional.empty();
    }
    double mean = window.stream().mapToDouble(Double::doubleValue).average().orElse(0);
    double max = window.stream().mapToDouble(Double::doubleValue).max().orElse(0);
    double before = currentBps();
    String why;
    if (mean > params.lossAcceptable()) {
      if (before <= params.floorBps()) {
        return Optional.empty();
      }
      offsetBps += params.stepBps();
      why =
          "discard rate "
              + Rates.fraction(mean)
              + " over the last "
              + params.polls()
              + " polls exceeds l_acpt "
              + Rates.fraction(params.lossAcceptable())
              + ": R lowered by "
              + Rates.mbps(params.stepBps())
              + " from "
              + Rates.mbps(before)
              + " to "
              + Rates.mbps(currentBps());
    } else if (max <= params.calmLossRate() && offsetBps > 0) {
      offsetBps = Math.max(0, offsetBps - params.stepBps());
      why =
          "link calm: every one of the last "
              + params.polls()
              + " polls discarded at most "
              + Rates.fraction(params.calmLossRate())
              + ": R raised from "
              + Rates.mbps(before)
              + " to "
              + Rates.mbps(currentBps())
              + (offsetBps == 0 ? " (back at the base)" : "");
    } else {
      return Optional.empty();
    }
    window.clear();
    return Optional.of(
        new ThresholdDecision(
            currentBps(), ThresholdMode.FEEDBACK, 0, params.lossAcceptable(), mean, why));
  }
}
