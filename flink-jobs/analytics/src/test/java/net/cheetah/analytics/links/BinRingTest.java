package net.cheetah.analytics.links;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class BinRingTest {
  private static final long T1 = 100;

  @Test
  void burstinessIsTheCoefficientOfVariationOfBackgroundBytesPerBin() {
    BinRing ring = new BinRing(T1, 10);
    // Background 100, 300, 100, 300 bytes: mean 200, population sd 100 -> CoV 0.5.
    long[] bytes = {100, 300, 100, 300};
    for (int i = 0; i < bytes.length; i++) {
      assertThat(ring.add(1_000 + i * T1, bytes[i], 0)).isTrue();
    }
    LinkWindow w = ring.window("l", 1_000, 1_400, List.of(), 1e6, false);
    assertThat(w.bins()).isEqualTo(4);
    assertThat(w.burstiness()).isCloseTo(0.5, within(1e-12));
    // 800 bytes in 0.4 s = 16,000 bit/s, on a 1 Mb/s link = 1.6 %.
    assertThat(w.meanBgBps()).isCloseTo(16_000, within(1e-9));
    assertThat(w.utilization()).isCloseTo(0.016, within(1e-12));
  }

  @Test
  void probeCheetahBytesAndNetflowSpansLeaveTheBackgroundButNotTwice() {
    BinRing ring = new BinRing(T1, 10);
    ring.add(0, 1_000, 600); // the probe marked 600 cheetah bytes
    ring.add(100, 1_000, 0);
    // A NetFlow cheetah at 8,000 bit/s = 1,000 B/s: 100 B per bin, over both bins.
    List<CheetahSpan> spans = List.of(new CheetahSpan("f", 0, 200, 8_000));
    LinkWindow w = ring.window("l", 0, 200, spans, 1e6, false);
    // Bin 0: 1000 - max(600, 100) = 400. Bin 1: 1000 - max(0, 100) = 900. Mean 650, sd 250.
    assertThat(w.meanBgBps()).isCloseTo(1_300 * 8 / 0.2, within(1e-9));
    assertThat(w.burstiness()).isCloseTo(250.0 / 650.0, within(1e-12));
    // Utilization counts every byte: 2000 B in 0.2 s.
    assertThat(w.utilization()).isCloseTo(2_000 * 8 / 0.2 / 1e6, within(1e-12));
  }

  @Test
  void binsOfOneStartAddUpAndBackgroundNeverGoesNegative() {
    BinRing ring = new BinRing(T1, 4);
    ring.add(0, 500, 0);
    ring.add(0, 500, 2_000); // cheetah bytes above the bin's bytes are capped at its bytes
    LinkWindow w = ring.window("l", 0, 100, List.of(), 1e6, true);
    assertThat(w.bins()).isEqualTo(1);
    assertThat(w.meanBgBps()).isCloseTo(500 * 8 / 0.1, within(1e-9));
  }

  @Test
  void misalignedAndTooOldBinsAreRefusedAndSlotsAreReused() {
    BinRing ring = new BinRing(T1, 4);
    assertThat(ring.add(50, 1, 0)).isFalse();
    assertThat(ring.add(1_000, 7, 0)).isTrue();
    assertThat(ring.add(600, 1, 0)).isFalse(); // 4 slots: 700..1000 are kept, 600 is too old
    assertThat(ring.add(700, 1, 0)).isTrue();
    assertThat(ring.add(1_100, 9, 0)).isTrue(); // takes 700's slot
    LinkWindow w = ring.window("l", 700, 1_200, List.of(), 1e6, false);
    assertThat(w.bins()).isEqualTo(2);
    assertThat(w.meanBgBps()).isCloseTo(16 * 8 / 0.2, within(1e-9));
  }

  @Test
  void anEmptyOrSilentWindowHasZeroRateAndBurstiness() {
    BinRing ring = new BinRing(T1, 4);
    ring.add(0, 0, 0);
    LinkWindow w = ring.window("l", 0, 400, List.of(), 1e9, false);
    assertThat(w.bins()).isEqualTo(1);
    assertThat(w.burstiness()).isZero();
    assertThat(ring.window("l", 1_000, 1_400, List.of(), 1e9, false).bins()).isZero();
  }

  @Test
  void largeByteCountsKeepTheirPrecision() {
    BinRing ring = new BinRing(T1, 1000);
    // 10 Gb/s link: ~125 MB per bin, +-1 byte alternating: CoV = 1 / 125e6.
    for (int i = 0; i < 1000; i++) {
      ring.add(i * T1, 125_000_000L + (i % 2 == 0 ? 1 : -1), 0);
    }
    LinkWindow w = ring.window("l", 0, 1000 * T1, List.of(), 1e10, false);
    assertThat(w.burstiness()).isCloseTo(1.0 / 125_000_000L, within(1e-15));
  }

  /**
   * The link-statistics job on the hand-computed cases shared with the simulator and the warehouse
   * (schemas/testdata/burstiness_cases.json): each bin's NetFlow cheetah bytes arrive as a span
   * over exactly that bin at the rate that puts them there.
   */
  @Test
  void theSharedHandComputedCases() throws Exception {
    Path file =
        Path.of(System.getProperty("cheetah.root", "../.."))
            .resolve("schemas/testdata/burstiness_cases.json");
    JsonNode cases = new ObjectMapper().readTree(file.toFile()).get("cases");
    assertThat(cases.size()).as(file.toString()).isGreaterThan(4);
    for (JsonNode c : cases) {
      JsonNode bins = c.get("bins");
      BinRing ring = new BinRing(T1, bins.size());
      List<CheetahSpan> spans = new ArrayList<>();
      for (int i = 0; i < bins.size(); i++) {
        JsonNode b = bins.get(i);
        assertThat(ring.add(i * T1, b.get("bytes").asLong(), b.get("cheetah_bytes").asLong()))
            .isTrue();
        double netflow = b.get("netflow_cheetah_bytes").asDouble();
        if (netflow > 0) {
          spans.add(new CheetahSpan("f" + i, i * T1, (i + 1) * T1, netflow * 8 / (T1 / 1000.0)));
        }
      }
      LinkWindow w = ring.window("l", 0, bins.size() * T1, spans, 1e9, false);
      double expected = c.get("burstiness").asDouble();
      assertThat(w.bins()).isEqualTo(bins.size());
      assertThat(w.burstiness())
          .as(c.get("name").asText())
          .isCloseTo(expected, within(1e-12 * Math.max(expected, 1e-300)));
      assertThat(w.meanBgBps())
          .as(c.get("name").asText() + ": mean background rate")
          .isCloseTo(c.get("mean").asDouble() * 8 / (T1 / 1000.0), within(1e-6));
    }
  }

  @Test
  void hourOfDayIsTheUtcHourOfTheWindowStart() {
    assertThat(
            new LinkWindow("l", 13 * 3_600_000L + 86_400_000L, 0, 0, 0, 0, 0, 0, false).hourOfDay())
        .isEqualTo(13);
  }
}
