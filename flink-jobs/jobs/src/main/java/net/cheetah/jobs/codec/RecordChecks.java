package net.cheetah.jobs.codec;

import net.cheetah.core.flow.Flow;
import net.cheetah.jobs.codec.Decoders.Refused;
import net.cheetah.schemas.v1.CheetahEvent;
import net.cheetah.schemas.v1.FlowRecord;
import net.cheetah.schemas.v1.LinkBin;
import net.cheetah.schemas.v1.LinkStats;
import net.cheetah.schemas.v1.SnmpCounters;

/**
 * What a job's reader refuses in a decodable record of its input topics: values no valid producer
 * writes (a missing link id, an end before the start, counts past 2^63 or impossible, an unknown
 * enum, a time far past the record's own), each with a stable reason code. Checked here, in the
 * reader, so that an operator never meets them (a bad time would move a clock, a bad count a rate).
 */
public final class RecordChecks {
  /** A record may be this far ahead of the time it was written to Kafka (clock skew). */
  static final long MAX_FUTURE_MS = 3600_000;

  /** A flow record never lasts longer than this (a broken clock does), as in normalize. */
  static final long MAX_FLOW_DURATION_MS = 7L * 24 * 3600 * 1000;

  /** Faster than any interface (10 Pb/s): an ifHighSpeed beyond it is a broken agent. */
  static final long MAX_SPEED_MBPS = 10_000_000_000L;

  private RecordChecks() {}

  /** flows.v1, written by normalize and backfill. */
  public static Flow flow(FlowRecord r, long recordMs) throws Refused {
    flow(
        r.getExporter().size(),
        r.getSrcAddr().size(),
        r.getDstAddr().size(),
        r.getStartMs(),
        r.getEndMs(),
        Math.max(recordMs, r.getReceivedMs()),
        r.getSrcPort(),
        r.getDstPort(),
        r.getProto(),
        r.getBytes(),
        r.getPackets());
    return Codec.flow(r);
  }

  /**
   * The checks of {@link #flow(FlowRecord, long)} on a flows.v1 record's fields: address lengths,
   * times, counts and ranges; {@code writtenMs} is the later of the record's Kafka timestamp and
   * its {@code received_ms}. {@link FlowRecordReader} checks with it too.
   */
  static void flow(
      int exporterLen,
      int srcLen,
      int dstLen,
      long startMs,
      long endMs,
      long writtenMs,
      int srcPort,
      int dstPort,
      int proto,
      long bytes,
      long packets)
      throws Refused {
    address("exporter", exporterLen);
    address("source address", srcLen);
    address("destination address", dstLen);
    times(startMs, endMs);
    if (endMs - startMs > MAX_FLOW_DURATION_MS) {
      throw new Refused(
          "implausible_duration",
          "flow lasts " + (endMs - startMs) / 1000 + " s, more than 7 days");
    }
    notAhead(endMs, writtenMs, "flow end");
    if (srcPort > 65535 || dstPort > 65535) {
      throw new Refused("bad_port", "ports " + srcPort + " -> " + dstPort + " exceed 65535");
    }
    if (proto > 255) {
      throw new Refused("unknown_protocol", "IP protocol " + proto + " is not in 0..255");
    }
    counts(bytes, packets);
  }

  /** probe.bins.v1: a named link's bin. */
  public static void bin(LinkBin b, long recordMs) throws Refused {
    linkId(b.getLinkId());
    if (b.getBinStartMs() <= 0) {
      throw new Refused("missing_times", "bin of " + b.getLinkId() + " has no start time");
    }
    notAhead(b.getBinStartMs(), recordMs, "bin start");
    if (b.getBytes() < 0 || b.getCheetahBytes() < 0 || b.getCheetahBytes() > b.getBytes()) {
      throw new Refused(
          "impossible_counts",
          "bin of "
              + b.getLinkId()
              + " at "
              + b.getBinStartMs()
              + " has "
              + Long.toUnsignedString(b.getCheetahBytes())
              + " cheetah bytes of "
              + Long.toUnsignedString(b.getBytes())
              + " bytes (need 0 <= cheetah bytes <= bytes < 2^63)");
    }
  }

  /** cheetahs.v1, from the cheetah job or a probe. */
  public static void cheetah(CheetahEvent e) throws Refused {
    if (e.getFlowId().isEmpty()) {
      throw new Refused("missing_flow_id", "cheetah event without a flow id");
    }
    switch (e.getType()) {
      case CHEETAH_EVENT_TYPE_START, CHEETAH_EVENT_TYPE_UPDATE, CHEETAH_EVENT_TYPE_END -> {}
      default ->
          throw new Refused(
              "unknown_enum",
              "cheetah event " + e.getFlowId() + " has type " + e.getTypeValue() + " (need 1..3)");
    }
    switch (e.getSource()) {
      case DETECTION_SOURCE_NETFLOW, DETECTION_SOURCE_PROBE -> {}
      default ->
          throw new Refused(
              "unknown_enum",
              "cheetah event "
                  + e.getFlowId()
                  + " has source "
                  + e.getSourceValue()
                  + " (need 1 netflow or 2 probe)");
    }
    address("source address", e.getSrcAddr().size());
    address("destination address", e.getDstAddr().size());
    if (e.getEndMs() != 0 && e.getEndMs() < e.getStartMs()) {
      throw new Refused(
          "inverted_times",
          "cheetah "
              + e.getFlowId()
              + " ends ("
              + e.getEndMs()
              + ") before it starts ("
              + e.getStartMs()
              + ")");
    }
    rate("rate_bps of cheetah " + e.getFlowId(), e.getRateBps());
  }

  /** snmp.counters.v1: one poll of a named link. */
  public static void snmp(SnmpCounters c, long recordMs) throws Refused {
    linkId(c.getLinkId());
    if (c.getPolledMs() <= 0) {
      throw new Refused("missing_times", "poll of " + c.getLinkId() + " has no time");
    }
    notAhead(c.getPolledMs(), recordMs, "poll time");
    if (c.getIfHighSpeedMbps() < 0 || c.getIfHighSpeedMbps() > MAX_SPEED_MBPS) {
      throw new Refused(
          "impossible_counts",
          "ifHighSpeed of "
              + c.getLinkId()
              + " is "
              + Long.toUnsignedString(c.getIfHighSpeedMbps())
              + " Mb/s (more than 10 Pb/s)");
    }
  }

  /** links.stats.v1, from the link-statistics job. */
  public static void linkStats(LinkStats s) throws Refused {
    linkId(s.getLinkId());
    times(s.getWindowStartMs(), s.getWindowEndMs());
    rate("mean background of " + s.getLinkId(), s.getMeanBgBps());
    rate("burstiness of " + s.getLinkId(), s.getBurstiness());
    rate("capacity of " + s.getLinkId(), s.getCapacityBps());
  }

  private static void linkId(String id) throws Refused {
    if (id.isEmpty()) {
      throw new Refused("missing_link_id", "no link id");
    }
  }

  private static void address(String what, int size) throws Refused {
    if (size != 4 && size != 16) {
      throw new Refused("bad_address", what + " has " + size + " bytes (need 4 or 16)");
    }
  }

  private static void times(long start, long end) throws Refused {
    if (start <= 0 || end <= 0) {
      throw new Refused(
          "missing_times",
          "start "
              + Long.toUnsignedString(start)
              + ", end "
              + Long.toUnsignedString(end)
              + " (need both, < 2^63)");
    }
    if (end < start) {
      throw new Refused("inverted_times", "ends (" + end + ") before it starts (" + start + ")");
    }
  }

  private static void notAhead(long ms, long recordMs, String what) throws Refused {
    if (recordMs > 0 && ms > recordMs + MAX_FUTURE_MS) {
      throw new Refused(
          "future_times",
          what + " " + ms + " is " + (ms - recordMs) / 1000 + " s after the record was written");
    }
  }

  private static void counts(long bytes, long packets) throws Refused {
    if (bytes <= 0 || packets <= 0 || bytes < packets) {
      throw new Refused(
          "impossible_counts",
          Long.toUnsignedString(bytes)
              + " bytes in "
              + Long.toUnsignedString(packets)
              + " packets (need 0 < packets <= bytes < 2^63)");
    }
  }

  private static void rate(String what, double v) throws Refused {
    if (!(v >= 0) || Double.isInfinite(v)) {
      throw new Refused("bad_rate", what + " is " + v + " (need finite, >= 0)");
    }
  }
}
