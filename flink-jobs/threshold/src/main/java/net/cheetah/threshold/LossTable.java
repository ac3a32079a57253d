package net.cheetah.threshold;

import java.util.Comparator;
import java.util.List;
import java.util.Objects;

/**
 * Background loss versus cheetah rate for one tag and one cheetah RTT, as the simulator measured
 * it. Rows are kept sorted by rate.
 */
public record LossTable(BackgroundTag tag, double rttSeconds, List<Row> rows) {
  /** Mean background loss rate when a cheetah of this rate shares the link. */
  public record Row(double cheetahRateBps, double lossRate) {
    public Row {
      if (!(cheetahRateBps >= 0) || !(lossRate >= 0 && lossRate <= 1)) {
        throw new IllegalArgumentException(
            "a table row needs rate >= 0 and loss in [0, 1], got "
                + cheetahRateBps
                + ", "
                + lossRate);
      }
    }
  }

  public LossTable {
    Objects.requireNonNull(tag, "tag");
    if (rows.isEmpty()) {
      throw new IllegalArgumentException("a loss table needs at least one row");
    }
    rows = rows.stream().sorted(Comparator.comparingDouble(Row::cheetahRateBps)).toList();
  }
}
