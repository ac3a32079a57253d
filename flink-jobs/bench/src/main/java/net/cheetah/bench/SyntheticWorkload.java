package net.cheetah.bench;

import com.google.protobuf.ByteString;
import com.google.protobuf.CodedOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.PriorityQueue;
import java.util.SplittableRandom;
import java.util.function.Consumer;
import net.cheetah.schemas.goflow2.FlowMessage;

/**
 * A seeded research-site mix as goflow2 publishes it on flows.goflow2.v1 (one varint
 * length-delimited FlowMessage per Kafka value, keyed by exporter), in export order: every virtual
 * second, the records that ended in it, sorted by end time.
 *
 * <ul>
 *   <li>mice: single-record flows of 0–4 s and up to 75 KB;
 *   <li>long flows: {@link Params#longFlows} concurrent flows of 2–30 min at 1 KB/s–2 MB/s (never
 *       cheetahs), split by the 60 s active timeout into adjacent records; each is replaced by a
 *       new 5-tuple when it ends;
 *   <li>transfers: a new one every {@link Params#transferEverySeconds} on average between two sites
 *       (198.18.k.0/24), 1–16 parallel streams starting within 8 s of each other (one flowset),
 *       3–10 min long; 80 % at 20–80 MB/s per stream (cheetahs at H = 1 GB per 60 s interval), the
 *       rest at 4–12 MB/s (heavy but below H). {@link Params#initialTransfers} are already running
 *       at the start, so cheetahs appear from the first minute.
 * </ul>
 *
 * Two exporters; a flow is exported by its source's exporter.
 */
public final class SyntheticWorkload {
  /** 2026-11-01T00:00:00Z, the generator's day (ingest/generator). */
  public static final long T0_MS = 1_793_491_200_000L;

  static final long ACTIVE_TIMEOUT_MS = 60_000;
  static final int EXPORTERS = 2;

  /**
   * Mix parameters.
   *
   * @param seed random seed: same seed and parameters, same bytes
   * @param micePerSecond single-record flows per virtual second
   * @param longFlows concurrent long flows (each exports one record per active timeout)
   * @param transferEverySeconds mean virtual seconds between new transfers
   * @param initialTransfers transfers already running at the start
   */
  public record Params(
      long seed,
      int micePerSecond,
      int longFlows,
      double transferEverySeconds,
      int initialTransfers) {

    /** ~1,500 records per virtual second: 1,000 mice, 500 long-flow records, a few heavy ones. */
    public static Params researchSite(long seed) {
      return new Params(seed, 1_000, 30_000, 15.0, 20);
    }

    /** Transfers only, one every 2 s: a dense stream of cheetah events for the flowset stage. */
    public static Params transfersOnly(long seed) {
      return new Params(seed, 0, 0, 2.0, 60);
    }
  }

  /** One Kafka record of flows.goflow2.v1: the exporter it came from and the value bytes. */
  public record Message(int exporter, byte[] key, byte[] value) {}

  /** Counts of what was generated, for the summary line. */
  public record Totals(long records, long mice, long longFlowRecords, long transferRecords) {}

  private static final byte[][] EXPORTER_ADDRESSES = {{(byte) 192, 0, 2, 1}, {(byte) 192, 0, 2, 2}};
  private static final ByteString[] EXPORTER_BYTES = {
    ByteString.copyFrom(EXPORTER_ADDRESSES[0]), ByteString.copyFrom(EXPORTER_ADDRESSES[1])
  };

  private final Params p;
  private final SplittableRandom r;
  private final PriorityQueue<Stream> streams =
      new PriorityQueue<>(Comparator.comparingLong(s -> s.nextRecordEnd));
  private final int[] sequence = new int[EXPORTERS];
  private long mice;
  private long longRecords;
  private long transferRecords;
  private int nextSrcPort = 1024;
  private final long t0Ms;
  private long tickMs;
  private final java.util.ArrayDeque<Rec> tick = new java.util.ArrayDeque<>();

  public SyntheticWorkload(Params p) {
    this(p, T0_MS);
  }

  /** The same mix with virtual time starting at {@code t0Ms} instead of {@link #T0_MS}. */
  public SyntheticWorkload(Params p, long t0Ms) {
    this.p = p;
    this.t0Ms = t0Ms;
    this.tickMs = t0Ms;
    this.r = new SplittableRandom(p.seed());
    for (int i = 0; i < p.longFlows(); i++) {
      // Already running, so their records are spread evenly over the first minute.
      streams.add(newLongFlow(t0Ms - r.nextLong(ACTIVE_TIMEOUT_MS)));
    }
    for (int i = 0; i < p.initialTransfers(); i++) {
      startTransfer(t0Ms - r.nextLong(8 * 60_000));
    }
  }

  public Totals totals() {
    return new Totals(mice + longRecords + transferRecords, mice, longRecords, transferRecords);
  }

  /**
   * Emits the next {@code n} messages, in export order; a later call continues where this one
   * stopped.
   */
  public void generate(long n, Consumer<Message> out) {
    long emitted = 0;
    while (emitted < n) {
      if (tick.isEmpty()) {
        nextTick();
        continue;
      }
      Rec x = tick.poll();
      out.accept(encode(x, tickMs + 1000));
      emitted++;
      switch (x.kind) {
        case MOUSE -> mice++;
        case LONG -> longRecords++;
        case TRANSFER -> transferRecords++;
      }
    }
  }

  /** The records that ended in the next virtual second, by end time. */
  private void nextTick() {
    tickMs += 1000;
    List<Rec> l = new ArrayList<>();
    addMice(tickMs, l);
    addStreamRecords(tickMs, l);
    if (p.transferEverySeconds() > 0 && r.nextDouble() < 1.0 / p.transferEverySeconds()) {
      startTransfer(tickMs);
    }
    l.sort(Comparator.comparingLong(x -> x.endMs));
    tick.addAll(l);
  }

  /** {@link #generate} into a list (benchmarks' fixtures). */
  public List<Message> take(int n) {
    List<Message> l = new ArrayList<>(n);
    generate(n, l::add);
    return l;
  }

  private enum Kind {
    MOUSE,
    LONG,
    TRANSFER
  }

  private record Rec(
      Kind kind,
      int exporter,
      byte[] src,
      byte[] dst,
      int srcPort,
      int dstPort,
      int proto,
      long startMs,
      long endMs,
      long bytes,
      long packets,
      int srcAs,
      int dstAs,
      int tcpFlags) {}

  /** A flow that exports a record every active timeout until it ends. */
  private static final class Stream {
    Kind kind;
    int exporter;
    byte[] src;
    byte[] dst;
    int srcPort;
    int dstPort;
    int proto;
    long startMs;
    long endMs;
    long bytesPerSecond;
    int packetSize;
    int srcAs;
    int dstAs;
    long recordStart;
    long nextRecordEnd;
  }

  private void addMice(long t, List<Rec> out) {
    for (int i = 0; i < p.micePerSecond(); i++) {
      long end = t - r.nextLong(1000);
      long dur = r.nextInt(8) == 0 ? r.nextLong(4000) : r.nextLong(300);
      long packets = 1 + r.nextLong(r.nextInt(10) == 0 ? 50 : 5);
      long bytes = packets * (40 + r.nextLong(1461));
      boolean tcp = r.nextInt(5) != 0;
      byte[] src = {10, (byte) r.nextInt(256), (byte) r.nextInt(256), (byte) (1 + r.nextInt(254))};
      byte[] dst = {(byte) 203, 0, (byte) (113 + r.nextInt(2)), (byte) (1 + r.nextInt(254))};
      out.add(
          new Rec(
              Kind.MOUSE,
              src[1] & 1,
              src,
              dst,
              1024 + r.nextInt(64_000),
              tcp ? (r.nextBoolean() ? 443 : 80) : 53,
              tcp ? 6 : 17,
              end - dur,
              end,
              bytes,
              packets,
              64_500 + (src[1] & 0xff),
              15_169,
              tcp ? 0x1b : 0));
    }
  }

  private void addStreamRecords(long t, List<Rec> out) {
    while (!streams.isEmpty() && streams.peek().nextRecordEnd <= t) {
      Stream s = streams.poll();
      long start = Math.max(s.recordStart, s.startMs);
      long end = s.nextRecordEnd;
      // Transfers already running at the start export only what ends after it.
      if (end > start && end > t0Ms) {
        long bytes = Math.max(s.packetSize, s.bytesPerSecond * (end - start) / 1000);
        long packets = Math.max(1, bytes / s.packetSize);
        out.add(
            new Rec(
                s.kind,
                s.exporter,
                s.src,
                s.dst,
                s.srcPort,
                s.dstPort,
                s.proto,
                start,
                end,
                bytes,
                packets,
                s.srcAs,
                s.dstAs,
                s.proto == 6 ? 0x1b : 0));
      }
      if (end >= s.endMs) {
        if (s.kind == Kind.LONG) {
          streams.add(newLongFlow(s.endMs + r.nextLong(1000)));
        }
        continue;
      }
      // Adjacent spans: the next record starts where this one ended (ingest/generator model).
      s.recordStart = end;
      s.nextRecordEnd = Math.min(s.endMs, end + ACTIVE_TIMEOUT_MS);
      streams.add(s);
    }
  }

  private Stream newLongFlow(long start) {
    Stream s = new Stream();
    s.kind = Kind.LONG;
    s.src =
        new byte[] {10, (byte) r.nextInt(256), (byte) r.nextInt(256), (byte) (1 + r.nextInt(254))};
    s.dst = new byte[] {(byte) 198, 51, 100, (byte) (1 + r.nextInt(254))};
    s.exporter = s.src[1] & 1;
    s.srcPort = nextPort();
    s.dstPort = r.nextInt(3) == 0 ? 22 : 443;
    s.proto = 6;
    s.startMs = start;
    s.endMs = start + 120_000 + r.nextLong(28 * 60_000);
    // 1 KB/s .. 2 MB/s, log-uniform: at most 120 MB per interval, far below H.
    s.bytesPerSecond = (long) Math.exp(Math.log(1_000) + r.nextDouble() * Math.log(2_000.0));
    s.packetSize = 200 + r.nextInt(1201);
    s.srcAs = 64_500 + (s.src[1] & 0xff);
    s.dstAs = 64_496;
    s.recordStart = start;
    s.nextRecordEnd = Math.min(s.endMs, start + ACTIVE_TIMEOUT_MS);
    return s;
  }

  private void startTransfer(long t) {
    int a = r.nextInt(6);
    int b = (a + 1 + r.nextInt(5)) % 6;
    byte[] src = {(byte) 198, 18, (byte) a, (byte) (10 + r.nextInt(20))};
    byte[] dst = {(byte) 198, 18, (byte) b, (byte) (10 + r.nextInt(20))};
    int n = 1 + r.nextInt(16);
    boolean cheetah = r.nextInt(5) != 0;
    long duration = 3 * 60_000 + r.nextLong(7 * 60_000);
    int dstPort = r.nextBoolean() ? 2811 : 5201;
    int packet = r.nextInt(4) == 0 ? 8960 : 1460;
    for (int i = 0; i < n; i++) {
      Stream s = new Stream();
      s.kind = Kind.TRANSFER;
      s.src = src;
      s.dst = dst;
      s.exporter = a & 1;
      s.srcPort = nextPort();
      s.dstPort = dstPort;
      s.proto = 6;
      s.startMs = t + r.nextLong(8_000);
      s.endMs = s.startMs + duration + r.nextLong(20_000);
      s.bytesPerSecond =
          cheetah ? 20_000_000L + r.nextLong(60_000_000L) : 4_000_000L + r.nextLong(8_000_000L);
      s.packetSize = packet;
      s.srcAs = 64_600 + a;
      s.dstAs = 64_600 + b;
      s.recordStart = s.startMs;
      s.nextRecordEnd = Math.min(s.endMs, s.startMs + ACTIVE_TIMEOUT_MS);
      streams.add(s);
    }
  }

  /** Ephemeral source ports in turn: no 5-tuple is reused within a run of realistic length. */
  private int nextPort() {
    nextSrcPort = nextSrcPort >= 65_535 ? 1024 : nextSrcPort + 1;
    return nextSrcPort;
  }

  private Message encode(Rec x, long receivedMs) {
    FlowMessage m =
        FlowMessage.newBuilder()
            .setType(FlowMessage.FlowType.NETFLOW_V9)
            .setTimeReceivedNs(receivedMs * 1_000_000)
            .setSequenceNum(sequence[x.exporter]++ / 25) // ~25 records per datagram
            .setSamplingRate(1)
            .setSamplerAddress(EXPORTER_BYTES[x.exporter])
            .setObservationDomainId(x.exporter + 1)
            .setTimeFlowStartNs(x.startMs * 1_000_000)
            .setTimeFlowEndNs(x.endMs * 1_000_000)
            .setBytes(x.bytes)
            .setPackets(x.packets)
            .setSrcAddr(ByteString.copyFrom(x.src))
            .setDstAddr(ByteString.copyFrom(x.dst))
            .setEtype(0x0800)
            .setProto(x.proto)
            .setSrcPort(x.srcPort)
            .setDstPort(x.dstPort)
            .setInIf(1 + (x.src[2] & 7))
            .setOutIf(9)
            .setSrcAs(x.srcAs)
            .setDstAs(x.dstAs)
            .setTcpFlags(x.tcpFlags)
            .build();
    int size = m.getSerializedSize();
    byte[] v = new byte[CodedOutputStream.computeUInt32SizeNoTag(size) + size];
    CodedOutputStream o = CodedOutputStream.newInstance(v);
    try {
      o.writeUInt32NoTag(size);
      m.writeTo(o);
      o.checkNoSpaceLeft();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return new Message(x.exporter, EXPORTER_ADDRESSES[x.exporter], v);
  }
}
