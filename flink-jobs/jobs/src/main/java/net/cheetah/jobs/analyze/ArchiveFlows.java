package net.cheetah.jobs.analyze;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Supplier;
import net.cheetah.core.flow.Address;
import net.cheetah.core.flow.Flow;
import net.cheetah.core.flow.FlowKey;
import net.cheetah.core.flow.Ids;
import net.cheetah.jobs.codec.Codec;
import net.cheetah.jobs.normalize.Normalizer;
import net.cheetah.schemas.goflow2.FlowMessage;

/**
 * Archived flows (decoded natively, or lines nfdump printed) through the normaliser, as `cheetah
 * analyze` reads them: accepted flows split into partitions by (src, dst), so that every record a
 * cheetah or a flowset needs is in one partition; refusals kept as rejected.txt lines ("reason:
 * detail | flow"). One instance per thread.
 *
 * <p>Accepted flows are kept as fixed-length rows of 13 longs (the last: a 64-bit hash of the flow
 * key) in one array per partition (no object per record: millions of them would be traced by every
 * garbage collection) and made into {@link Flow} objects again when the detection reads them.
 */
public final class ArchiveFlows {
  private static final Normalizer.Origin ORIGIN = new Normalizer.Origin("", 0, 0);

  private final Normalizer normalizer = new Normalizer("analyze");
  private static final int STRIDE = 12;

  private long[] rows;
  private int count;
  private final int[][] members;
  private final int[] sizes;
  private final List<String> rejected = new ArrayList<>();
  private long records;

  /** {@code expected}: about how many records will be read (room is made for more if needed). */
  public ArchiveFlows(int partitions, int expected) {
    rows = new long[STRIDE * Math.max(16, expected)];
    members = new int[partitions][Math.max(16, expected / partitions + expected / 8)];
    sizes = new int[partitions];
  }

  /** The partition of the flows from {@code src} to {@code dst}, of {@code n}. */
  public static int partition(Address src, Address dst, int n) {
    return Math.floorMod(31 * src.hashCode() + dst.hashCode(), n);
  }

  /**
   * One record an nfcapd file holds. A plain record the normaliser accepts goes straight into a row
   * from its fields: what {@link #recordViaMessage} does through the goflow2 message and the
   * normaliser's flows.v1 record (the same checks, {@link Normalizer#check}; the same values), at a
   * fraction of the cost. Anything else takes that path, so a refusal reads as it always did.
   */
  public void record(NfcapdRecord r) {
    if (r.plain()) {
      int srcLen = NfcapdRecord.addressLength(r.ipv6, r.srcHi, r.srcLo);
      // As NfdumpLine.message and the normaliser compute them (ns, then ms again).
      long startNs = r.msecFirst * 1_000_000;
      long endNs = r.msecLast * 1_000_000;
      if (Normalizer.check(
              startNs,
              endNs,
              0,
              srcLen == 4 ? Normalizer.ETYPE_IPV4 : Normalizer.ETYPE_IPV6,
              srcLen,
              NfcapdRecord.addressLength(r.ipv6, r.dstHi, r.dstLo),
              r.proto,
              r.srcPort,
              r.dstPort,
              r.inPackets,
              r.inBytes,
              1)
          == null) {
        records++;
        Address src = NfcapdRecord.address(r.ipv6, r.srcHi, r.srcLo);
        Address dst = NfcapdRecord.address(r.ipv6, r.dstHi, r.dstLo);
        add(
            NfcapdRecord.address(r.routerIpv6, r.routerHi, r.routerLo),
            src,
            dst,
            r.srcPort,
            r.dstPort,
            r.proto,
            startNs / 1_000_000,
            endNs / 1_000_000,
            r.inBytes,
            r.inPackets,
            (int) r.srcAs,
            (int) r.dstAs);
        return;
      }
    }
    recordViaMessage(r);
  }

  /** {@link #record} through the goflow2 message and the normaliser: the reference it equals. */
  void recordViaMessage(NfcapdRecord r) {
    records++;
    FlowMessage m;
    try {
      m = r.toMessage();
    } catch (NfdumpLine.BadLine e) {
      rejected.add("unreadable_line: " + e.getMessage() + " | " + r.render());
      return;
    }
    normalize(m, r::render);
  }

  /** One line nfdump printed in {@link NfdumpLine#FORMAT}. */
  public void line(String line) {
    try {
      var m = NfdumpLine.parse(line);
      if (m.isEmpty()) {
        return;
      }
      records++;
      normalize(m.get(), () -> line);
    } catch (NfdumpLine.BadLine e) {
      records++;
      rejected.add("unreadable_line: " + e.getMessage() + " | " + line);
    }
  }

  private void normalize(FlowMessage m, Supplier<String> text) {
    normalizer.normalize(
        m,
        ORIGIN,
        f -> add(Codec.flow(f)),
        bad -> rejected.add(bad.getReason() + ": " + bad.getDetail() + " | " + text.get()));
  }

  /** Flow records read (accepted or not). */
  public long records() {
    return records;
  }

  private void add(Flow f) {
    FlowKey k = f.key();
    add(
        k.exporter(),
        k.src(),
        k.dst(),
        k.srcPort(),
        k.dstPort(),
        k.proto(),
        f.startMs(),
        f.endMs(),
        f.bytes(),
        f.packets(),
        f.srcAs(),
        f.dstAs());
  }

  private void add(
      Address exporter,
      Address src,
      Address dst,
      int srcPort,
      int dstPort,
      int proto,
      long startMs,
      long endMs,
      long bytes,
      long packets,
      int srcAs,
      int dstAs) {
    int p = partition(src, dst, members.length);
    if ((count + 1) * STRIDE > rows.length) {
      rows = Arrays.copyOf(rows, rows.length + rows.length / 2 + STRIDE);
    }
    if (sizes[p] == members[p].length) {
      members[p] = Arrays.copyOf(members[p], members[p].length + members[p].length / 2 + 16);
    }
    members[p][sizes[p]++] = count;
    long[] r = rows;
    int at = count * STRIDE;
    r[at] = exporter.hi();
    r[at + 1] = exporter.lo();
    r[at + 2] = src.hi();
    r[at + 3] = src.lo();
    r[at + 4] = dst.hi();
    r[at + 5] = dst.lo();
    r[at + 6] = ((long) srcPort << 40) | ((long) dstPort << 16) | (proto & 0xFFFFL);
    r[at + 7] = startMs;
    r[at + 8] = endMs;
    r[at + 9] = bytes;
    r[at + 10] = packets;
    r[at + 11] = ((long) srcAs << 32) | (dstAs & 0xFFFF_FFFFL);
    count++;
  }

  /**
   * A 64-bit hash of the whole flow key (exporter, addresses, ports, protocol) of the {@code i}-th
   * accepted flow of partition {@code p}: equal keys, equal hashes.
   */
  public long keyHash(int p, int i) {
    int at = members[p][i] * STRIDE;
    long h = rows[at];
    for (int c = 1; c <= 6; c++) {
      h = Ids.mix(h, rows[at + c]);
    }
    return h;
  }

  /** Bytes of the {@code i}-th accepted flow of partition {@code p}. */
  public long bytes(int p, int i) {
    return rows[members[p][i] * STRIDE + 9];
  }

  /** Accepted flows in partition {@code p}. */
  public int size(int p) {
    return sizes[p];
  }

  /** The {@code i}-th accepted flow of partition {@code p}, in the order read. */
  public Flow flow(int p, int i) {
    long[] r = rows;
    int at = members[p][i] * STRIDE;
    long ports = r[at + 6];
    FlowKey k =
        new FlowKey(
            new Address(r[at], r[at + 1]),
            new Address(r[at + 2], r[at + 3]),
            new Address(r[at + 4], r[at + 5]),
            (int) (ports >>> 40),
            (int) ((ports >>> 16) & 0xFF_FFFFL),
            (int) (ports & 0xFFFFL));
    long as = r[at + 11];
    return new Flow(k, r[at + 7], r[at + 8], r[at + 9], r[at + 10], (int) (as >>> 32), (int) as);
  }

  /** Refused records as rejected.txt lines, in the order read. */
  public List<String> rejected() {
    return rejected;
  }
}
