package net.cheetah.runtime;

import java.time.Duration;

/** Human-readable durations for messages and logs. */
final class Durations {
  private Durations() {}

  static String describe(Duration duration) {
    long millis = duration.toMillis();
    if (millis < 1000) {
      return millis + " ms";
    }
    return String.format(java.util.Locale.ROOT, "%.1f s", millis / 1000.0);
  }
}
