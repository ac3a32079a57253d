package net.cheetah.jobs.analyze;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Optional;
import net.cheetah.core.flow.Address;
import net.cheetah.schemas.goflow2.FlowMessage;

/**
 * One flow record of an nfcapd file (nfdump 1.7's V3 record), as {@link NfcapdFile} decodes it: the
 * values nfdump would print for it. Mutable and reused by the reader for every record: copy what
 * you keep.
 *
 * <p>Addresses are kept as nfdump keeps them: IPv4 as a 32-bit number, IPv6 as two 64-bit halves
 * (most significant first), with a flag saying which.
 */
public final class NfcapdRecord {
  static final int PROTO_ICMP = 1;
  static final int PROTO_TCP = 6;
  static final int PROTO_ICMPV6 = 58;

  public long msecFirst;
  public long msecLast;
  public long msecReceived;
  public long inPackets;
  public long inBytes;
  public long outPackets;
  public long outBytes;
  public long aggrFlows;
  public int srcPort;
  public int dstPort;
  public int proto;
  public int tcpFlags;
  public int srcTos;
  public boolean ipv6;
  public long srcHi;
  public long srcLo;
  public long dstHi;
  public long dstLo;
  public long input;
  public long output;
  public long srcAs;
  public long dstAs;
  public boolean routerIpv6;
  public long routerHi;
  public long routerLo;
  public int exporterId;
  public int engineType;
  public int engineId;

  /** Back to nfdump's defaults (ClearMasterRecord): every field 0, IPv4. */
  void clear() {
    msecFirst = msecLast = msecReceived = 0;
    inPackets = inBytes = outPackets = outBytes = aggrFlows = 0;
    srcPort = dstPort = proto = tcpFlags = srcTos = 0;
    ipv6 = routerIpv6 = false;
    srcHi = srcLo = dstHi = dstLo = routerHi = routerLo = 0;
    input = output = srcAs = dstAs = 0;
    exporterId = engineType = engineId = 0;
  }

  /**
   * The goflow2 message of this record, exactly as {@link NfdumpLine#parse} makes it from the line
   * nfdump prints for it in {@link NfdumpLine#FORMAT}; {@link NfdumpLine.BadLine} where that line
   * would be refused (e.g. an ICMP record, whose destination port nfdump prints as "type.code").
   */
  public FlowMessage toMessage() throws NfdumpLine.BadLine {
    if (!plain()) {
      // Rare shapes: through the text, so that the refusal reads as it always did.
      Optional<FlowMessage> m = NfdumpLine.parse(render());
      return m.orElseThrow(() -> new NfdumpLine.BadLine("an empty line"));
    }
    return NfdumpLine.message(
        msecFirst,
        msecLast,
        addressBytes(routerIpv6, routerHi, routerLo),
        addressBytes(ipv6, srcHi, srcLo),
        addressBytes(ipv6, dstHi, dstLo),
        srcPort,
        dstPort,
        proto,
        inPackets,
        inBytes,
        (int) srcAs,
        (int) dstAs,
        (int) input,
        (int) output,
        proto == PROTO_TCP ? tcpFlags : 0,
        srcTos);
  }

  /**
   * Whether {@link #toMessage} builds this record's message from its fields (true) or from the text
   * nfdump prints for it (rare shapes: ICMP, negative or inverted times and counts).
   */
  boolean plain() {
    return proto != PROTO_ICMP
        && proto != PROTO_ICMPV6
        && msecFirst >= 0
        && msecLast >= msecFirst
        && inPackets >= 0
        && inBytes >= 0;
  }

  /** How many bytes {@link #addressBytes} gives for this address: 4 or 16. */
  static int addressLength(boolean v6, long hi, long lo) {
    return v6 && !(hi == 0 && (lo >>> 32) == 0xFFFFL) ? 16 : 4;
  }

  /** {@code Address.fromBytes(addressBytes(v6, hi, lo))}, without the bytes. */
  static Address address(boolean v6, long hi, long lo) {
    return v6 ? new Address(hi, lo) : Address.ofIpv4((int) lo);
  }

  /**
   * The line nfdump 1.7.1 prints for this record with {@code -q -N -6 -o} {@link
   * NfdumpLine#FORMAT}, without its column padding (IPv6 addresses may be written differently,
   * never with other bytes).
   */
  public String render() {
    StringBuilder b = new StringBuilder(128);
    b.append(Long.toUnsignedString(Long.divideUnsigned(msecFirst, 1000)))
        .append('.')
        .append(String.format("%03d", Long.remainderUnsigned(msecFirst, 1000)))
        .append('|')
        .append(seconds(msecLast - msecFirst))
        .append('|')
        .append(addressText(routerIpv6, routerHi, routerLo))
        .append('|')
        .append(addressText(ipv6, srcHi, srcLo))
        .append('|')
        .append(addressText(ipv6, dstHi, dstLo))
        .append('|')
        .append(srcPort)
        .append('|');
    if (proto == PROTO_ICMP || proto == PROTO_ICMPV6) {
      b.append(dstPort >>> 8).append('.').append(dstPort & 0xFF);
    } else {
      b.append(dstPort);
    }
    b.append('|')
        .append(proto)
        .append('|')
        .append(Long.toUnsignedString(inPackets))
        .append('|')
        .append(Long.toUnsignedString(inBytes))
        .append('|')
        .append(srcAs)
        .append('|')
        .append(dstAs)
        .append('|')
        .append(input)
        .append('|')
        .append(output)
        .append('|')
        .append(flagLetters(proto == PROTO_TCP ? tcpFlags : 0))
        .append('|')
        .append(srcTos);
    return b.toString();
  }

  /** nfdump's "%.3f" of an unsigned millisecond count / 1000.0 (exact decimal expansion, as C). */
  static String seconds(long unsignedMs) {
    double d =
        unsignedMs >= 0
            ? unsignedMs / 1000.0
            : ((double) (unsignedMs >>> 1) * 2.0 + (unsignedMs & 1)) / 1000.0;
    return new BigDecimal(d).setScale(3, RoundingMode.HALF_EVEN).toPlainString();
  }

  static String flagLetters(int flags) {
    char[] c = new char[8];
    String letters = "CEUAPRSF";
    for (int i = 0; i < 8; i++) {
      c[i] = (flags & (1 << (7 - i))) != 0 ? letters.charAt(i) : '.';
    }
    return new String(c);
  }

  /**
   * The bytes {@code InetAddress.getByName} gives for nfdump's text of the address: 4 for IPv4, 16
   * for IPv6 except IPv4-mapped ones (::ffff:a.b.c.d), which Java reads as IPv4.
   */
  static byte[] addressBytes(boolean v6, long hi, long lo) {
    if (!v6) {
      int v4 = (int) lo;
      return new byte[] {(byte) (v4 >>> 24), (byte) (v4 >>> 16), (byte) (v4 >>> 8), (byte) v4};
    }
    if (hi == 0 && (lo >>> 32) == 0xFFFFL) {
      return addressBytes(false, 0, lo);
    }
    byte[] b = new byte[16];
    for (int i = 0; i < 8; i++) {
      b[i] = (byte) (hi >>> (56 - 8 * i));
      b[8 + i] = (byte) (lo >>> (56 - 8 * i));
    }
    return b;
  }

  static String addressText(boolean v6, long hi, long lo) {
    if (!v6) {
      int v4 = (int) lo;
      return (v4 >>> 24)
          + "."
          + ((v4 >>> 16) & 0xFF)
          + "."
          + ((v4 >>> 8) & 0xFF)
          + "."
          + (v4 & 0xFF);
    }
    byte[] b = new byte[16];
    for (int i = 0; i < 8; i++) {
      b[i] = (byte) (hi >>> (56 - 8 * i));
      b[8 + i] = (byte) (lo >>> (56 - 8 * i));
    }
    try {
      return InetAddress.getByAddress(b).getHostAddress();
    } catch (UnknownHostException e) {
      throw new AssertionError("16 bytes are always an address", e);
    }
  }
}
