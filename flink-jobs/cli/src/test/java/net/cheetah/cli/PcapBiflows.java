package net.cheetah.cli;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

/**
 * Reads a classic pcap (Ethernet/IPv4/TCP|UDP, microsecond timestamps) and keeps, per direction,
 * the bytes (IPv4 total length) and, per bidirectional 5-tuple, the first and last packet time:
 * what softflowd 1.1.0 reports, since it tracks a connection as one bidirectional flow and exports
 * both directions with that flow's start and end (ipfix.c, -A milli: tv_sec·1000 + tv_usec/1000).
 */
final class PcapBiflows {
  /** One direction: src, dst, ports, protocol (addresses as dotted quads). */
  record Tuple(String src, String dst, int srcPort, int dstPort, int proto) {
    Tuple reverse() {
      return new Tuple(dst, src, dstPort, srcPort, proto);
    }

    /** The same key for both directions. */
    Tuple canonical() {
      Tuple r = reverse();
      return toString().compareTo(r.toString()) <= 0 ? this : r;
    }
  }

  record Span(long firstUs, long lastUs) {}

  final Map<Tuple, Long> bytes = new HashMap<>();
  final Map<Tuple, Span> biflows = new HashMap<>();
  long packets;

  static PcapBiflows read(Path pcap) throws IOException {
    ByteBuffer b = ByteBuffer.wrap(Files.readAllBytes(pcap));
    int magic = b.order(ByteOrder.LITTLE_ENDIAN).getInt(0);
    if (magic == 0xd4c3b2a1) {
      b.order(ByteOrder.BIG_ENDIAN);
    } else if (magic != 0xa1b2c3d4) {
      throw new IOException(pcap + ": not a classic microsecond pcap (magic " + magic + ")");
    }
    if (b.getInt(20) != 1) {
      throw new IOException(pcap + ": link type " + b.getInt(20) + ", expected Ethernet (1)");
    }
    PcapBiflows out = new PcapBiflows();
    int pos = 24;
    while (pos + 16 <= b.limit()) {
      long us = (b.getInt(pos) & 0xFFFF_FFFFL) * 1_000_000L + (b.getInt(pos + 4) & 0xFFFF_FFFFL);
      int caplen = b.getInt(pos + 8);
      int frame = pos + 16;
      pos = frame + caplen;
      ByteBuffer f = b.duplicate().order(ByteOrder.BIG_ENDIAN);
      if ((f.getShort(frame + 12) & 0xFFFF) != 0x0800) {
        continue;
      }
      int ip = frame + 14;
      int ihl = (f.get(ip) & 0x0F) * 4;
      int totalLength = f.getShort(ip + 2) & 0xFFFF;
      int proto = f.get(ip + 9) & 0xFF;
      String src = dotted(f.getInt(ip + 12));
      String dst = dotted(f.getInt(ip + 16));
      int sp = f.getShort(ip + ihl) & 0xFFFF;
      int dp = f.getShort(ip + ihl + 2) & 0xFFFF;
      Tuple t = new Tuple(src, dst, sp, dp, proto);
      out.packets++;
      out.bytes.merge(t, (long) totalLength, Long::sum);
      out.biflows.merge(
          t.canonical(),
          new Span(us, us),
          (a, n) -> new Span(Math.min(a.firstUs, n.firstUs), Math.max(a.lastUs, n.lastUs)));
    }
    return out;
  }

  /** The bidirectional flow's first and last packet, in ms as softflowd exports them. */
  Span millis(Tuple t) {
    Span s = biflows.get(t.canonical());
    if (s == null) {
      throw new IllegalArgumentException("no packets of " + t + " in the pcap");
    }
    return new Span(s.firstUs / 1000, s.lastUs / 1000);
  }

  private static String dotted(int a) {
    return ((a >>> 24) & 0xFF)
        + "."
        + ((a >>> 16) & 0xFF)
        + "."
        + ((a >>> 8) & 0xFF)
        + "."
        + (a & 0xFF);
  }
}
