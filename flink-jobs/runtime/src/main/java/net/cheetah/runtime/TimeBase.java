package net.cheetah.runtime;

import java.time.LocalDate;
import java.time.ZoneOffset;

/** Where generated workloads start their virtual time when their rows go to the warehouse. */
public final class TimeBase {
  private TimeBase() {}

  /**
   * 23:00 UTC the day before yesterday: a workload's flows cross midnight (as with the generator's
   * fixed default day), a span of up to a day ends in the past whatever the hour, and its rows are
   * recent, inside every warehouse table's TTL (flows keep 30 days) whatever the date.
   */
  public static long recent() {
    return LocalDate.now(ZoneOffset.UTC).atStartOfDay(ZoneOffset.UTC).toInstant().toEpochMilli()
        - 25 * 3_600_000L;
  }
}
