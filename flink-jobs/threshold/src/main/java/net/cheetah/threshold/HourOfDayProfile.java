package net.cheetah.threshold;

import java.util.Optional;
import java.util.TreeMap;

/**
 * The hour-of-day prediction of table mode: the tag expected for an hour is the mean of the tags
 * observed at the same hour on the previous {@code daysBack} days (today excluded).
 */
public final class HourOfDayProfile {
  private final int daysBack;
  // (epoch day * 24 + hour) -> observed tag; a later observation of the same hour replaces it.
  private final TreeMap<Long, BackgroundTag> observed = new TreeMap<>();

  public HourOfDayProfile(int daysBack) {
    if (daysBack < 1) {
      throw new IllegalArgumentException("prediction needs >= 1 earlier day, got " + daysBack);
    }
    this.daysBack = daysBack;
  }

  public void record(long epochDay, int hour, BackgroundTag tag) {
    observed.put(key(epochDay, hour), tag);
  }

  public Optional<BackgroundTag> predict(long epochDay, int hour) {
    double rate = 0;
    double burstiness = 0;
    int n = 0;
    for (long day = epochDay - daysBack; day < epochDay; day++) {
      BackgroundTag t = observed.get(key(day, hour));
      if (t != null) {
        rate += t.meanBgBps();
        burstiness += t.burstiness();
        n++;
      }
    }
    return n == 0 ? Optional.empty() : Optional.of(new BackgroundTag(rate / n, burstiness / n));
  }

  /** Forgets days that can no longer be used for a prediction at or after {@code epochDay}. */
  public void expireBefore(long epochDay) {
    observed.headMap(key(epochDay - daysBack, 0)).clear();
  }

  private static long key(long epochDay, int hour) {
    if (hour < 0 || hour > 23) {
      throw new IllegalArgumentException("hour of day must be 0..23, got " + hour);
    }
    return epochDay * 24 + hour;
  }
}
