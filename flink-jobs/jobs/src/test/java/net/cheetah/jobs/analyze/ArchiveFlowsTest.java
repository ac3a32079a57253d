package net.cheetah.jobs.analyze;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import net.cheetah.core.flow.Address;
import net.cheetah.core.flow.Flow;
import org.junit.jupiter.api.Test;

/**
 * `cheetah analyze` takes a plain nfcapd record straight into a row; the reference is the path
 * through the goflow2 message, the normaliser and the flows.v1 record it replaced. Both must give
 * the same rows in the same partitions and the same refusals, for every shape of record: accepted
 * IPv4, IPv6 and IPv4-mapped addresses, and each of the normaliser's refusals.
 */
class ArchiveFlowsTest {
  private static final int PARTITIONS = 3;

  @Test
  void theDirectPathEqualsTheMessagePathOnEveryShapeOfRecord() {
    SplittableRandom rnd = new SplittableRandom(20261126);
    ArchiveFlows direct = new ArchiveFlows(PARTITIONS, 16);
    ArchiveFlows viaMessage = new ArchiveFlows(PARTITIONS, 16);
    int n = 200_000;
    for (int i = 0; i < n; i++) {
      NfcapdRecord r = random(rnd);
      direct.record(r);
      viaMessage.recordViaMessage(r);
    }
    assertEquals(n, direct.records());
    assertEquals(viaMessage.records(), direct.records());
    List<String> want = viaMessage.rejected();
    List<String> got = direct.rejected();
    for (int i = 0; i < Math.min(want.size(), got.size()); i++) {
      assertEquals(want.get(i), got.get(i), "refusal " + i);
    }
    assertEquals(want.size(), got.size(), "refusals");
    int accepted = 0;
    for (int p = 0; p < PARTITIONS; p++) {
      assertEquals(viaMessage.size(p), direct.size(p), "partition " + p);
      for (int i = 0; i < direct.size(p); i++) {
        assertEquals(viaMessage.flow(p, i), direct.flow(p, i), "partition " + p + " row " + i);
        assertEquals(viaMessage.keyHash(p, i), direct.keyHash(p, i));
      }
      accepted += direct.size(p);
    }
    // The generator makes both kinds often, so the comparison covers both.
    assertTrue(accepted > n / 4, accepted + " accepted");
    assertTrue(direct.rejected().size() > n / 10, direct.rejected().size() + " refused");
  }

  @Test
  void aPlainIpv4RecordBecomesTheRowWorkedByHand() {
    NfcapdRecord r = new NfcapdRecord();
    r.clear();
    r.msecFirst = 1_795_321_405_123L;
    r.msecLast = 1_795_321_465_456L;
    r.srcLo = 0xC0000201L; // 192.0.2.1
    r.dstLo = 0xC6336402L; // 198.51.100.2
    r.routerLo = 0x0A000001L; // 10.0.0.1
    r.srcPort = 40_000;
    r.dstPort = 443;
    r.proto = 6;
    r.inPackets = 1_000;
    r.inBytes = 1_400_000;
    r.srcAs = 64_500;
    r.dstAs = 64_501;
    ArchiveFlows a = new ArchiveFlows(1, 16);
    a.record(r);
    assertEquals(List.of(), a.rejected());
    Flow f = a.flow(0, 0);
    assertEquals(Address.parse("10.0.0.1"), f.key().exporter());
    assertEquals(Address.parse("192.0.2.1"), f.key().src());
    assertEquals(Address.parse("198.51.100.2"), f.key().dst());
    assertEquals(40_000, f.key().srcPort());
    assertEquals(443, f.key().dstPort());
    assertEquals(6, f.key().proto());
    assertEquals(1_795_321_405_123L, f.startMs());
    assertEquals(1_795_321_465_456L, f.endMs());
    assertEquals(1_400_000, f.bytes());
    assertEquals(1_000, f.packets());
    assertEquals(64_500, f.srcAs());
    assertEquals(64_501, f.dstAs());
  }

  @Test
  void aRecordWithTooFewBytesPerPacketIsRefusedWithTheNormalisersReason() {
    NfcapdRecord r = new NfcapdRecord();
    r.clear();
    r.msecFirst = 1_000;
    r.msecLast = 2_000;
    r.srcLo = 1;
    r.dstLo = 2;
    r.routerLo = 3;
    r.proto = 17;
    r.inPackets = 10;
    r.inBytes = 100; // 10 bytes per packet: below an IPv4 header
    ArchiveFlows a = new ArchiveFlows(1, 16);
    a.record(r);
    assertEquals(0, a.size(0));
    assertEquals(1, a.rejected().size());
    assertTrue(
        a.rejected().get(0).startsWith("impossible_counts: 100 bytes in 10 packets"),
        a.rejected().get(0));
  }

  /** A record of a random shape: mostly plausible flows, often one field off. */
  private static NfcapdRecord random(SplittableRandom rnd) {
    NfcapdRecord r = new NfcapdRecord();
    r.clear();
    long base = 1_700_000_000_000L + rnd.nextLong(100_000_000_000L);
    r.msecFirst = base;
    r.msecLast = base + rnd.nextLong(120_000);
    r.ipv6 = rnd.nextInt(3) == 0;
    setAddress(r, rnd, 0);
    setAddress(r, rnd, 1);
    r.routerIpv6 = rnd.nextInt(4) == 0;
    r.routerHi = r.routerIpv6 ? rnd.nextLong() : 0;
    r.routerLo = r.routerIpv6 ? rnd.nextLong() : rnd.nextLong(1L << 32);
    r.srcPort = rnd.nextInt(65_536);
    r.dstPort = rnd.nextInt(65_536);
    r.proto = new int[] {6, 17, 6, 17, 47, 1, 58, 0, 255}[rnd.nextInt(9)];
    r.tcpFlags = rnd.nextInt(256);
    r.srcTos = rnd.nextInt(256);
    r.inPackets = 1 + rnd.nextLong(100_000);
    r.inBytes = r.inPackets * (40 + rnd.nextLong(1_461));
    r.srcAs = rnd.nextLong(1L << 32);
    r.dstAs = rnd.nextLong(1L << 32);
    r.input = rnd.nextLong(1L << 32);
    r.output = rnd.nextLong(1L << 32);
    switch (rnd.nextInt(14)) {
      case 0 -> r.msecFirst = 0; // missing time
      case 1 -> r.msecLast = r.msecFirst - 1 - rnd.nextLong(1000); // inverted (through the text)
      case 2 -> r.msecLast = r.msecFirst + 8L * 24 * 3600 * 1000; // longer than 7 days
      case 3 -> r.inPackets = 0;
      case 4 -> r.inBytes = 0;
      case 5 -> r.inBytes = r.inPackets * 19; // below any IP header
      case 6 -> r.inBytes = r.inPackets * 70_000; // above the largest packet
      case 7 -> r.msecFirst = r.msecLast = 10_000_000_000_000L; // ns overflow 64 bits
      case 8 -> r.inBytes = -1; // unsigned beyond 2^63 (through the text)
      case 9 -> { // IPv4-mapped source, plain IPv6 destination: address lengths differ
        r.ipv6 = true;
        r.srcHi = 0;
        r.srcLo = 0xFFFF_0000_0000L | rnd.nextLong(1L << 32);
      }
      default -> {}
    }
    return r;
  }

  /** Address {@code which} (0 source, 1 destination) of the record's family, sometimes mapped. */
  private static void setAddress(NfcapdRecord r, SplittableRandom rnd, int which) {
    long hi;
    long lo;
    if (!r.ipv6) {
      hi = 0;
      lo = rnd.nextLong(1L << 32);
    } else if (rnd.nextInt(5) == 0) {
      hi = 0;
      lo = 0xFFFF_0000_0000L | rnd.nextLong(1L << 32); // ::ffff:a.b.c.d, read as IPv4
    } else {
      hi = rnd.nextLong();
      lo = rnd.nextLong();
    }
    if (which == 0) {
      r.srcHi = hi;
      r.srcLo = lo;
    } else {
      r.dstHi = hi;
      r.dstLo = lo;
    }
  }

  @Test
  void everyRefusalReasonOfTheGeneratorIsExercised() {
    SplittableRandom rnd = new SplittableRandom(7);
    ArchiveFlows a = new ArchiveFlows(1, 16);
    for (int i = 0; i < 20_000; i++) {
      a.record(random(rnd));
    }
    List<String> reasons = new ArrayList<>();
    for (String line : a.rejected()) {
      String reason = line.substring(0, line.indexOf(':'));
      if (!reasons.contains(reason)) {
        reasons.add(reason);
      }
    }
    for (String expected :
        List.of(
            "missing_times",
            "unreadable_line", // inverted times and counts beyond 2^63 go through the text
            "implausible_duration",
            "impossible_counts",
            "bad_address")) {
      assertTrue(reasons.contains(expected), expected + " not among " + reasons);
    }
  }
}
