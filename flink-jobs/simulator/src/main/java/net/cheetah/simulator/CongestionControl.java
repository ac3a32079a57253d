package net.cheetah.simulator;

/** The cheetah's TCP congestion control. */
public enum CongestionControl {
  /** Slow start, +1 packet per RTT, halve on loss. */
  RENO,
  /**
   * H-TCP (Leith and Shorten): the increase per RTT grows with the time since the last loss and
   * scales with the RTT; the decrease factor adapts to min/max RTT within [0.5, 0.8].
   */
  HTCP
}
