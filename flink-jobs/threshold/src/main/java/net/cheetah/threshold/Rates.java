package net.cheetah.threshold;

import java.util.Locale;

/** Human-readable numbers for reason strings. */
final class Rates {
  private Rates() {}

  static String mbps(double bps) {
    return String.format(Locale.ROOT, "%.1f Mb/s", bps / 1e6);
  }

  static String fraction(double v) {
    return String.format(Locale.ROOT, "%.3g", v);
  }
}
