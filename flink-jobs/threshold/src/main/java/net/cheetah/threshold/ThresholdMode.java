package net.cheetah.threshold;

/** How a threshold was chosen (thresholds.v1 ThresholdMode). */
public enum ThresholdMode {
  FORMULA,
  TABLE,
  FEEDBACK
}
