package net.cheetah.jobs.thresholds;

import java.util.ArrayList;
import java.util.List;
import net.cheetah.threshold.BackgroundTag;
import net.cheetah.threshold.LossTable;

/**
 * The outcome of a {@link TableRequest}: the simulated loss table (rates and mean background losses
 * as parallel arrays, so Flink keeps it in state without Kryo), or, when {@code error} is not
 * empty, why no table could be built. {@code buildMs} is the wall time the build took.
 */
public record BuiltTable(
    String linkId,
    double tagBgBps,
    double tagBurstiness,
    double capacityBps,
    double rttSeconds,
    double[] ratesBps,
    double[] losses,
    String error,
    long buildMs) {

  public static BuiltTable of(TableRequest r, LossTable t, long buildMs) {
    double[] rates = t.rows().stream().mapToDouble(LossTable.Row::cheetahRateBps).toArray();
    double[] losses = t.rows().stream().mapToDouble(LossTable.Row::lossRate).toArray();
    return new BuiltTable(
        r.linkId(),
        t.tag().meanBgBps(),
        t.tag().burstiness(),
        r.capacityBps(),
        t.rttSeconds(),
        rates,
        losses,
        "",
        buildMs);
  }

  public static BuiltTable failed(TableRequest r, double rttSeconds, String why, long buildMs) {
    return new BuiltTable(
        r.linkId(),
        r.tagBgBps(),
        r.tagBurstiness(),
        r.capacityBps(),
        rttSeconds,
        new double[0],
        new double[0],
        why,
        buildMs);
  }

  public boolean failed() {
    return !error.isEmpty();
  }

  public BackgroundTag tag() {
    return new BackgroundTag(tagBgBps, tagBurstiness);
  }

  /** The table for the pure threshold logic; only for a table that did not fail. */
  public LossTable table() {
    if (failed()) {
      throw new IllegalStateException("no table was built for " + tag() + ": " + error);
    }
    List<LossTable.Row> rows = new ArrayList<>(ratesBps.length);
    for (int i = 0; i < ratesBps.length; i++) {
      rows.add(new LossTable.Row(ratesBps[i], losses[i]));
    }
    return new LossTable(tag(), rttSeconds, rows);
  }
}
