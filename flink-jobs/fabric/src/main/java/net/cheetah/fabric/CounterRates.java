package net.cheetah.fabric;

import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * A link's utilisation in bit/s from successive counter samples of the port it leaves (sFlow's
 * ifOutOctets pushed each polling interval, or an SNMP poll): the octets counted between two
 * samples, times 8, over the time between them (docs/FABRIC.md, "sFlow"). Keeps the last sample of
 * each link; not thread-safe (one per keyed stream).
 *
 * <p>No rate is given for a link's first sample, after a sample marked {@code reset} (a new
 * baseline: agent restart, counter discontinuity), or when the time does not advance. A counter
 * lower than the last one has either wrapped or been reset: with a counter of {@code counterBits} <
 * 64 bits it is taken as one wrap when the rate that implies is at most the port's speed, else as a
 * reset; a 64-bit counter does not wrap in practice (2^64 octets is 47 years at 100 Gb/s), so it is
 * a reset.
 */
public final class CounterRates {
  /** Why a sample gave no rate (or empty when it gave one). */
  public record Rate(Optional<Double> bps, String reason) {}

  private record Last(long atMs, long octets) {}

  private final Map<String, Last> last = new HashMap<>();

  /**
   * Takes a sample of {@code linkId} at {@code atMs} with the port's {@code octets} counter (an
   * unsigned value of {@code counterBits} bits, 32 or 64) and its {@code speedBps}.
   */
  public Rate update(
      String linkId, long atMs, long octets, int counterBits, double speedBps, boolean reset) {
    if (counterBits != 32 && counterBits != 64) {
      throw new IllegalArgumentException("counterBits " + counterBits + ": 32 or 64");
    }
    if (counterBits == 32 && (octets < 0 || octets > 0xffffffffL)) {
      return new Rate(Optional.empty(), "octets " + octets + " do not fit a 32-bit counter");
    }
    Last previous = last.get(linkId);
    if (previous != null && atMs <= previous.atMs()) {
      // Out of order or repeated: keep the later baseline, no rate.
      return new Rate(
          Optional.empty(), "time did not advance (" + atMs + " <= " + previous.atMs() + ")");
    }
    last.put(linkId, new Last(atMs, octets));
    if (previous == null) {
      return new Rate(Optional.empty(), "first sample of the link");
    }
    if (reset) {
      return new Rate(Optional.empty(), "counters reset");
    }
    double seconds = (atMs - previous.atMs()) / 1000.0;
    if (Long.compareUnsigned(octets, previous.octets()) >= 0) {
      return new Rate(Optional.of((octets - previous.octets()) * 8 / seconds), "");
    }
    if (counterBits == 64) {
      return new Rate(Optional.empty(), "counter went down: a reset");
    }
    long wrapped = (1L << 32) - previous.octets() + octets;
    double bps = wrapped * 8 / seconds;
    if (bps > speedBps) {
      return new Rate(
          Optional.empty(), "counter went down and a wrap would mean " + bps + " bit/s: a reset");
    }
    return new Rate(Optional.of(bps), "");
  }
}
