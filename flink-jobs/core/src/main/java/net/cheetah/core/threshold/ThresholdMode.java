package net.cheetah.core.threshold;

/**
 * How the rate threshold R is chosen (docs/ARCHITECTURE.md, "Rate threshold R"): the configured
 * mode ({@code thresholds.mode}, {@code thresholds.feedback-base}) and the mode a published R came
 * from (thresholds.v1 ThresholdMode).
 */
public enum ThresholdMode {
  /** R = α_bg (C − r̄_bg). */
  FORMULA,
  /** R from simulated loss tables. */
  TABLE,
  /** The base mode's R corrected by SNMP discards. */
  FEEDBACK
}
