package net.cheetah.jobs.analyze;

import com.google.protobuf.ByteString;
import java.math.BigDecimal;
import java.net.InetAddress;
import java.util.Optional;
import net.cheetah.schemas.goflow2.FlowMessage;

/**
 * One flow as printed by nfdump 1.7 with {@link #FORMAT}, turned into the goflow2 message shape so
 * that the normaliser applies the same checks to archives as to live NetFlow.
 *
 * <p>Times: {@code %tsr} (start, epoch seconds with ms) plus {@code %td} (duration, seconds with
 * ms). nfdump 1.7.1 prints {@code %ter} with mangled milliseconds, so the end is derived.
 */
public final class NfdumpLine {
  private NfdumpLine() {}

  /** Fields in order; "|" separated; use with -q -N -6 and TZ=UTC. */
  public static final String FORMAT =
      "fmt:%tsr|%td|%ra|%sa|%da|%sp|%dp|%pr|%ipkt|%ibyt|%sas|%das|%in|%out|%flg|%tos";

  private static final int FIELDS = 16;
  private static final String FLAG_LETTERS = "CEUAPRSF";

  /** A line nfdump printed that is not a flow of this format. */
  public static final class BadLine extends Exception {
    public BadLine(String message) {
      super(message);
    }
  }

  /** What nfdump prints, even with -q, for an archive (or a filter) without flows. */
  static final String NO_FLOWS = "No matching flows";

  /**
   * Empty for blank lines and nfdump's "No matching flows"; the message otherwise; BadLine when the
   * line cannot be read.
   */
  public static Optional<FlowMessage> parse(String line) throws BadLine {
    if (line.isBlank() || line.strip().equals(NO_FLOWS)) {
      return Optional.empty();
    }
    String[] f = line.split("\\|", -1);
    if (f.length != FIELDS) {
      throw new BadLine("expected " + FIELDS + " '|'-separated fields, found " + f.length);
    }
    try {
      long startMs = millis(f[0].trim(), "start time");
      long durationMs = millis(f[1].trim(), "duration");
      byte[] src = addr(f[3]);
      byte[] dst = addr(f[4]);
      return Optional.of(
          message(
              startMs,
              startMs + durationMs,
              addr(f[2]),
              src,
              dst,
              uint(f[5], "source port"),
              dstPort(f[6]),
              uint(f[7], "protocol"),
              ulong(f[8], "packets"),
              ulong(f[9], "bytes"),
              uint(f[10], "source AS"),
              uint(f[11], "destination AS"),
              uint(f[12], "input interface"),
              uint(f[13], "output interface"),
              flags(f[14].trim()),
              uint(f[15], "ToS")));
    } catch (IllegalArgumentException e) {
      throw new BadLine(e.getMessage());
    }
  }

  /**
   * The goflow2 message of one flow nfdump printed (or {@link NfcapdRecord} decoded): the one place
   * that says how an archived flow becomes what the normaliser checks. Addresses as 4 or 16 bytes.
   */
  static FlowMessage message(
      long startMs,
      long endMs,
      byte[] router,
      byte[] src,
      byte[] dst,
      int srcPort,
      int dstPort,
      int proto,
      long packets,
      long bytes,
      int srcAs,
      int dstAs,
      int inIf,
      int outIf,
      int tcpFlags,
      int tos) {
    return FlowMessage.newBuilder()
        .setTimeFlowStartNs(startMs * 1_000_000)
        .setTimeFlowEndNs(endMs * 1_000_000)
        .setSamplerAddress(ByteString.copyFrom(router))
        .setSrcAddr(ByteString.copyFrom(src))
        .setDstAddr(ByteString.copyFrom(dst))
        .setEtype(src.length == 4 ? 0x0800 : 0x86DD)
        .setSrcPort(srcPort)
        .setDstPort(dstPort)
        .setProto(proto)
        .setPackets(packets)
        .setBytes(bytes)
        .setSrcAs(srcAs)
        .setDstAs(dstAs)
        .setInIf(inIf)
        .setOutIf(outIf)
        .setTcpFlags(tcpFlags)
        .setIpTos(tos)
        .setSamplingRate(1)
        .build();
  }

  /** "1795321405.123" or "59.999" seconds → ms, exactly. */
  static long millis(String s, String what) {
    try {
      return new BigDecimal(s).movePointRight(3).longValueExact();
    } catch (NumberFormatException | ArithmeticException e) {
      throw new IllegalArgumentException(
          what + " '" + s + "' is not seconds with at most 3 decimals");
    }
  }

  private static byte[] addr(String s) {
    String t = s.trim();
    if (t.isEmpty() || !(t.indexOf(':') >= 0 || Character.isDigit(t.charAt(0)))) {
      throw new IllegalArgumentException("'" + t + "' is not an IP address");
    }
    try {
      return InetAddress.getByName(t).getAddress();
    } catch (java.net.UnknownHostException e) {
      throw new IllegalArgumentException("'" + t + "' is not an IP address");
    }
  }

  /**
   * The destination port, or for ICMP what nfdump prints as "TYPE.CODE" (even with -N), back to the
   * NetFlow encoding TYPE·256 + CODE, as the archive holds it.
   */
  static int dstPort(String s) {
    String t = s.trim();
    int dot = t.indexOf('.');
    if (dot < 0) {
      return uint(t, "destination port");
    }
    long type = ulong(t.substring(0, dot), "ICMP type");
    long code = ulong(t.substring(dot + 1), "ICMP code");
    if (type > 255 || code > 255) {
      throw new IllegalArgumentException(
          "ICMP type.code '" + t + "' is not two numbers in 0..255 (nfdump -N)");
    }
    return (int) (type * 256 + code);
  }

  private static int uint(String s, String what) {
    long v = ulong(s, what);
    if (v > 0xFFFF_FFFFL) {
      throw new IllegalArgumentException(what + " " + v + " exceeds 32 bits");
    }
    return (int) v;
  }

  private static long ulong(String s, String what) {
    String t = s.trim();
    try {
      long v = Long.parseLong(t);
      if (v < 0) {
        throw new NumberFormatException();
      }
      return v;
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          what + " '" + t + "' is not a non-negative whole number (nfdump -N)");
    }
  }

  /** nfdump prints TCP flags as 8 letters "CEUAPRSF" with '.' for unset bits. */
  static int flags(String s) {
    if (s.length() != FLAG_LETTERS.length()) {
      return 0;
    }
    int v = 0;
    for (int i = 0; i < s.length(); i++) {
      if (s.charAt(i) == FLAG_LETTERS.charAt(i)) {
        v |= 1 << (7 - i);
      }
    }
    return v;
  }
}
