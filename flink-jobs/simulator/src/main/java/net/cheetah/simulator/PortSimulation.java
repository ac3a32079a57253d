package net.cheetah.simulator;

import java.util.SplittableRandom;

/**
 * One seeded, packet-level, event-driven run of the two-queue port (docs/ARCHITECTURE.md, "Rate
 * threshold R"). The port serves the primary queue first and the scavenger queue only when the
 * primary is empty (strict priority, non-preemptive). Background enters the primary queue; the
 * cheetah enters the primary queue, or the scavenger queue when redirected.
 *
 * <p>The background draws its randomness from its own generator, so every scenario run with the
 * same seed sees the same background whatever the cheetah does (common random numbers: runs of one
 * seed at different cheetah rates differ only by the cheetah).
 */
public final class PortSimulation {
  static final int BURST_START = 0;
  static final int BG_PACKET = 1;
  static final int DEPARTURE = 2;
  static final int CHEETAH_SEND = 3;
  static final int ACK = 4;
  static final int LOSS_NOTICE = 5;
  static final int BIN_START = 6;

  private static final int BACKGROUND = -1;

  private final Scenario scenario;
  private final EventHeap heap = new EventHeap(4096);
  private final PacketQueue primary;
  private final PacketQueue scavenger;
  private final PacketQueue cheetahQueue;
  private final SplittableRandom bgRandom;
  private final TcpSender tcp;
  private final ServiceListener listener;
  private final double secondsPerBit;
  private final double warmup;
  private final double duration;
  private final int bgPacketBytes;

  // Background sources in progress (bursts, or replayed bins): packets left and their spacing.
  private int[] slotPackets = new int[64];
  private double[] slotGap = new double[64];
  private int[] freeSlots = new int[64];
  private int freeCount;
  private int slotCount;

  // Replay state.
  private double replayCarryBytes;

  // The packet on the wire.
  private boolean busy;
  private int wireTag;
  private int wireBytes;

  // Statistics over [warmup, duration).
  private final double binSeconds;
  private final double[] bgBytesPerBin;
  private long events;
  private long bgOffered;
  private long bgDropped;
  private long cheetahDeliveredBytes;
  private long cheetahDropped;
  private double bgDelaySum;
  private double bgDelayMax;
  private long bgServed;
  private double cheetahDelaySum;
  private double cheetahDelayMax;
  private long cheetahServed;

  private PortSimulation(Scenario scenario, long seed, ServiceListener listener) {
    this.scenario = scenario;
    this.listener = listener;
    PortConfig port = scenario.port();
    this.primary = new PacketQueue(port.primaryBufferBytes());
    this.scavenger = new PacketQueue(port.scavengerBufferBytes());
    this.cheetahQueue = scenario.redirect() ? scavenger : primary;
    this.secondsPerBit = 1.0 / port.capacityBps();
    this.warmup = scenario.warmupSeconds();
    this.duration = scenario.durationSeconds();
    this.bgPacketBytes = scenario.background().packetBytes();
    this.binSeconds = scenario.binSeconds();
    this.bgBytesPerBin = new double[(int) Math.floor(scenario.measuredSeconds() / binSeconds)];
    SplittableRandom root = new SplittableRandom(seed);
    this.bgRandom = root.split();
    this.tcp = scenario.cheetah().map(c -> new TcpSender(this, heap, c)).orElse(null);
  }

  /** Runs the scenario once with the given seed. Same scenario and seed, same result. */
  public static RunResult run(Scenario scenario, long seed) {
    return new PortSimulation(scenario, seed, null).execute();
  }

  static RunResult run(Scenario scenario, long seed, ServiceListener listener) {
    return new PortSimulation(scenario, seed, listener).execute();
  }

  private RunResult execute() {
    startBackground();
    if (tcp != null) {
      tcp.trySend(0);
    }
    while (!heap.isEmpty()) {
      double now = heap.topTime();
      if (now >= duration) {
        break;
      }
      int kind = heap.topKind();
      int arg = heap.topArg();
      heap.pop();
      events++;
      switch (kind) {
        case BG_PACKET -> onBackgroundPacket(now, arg);
        case DEPARTURE -> onDeparture(now);
        case CHEETAH_SEND -> tcp.onSendTimer(now);
        case ACK -> tcp.onAck(now);
        case LOSS_NOTICE -> tcp.onLoss(now, arg);
        case BURST_START -> onBurstStart(now);
        case BIN_START -> onBinStart(now, arg);
        default -> throw new IllegalStateException("unknown event kind " + kind);
      }
    }
    return result();
  }

  // ---- background ----

  private void startBackground() {
    if (scenario.background() instanceof ParetoBursts b) {
      // Start in steady state: the bursts active at time 0 of an M/G/inf system are Poisson with
      // mean λd, each with a residual life from the equilibrium distribution of the Pareto law.
      int active = poisson(b.burstsPerSecond() * b.meanBurstSeconds());
      for (int i = 0; i < active; i++) {
        startBurst(0, residualBurst(b), b);
      }
      heap.push(exponential(b.burstsPerSecond()), BURST_START, 0);
    } else if (scenario.background() instanceof RecordedBins r) {
      heap.push(0, BIN_START, bgRandom.nextInt(r.bins()));
    }
  }

  private void onBurstStart(double now) {
    ParetoBursts b = (ParetoBursts) scenario.background();
    startBurst(now, pareto(b), b);
    heap.push(now + exponential(b.burstsPerSecond()), BURST_START, 0);
  }

  private void startBurst(double now, double length, ParetoBursts b) {
    double gap = b.packetBytes() * 8.0 / b.burstRateBps();
    // A random phase makes the expected packet count exactly length / gap (no rounding bias).
    double first = bgRandom.nextDouble() * gap;
    if (first >= length) {
      return;
    }
    int packets = (int) Math.min(Integer.MAX_VALUE, Math.floor((length - first) / gap) + 1);
    startSource(now + first, packets, gap);
  }

  private void onBinStart(double now, int bin) {
    RecordedBins r = (RecordedBins) scenario.background();
    double bytes = r.bytesAt(bin) + replayCarryBytes;
    int packets = (int) Math.floor(bytes / r.packetBytes());
    replayCarryBytes = bytes - (double) packets * r.packetBytes();
    if (packets > 0) {
      double gap = r.binSeconds() / packets;
      startSource(now + bgRandom.nextDouble() * gap, packets, gap);
    }
    heap.push(now + r.binSeconds(), BIN_START, (bin + 1) % r.bins());
  }

  private void startSource(double firstPacket, int packets, double gap) {
    int slot;
    if (freeCount > 0) {
      slot = freeSlots[--freeCount];
    } else {
      if (slotCount == slotPackets.length) {
        slotPackets = java.util.Arrays.copyOf(slotPackets, slotCount * 2);
        slotGap = java.util.Arrays.copyOf(slotGap, slotCount * 2);
        freeSlots = java.util.Arrays.copyOf(freeSlots, slotCount * 2);
      }
      slot = slotCount++;
    }
    slotPackets[slot] = packets;
    slotGap[slot] = gap;
    heap.push(firstPacket, BG_PACKET, slot);
  }

  private void onBackgroundPacket(double now, int slot) {
    backgroundArrives(now);
    if (--slotPackets[slot] > 0) {
      heap.push(now + slotGap[slot], BG_PACKET, slot);
    } else {
      freeSlots[freeCount++] = slot;
    }
  }

  private void backgroundArrives(double now) {
    boolean measured = now >= warmup;
    if (measured) {
      bgOffered++;
      int bin = (int) ((now - warmup) / binSeconds);
      if (bin < bgBytesPerBin.length) {
        bgBytesPerBin[bin] += bgPacketBytes;
      }
    }
    if (!primary.offer(now, bgPacketBytes, BACKGROUND)) {
      if (measured) {
        bgDropped++;
      }
    } else if (!busy) {
      startTransmission(now);
    }
  }

  // ---- cheetah ----

  void cheetahArrives(double now, int txSeq) {
    int bytes = scenario.cheetah().orElseThrow().packetBytes();
    if (cheetahQueue.offer(now, bytes, txSeq)) {
      if (!busy) {
        startTransmission(now);
      }
      return;
    }
    if (now >= warmup) {
      cheetahDropped++;
    }
    // The sender hears of the drop when the acks of the packets behind it come back: one RTT
    // plus the time the port needs to drain what was ahead of it.
    double ahead = cheetahQueue == primary ? primary.bytes() : primary.bytes() + scavenger.bytes();
    heap.push(now + tcp.rttSeconds() + ahead * 8 * secondsPerBit, LOSS_NOTICE, txSeq);
  }

  // ---- the port ----

  private void startTransmission(double now) {
    PacketQueue queue;
    if (!primary.isEmpty()) {
      queue = primary;
    } else if (!scavenger.isEmpty()) {
      queue = scavenger;
    } else {
      return;
    }
    double arrival = queue.headArrival();
    int bytes = queue.headSize();
    int tag = queue.headTag();
    queue.removeHead();
    double wait = now - arrival;
    if (now >= warmup) {
      if (tag == BACKGROUND) {
        bgDelaySum += wait;
        bgServed++;
        bgDelayMax = Math.max(bgDelayMax, wait);
      } else {
        cheetahDelaySum += wait;
        cheetahServed++;
        cheetahDelayMax = Math.max(cheetahDelayMax, wait);
      }
    }
    if (tag != BACKGROUND) {
      tcp.onRttSample(tcp.rttSeconds() + wait + bytes * 8 * secondsPerBit);
    }
    if (listener != null) {
      listener.onService(queue == primary ? 0 : 1, arrival, now, bytes, tag);
    }
    busy = true;
    wireTag = tag;
    wireBytes = bytes;
    heap.push(now + bytes * 8 * secondsPerBit, DEPARTURE, 0);
  }

  private void onDeparture(double now) {
    busy = false;
    if (wireTag != BACKGROUND) {
      if (now >= warmup) {
        cheetahDeliveredBytes += wireBytes;
      }
      heap.push(now + tcp.rttSeconds(), ACK, 0);
    }
    startTransmission(now);
  }

  // ---- random variates (background generator only) ----

  private double exponential(double rate) {
    return -Math.log(1 - bgRandom.nextDouble()) / rate;
  }

  private double pareto(ParetoBursts b) {
    return b.paretoScaleSeconds() / Math.pow(1 - bgRandom.nextDouble(), 1 / b.paretoShape());
  }

  /** Residual life of a burst in progress: CDF 1 − (1/α)(x_m/x)^(α−1) above x_m, x/d below. */
  private double residualBurst(ParetoBursts b) {
    double alpha = b.paretoShape();
    double u = bgRandom.nextDouble();
    if (u < (alpha - 1) / alpha) {
      return u * b.meanBurstSeconds();
    }
    return b.paretoScaleSeconds() * Math.pow(alpha * (1 - u), -1 / (alpha - 1));
  }

  private int poisson(double mean) {
    // Count unit-rate arrivals within [0, mean): exact and fast enough for the few calls made.
    int n = 0;
    double t = -Math.log(1 - bgRandom.nextDouble());
    while (t < mean) {
      n++;
      t += -Math.log(1 - bgRandom.nextDouble());
    }
    return n;
  }

  private RunResult result() {
    double measured = scenario.measuredSeconds();
    return new RunResult(
        events,
        bgOffered,
        bgDropped,
        bgOffered * (double) bgPacketBytes * 8 / measured,
        net.cheetah.core.link.Burstiness.of(bgBytesPerBin),
        cheetahDeliveredBytes,
        cheetahDeliveredBytes * 8.0 / measured,
        cheetahDropped,
        tcp == null ? 0 : tcp.congestionEvents(),
        bgServed == 0 ? 0 : bgDelaySum / bgServed,
        bgDelayMax,
        cheetahServed == 0 ? 0 : cheetahDelaySum / cheetahServed,
        cheetahDelayMax);
  }
}
