package net.cheetah.simulator;

/**
 * The cheetah: one bulk TCP flow that always has data. Its window is capped by the smaller of the
 * sender and receiver buffers; it is paced at the rate limit when one is set (rateLimitBps > 0),
 * else at its NIC rate. Acks return one RTT (plus queueing) after a packet leaves the port.
 */
public record TcpCheetah(
    double rateLimitBps,
    double rttSeconds,
    CongestionControl congestionControl,
    long senderBufferBytes,
    long receiverBufferBytes,
    double nicBps,
    int packetBytes) {

  /** A study cheetah: rate-limited at rate, 64 MB buffers, a 10 Gb/s NIC, 1500 B packets. */
  public static TcpCheetah study(double rateBps, double rttSeconds, CongestionControl cc) {
    return new TcpCheetah(rateBps, rttSeconds, cc, 64L << 20, 64L << 20, 10e9, 1500);
  }

  public TcpCheetah {
    if (!(rateLimitBps >= 0) || Double.isInfinite(rateLimitBps)) {
      throw new IllegalArgumentException(
          "cheetah rate limit must be >= 0 bits/s (0 = none), got " + rateLimitBps);
    }
    if (!(rttSeconds > 0) || Double.isInfinite(rttSeconds)) {
      throw new IllegalArgumentException("cheetah RTT must be > 0 s, got " + rttSeconds);
    }
    if (senderBufferBytes < packetBytes || receiverBufferBytes < packetBytes) {
      throw new IllegalArgumentException(
          "sender and receiver buffers must hold at least one packet ("
              + packetBytes
              + " B), got "
              + senderBufferBytes
              + " and "
              + receiverBufferBytes);
    }
    if (!(nicBps > 0) || Double.isInfinite(nicBps)) {
      throw new IllegalArgumentException("cheetah NIC rate must be > 0 bits/s, got " + nicBps);
    }
    if (packetBytes <= 0) {
      throw new IllegalArgumentException("packet size must be > 0 bytes, got " + packetBytes);
    }
    java.util.Objects.requireNonNull(congestionControl, "congestionControl");
  }

  /** The pacing rate: the rate limit if set and below the NIC rate, else the NIC rate. */
  public double pacingBps() {
    return rateLimitBps > 0 ? Math.min(rateLimitBps, nicBps) : nicBps;
  }

  /** The largest window the buffers allow, in packets. */
  public int windowLimitPackets() {
    return (int)
        Math.min(Integer.MAX_VALUE, Math.min(senderBufferBytes, receiverBufferBytes) / packetBytes);
  }

  public TcpCheetah withRateLimit(double bps) {
    return new TcpCheetah(
        bps,
        rttSeconds,
        congestionControl,
        senderBufferBytes,
        receiverBufferBytes,
        nicBps,
        packetBytes);
  }

  public TcpCheetah withRtt(double seconds) {
    return new TcpCheetah(
        rateLimitBps,
        seconds,
        congestionControl,
        senderBufferBytes,
        receiverBufferBytes,
        nicBps,
        packetBytes);
  }
}
