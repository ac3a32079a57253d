package net.cheetah.threshold;

import java.util.List;
import net.cheetah.core.threshold.ThresholdMode;

/**
 * Table mode of the rate threshold: the largest cheetah rate whose background loss stays within
 * l_acpt. Rates are climbed from the lowest: the first rate over l_acpt stops the climb, so a lucky
 * (noisy) row above a failing one is never chosen; rows with the same rate count with their worst
 * loss.
 */
public final class TableThreshold {
  private TableThreshold() {}

  public static ThresholdDecision choose(LossTable table, TableParams p) {
    List<LossTable.Row> rows = table.rows();
    String tag =
        "tag (r_bg "
            + Rates.mbps(table.tag().meanBgBps())
            + ", b "
            + Rates.fraction(table.tag().burstiness())
            + ", RTT "
            + Rates.fraction(table.rttSeconds() * 1e3)
            + " ms)";
    double best = -1;
    double bestLoss = 0;
    int i = 0;
    while (i < rows.size()) {
      double rate = rows.get(i).cheetahRateBps();
      double worst = 0;
      while (i < rows.size() && rows.get(i).cheetahRateBps() == rate) {
        worst = Math.max(worst, rows.get(i).lossRate());
        i++;
      }
      if (worst > p.lossAcceptable()) {
        String why =
            best < 0
                ? "no rate in the table keeps background loss within l_acpt "
                    + Rates.fraction(p.lossAcceptable())
                    + " (the lowest, "
                    + Rates.mbps(rate)
                    + ", loses "
                    + Rates.fraction(worst)
                    + ") for "
                    + tag
                    + ": R falls to the floor "
                    + Rates.mbps(p.floorBps())
                : "largest rate within l_acpt "
                    + Rates.fraction(p.lossAcceptable())
                    + " is "
                    + Rates.mbps(best)
                    + " (loss "
                    + Rates.fraction(bestLoss)
                    + "); "
                    + Rates.mbps(rate)
                    + " loses "
                    + Rates.fraction(worst)
                    + ", for "
                    + tag;
        double r = best < 0 ? p.floorBps() : best;
        return new ThresholdDecision(
            r, ThresholdMode.TABLE, 0, p.lossAcceptable(), best < 0 ? worst : bestLoss, why);
      }
      best = rate;
      bestLoss = worst;
    }
    return new ThresholdDecision(
        best,
        ThresholdMode.TABLE,
        0,
        p.lossAcceptable(),
        bestLoss,
        "every rate in the table keeps loss within l_acpt "
            + Rates.fraction(p.lossAcceptable())
            + ": R is the table's largest, "
            + Rates.mbps(best)
            + " (loss "
            + Rates.fraction(bestLoss)
            + "), for "
            + tag);
  }
}
