package net.cheetah.simulator;

/**
 * The cheetah's sender: a window of packets in flight, paced, with Reno or H-TCP window growth.
 * Losses are learned as a SACK sender learns them from duplicate acks (one RTT plus the queue's
 * drain time after the drop) and cut the window at most once per window of data; there are no
 * retransmission timeouts. The flow is bulk: a lost packet is simply resent as new data, so goodput
 * is what leaves the port.
 */
final class TcpSender {
  private static final double HTCP_DELTA_LOW_S = 1.0;
  private static final double HTCP_RTT_REFERENCE_S = 0.1;

  private final PortSimulation port;
  private final EventHeap heap;
  private final boolean htcp;
  private final double rtt;
  private final double paceGap;
  private final double windowLimit;

  private double cwnd = 10;
  private double ssthresh = Double.POSITIVE_INFINITY;
  private int inflight;
  private int nextTxSeq;
  private int recoverSeq = -1;
  private double nextSendAt;
  private boolean sendScheduled;
  private long congestionEvents;

  private double lastCongestion;
  private double minRtt = Double.POSITIVE_INFINITY;
  private double maxRtt;
  private double beta = 0.5;

  TcpSender(PortSimulation port, EventHeap heap, TcpCheetah cfg) {
    this.port = port;
    this.heap = heap;
    this.htcp = cfg.congestionControl() == CongestionControl.HTCP;
    this.rtt = cfg.rttSeconds();
    this.paceGap = cfg.packetBytes() * 8.0 / cfg.pacingBps();
    this.windowLimit = cfg.windowLimitPackets();
  }

  double rttSeconds() {
    return rtt;
  }

  long congestionEvents() {
    return congestionEvents;
  }

  /** Sends what the window and the pacing allow now; arms one send timer for the rest. */
  void trySend(double now) {
    while (inflight + 1 <= Math.min(cwnd, windowLimit)) {
      if (now < nextSendAt) {
        if (!sendScheduled) {
          heap.push(nextSendAt, PortSimulation.CHEETAH_SEND, 0);
          sendScheduled = true;
        }
        return;
      }
      int seq = nextTxSeq++;
      inflight++;
      nextSendAt = Math.max(nextSendAt, now) + paceGap;
      port.cheetahArrives(now, seq);
    }
  }

  void onSendTimer(double now) {
    sendScheduled = false;
    trySend(now);
  }

  /** A packet left the port after waiting; its RTT is the base RTT plus that wait. */
  void onRttSample(double sample) {
    if (sample < minRtt) {
      minRtt = sample;
    }
    if (sample > maxRtt) {
      maxRtt = sample;
    }
  }

  void onAck(double now) {
    double inflightBefore = inflight;
    inflight--;
    boolean slowStart = cwnd < ssthresh;
    // Grow only while the window is what limits sending (Linux's cwnd validation); a paced flow
    // below its window must not inflate it.
    boolean windowLimited = slowStart ? cwnd < 2 * inflightBefore : inflightBefore + 1 >= cwnd;
    if (windowLimited && cwnd < windowLimit) {
      cwnd += slowStart ? 1 : increasePerRtt(now) / cwnd;
      cwnd = Math.min(cwnd, windowLimit);
    }
    trySend(now);
  }

  void onLoss(double now, int txSeq) {
    inflight--;
    if (txSeq > recoverSeq) {
      if (htcp) {
        beta = maxRtt > 0 ? clamp(minRtt / maxRtt, 0.5, 0.8) : 0.5;
      }
      ssthresh = Math.max(2, cwnd * beta);
      cwnd = ssthresh;
      recoverSeq = nextTxSeq - 1;
      lastCongestion = now;
      maxRtt = 0;
      congestionEvents++;
    }
    trySend(now);
  }

  /** Packets added to the window per RTT in congestion avoidance. */
  private double increasePerRtt(double now) {
    if (!htcp) {
      return 1;
    }
    double delta = now - lastCongestion - HTCP_DELTA_LOW_S;
    double factor = delta <= 0 ? 1 : 1 + 10 * delta + (delta / 2) * (delta / 2);
    // RTT scaling as in Linux: proportional to minRTT / 100 ms, minRTT clamped to 10..200 ms.
    double rttMin = Double.isInfinite(minRtt) ? rtt : minRtt;
    factor = Math.max(1, factor * clamp(rttMin, 0.01, 0.2) / HTCP_RTT_REFERENCE_S);
    return 2 * (1 - beta) * factor;
  }

  private static double clamp(double v, double lo, double hi) {
    return Math.max(lo, Math.min(hi, v));
  }
}
