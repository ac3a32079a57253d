package net.cheetah.jobs.throughput;

/**
 * What the throughput job keeps of one series (a host pair's throughputs from one source): the
 * latest observations (start times and bit/s, oldest first, at most {@link SeriesTracker#kept}),
 * the EWMA over every observation so far (NaN before the first), and the latest diurnal fit of
 * weekdays and of weekends: {@code fitHour[d]} the event-time hour it was made in (-1: never) and
 * {@code fit[4d .. 4d+3]} its a, b, c and number of points (d = 0 weekdays, 1 weekends). Plain
 * arrays, so Flink serialises it without Kryo.
 */
public record SeriesState(long[] ms, double[] values, double ewma, long[] fitHour, double[] fit) {
  public static SeriesState empty() {
    double nan = Double.NaN;
    return new SeriesState(
        new long[0],
        new double[0],
        nan,
        new long[] {-1, -1},
        new double[] {nan, nan, nan, 0, nan, nan, nan, 0});
  }

  public int size() {
    return values.length;
  }
}
