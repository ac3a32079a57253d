package net.cheetah.threshold;

/** Counter deltas of one SNMP poll interval (after wrap and restart handling by the poller). */
public record SnmpPoll(long outPackets, long discards) {
  public SnmpPoll {
    if (outPackets < 0 || discards < 0) {
      throw new IllegalArgumentException(
          "poll deltas must be >= 0, got " + outPackets + " packets, " + discards + " discards");
    }
  }

  /** Discards / (packets sent + discarded); 0 for an idle interval. */
  public double discardRate() {
    long offered = outPackets + discards;
    return offered == 0 ? 0 : (double) discards / offered;
  }
}
