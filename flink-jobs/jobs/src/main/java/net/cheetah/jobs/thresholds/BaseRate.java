package net.cheetah.jobs.thresholds;

import java.util.Locale;
import java.util.Optional;
import net.cheetah.config.CheetahConfig;
import net.cheetah.core.threshold.ThresholdMode;
import net.cheetah.threshold.BackgroundTag;
import net.cheetah.threshold.FormulaParams;
import net.cheetah.threshold.FormulaThreshold;
import net.cheetah.threshold.LossTableLibrary;
import net.cheetah.threshold.TableLookup;
import net.cheetah.threshold.TableParams;
import net.cheetah.threshold.TableThreshold;
import net.cheetah.threshold.ThresholdDecision;

/**
 * The R a statistics window gives before SNMP feedback corrects it: the formula, or in table mode
 * the largest rate within l_acpt of the loss table whose tag matches (TableThreshold), and the
 * formula while no table built for this link's capacity matches. The reason says which, and why.
 */
final class BaseRate {
  private BaseRate() {}

  /** The base decision, and whether it came from a loss table. */
  record Base(ThresholdDecision decision, boolean fromTable) {}

  /** C: the statistics' own (SNMP ifHighSpeed), else the configured default. */
  static double capacity(ThresholdInput in, CheetahConfig.Thresholds cfg) {
    return in.capacityBps() > 0 ? in.capacityBps() : cfg.capacityBps();
  }

  static TableParams tableParams(CheetahConfig.Thresholds cfg) {
    CheetahConfig.Table t = cfg.table();
    return new TableParams(
        cfg.lossAcceptable(),
        t.epsilonRateBps(),
        t.epsilonBurstiness(),
        t.rttMs() / 1000,
        cfg.floorBps());
  }

  static Base of(ThresholdInput in, Iterable<BuiltTable> tables, CheetahConfig.Thresholds cfg) {
    double capacity = capacity(in, cfg);
    ThresholdDecision formula =
        FormulaThreshold.decide(
            in.meanBgBps(),
            in.burstiness(),
            new FormulaParams(capacity, cfg.burstinessWeight(), cfg.alphaMin()));
    if (!cfg.tableBase()) {
      return new Base(formula, false);
    }
    String prefix = in.tagDays() > 0 ? predictionNote(in) : "";
    BackgroundTag tag = in.tag();
    if (!(tag.meanBgBps() > 0)) {
      return fallback(formula, prefix + "an idle background (r_bg 0) needs no loss table");
    }
    TableParams p = tableParams(cfg);
    LossTableLibrary library = new LossTableLibrary();
    Optional<BuiltTable> failedNear = Optional.empty();
    for (BuiltTable b : tables) {
      if (b.capacityBps() != capacity) {
        continue; // simulated for another port: not this link's table any more
      }
      if (!b.failed()) {
        library.add(b.table());
      } else if (b.tag().isWithin(tag, p.epsilonRateBps(), p.epsilonBurstiness())) {
        failedNear = Optional.of(b);
      }
    }
    TableLookup lookup = library.lookup(tag, p);
    if (lookup instanceof TableLookup.Found f) {
      ThresholdDecision d = TableThreshold.choose(f.table(), p);
      return new Base(
          new ThresholdDecision(
              d.rateBps(),
              ThresholdMode.TABLE,
              0,
              p.lossAcceptable(),
              d.measuredLoss(),
              prefix + f.reason() + "; " + d.reason()),
          true);
    }
    String missing =
        failedNear
            .map(
                b ->
                    "building the loss table for r_bg "
                        + mbps(b.tagBgBps())
                        + ", b "
                        + num(b.tagBurstiness())
                        + " failed ("
                        + b.error()
                        + ")")
            .orElse(((TableLookup.NeedsTable) lookup).reason() + " (requested)");
    return fallback(formula, prefix + missing);
  }

  private static Base fallback(ThresholdDecision formula, String why) {
    return new Base(
        new ThresholdDecision(
            formula.rateBps(),
            ThresholdMode.FORMULA,
            formula.alphaBg(),
            0,
            0,
            why + "; until a table matches, the formula: " + formula.reason()),
        false);
  }

  private static String predictionNote(ThresholdInput in) {
    long hourOfDay = Math.floorMod(Math.floorDiv(in.atMs(), 3_600_000L), 24L);
    return String.format(
        Locale.ROOT,
        "hour-of-day prediction for %02d:00 UTC from %d earlier day%s: r_bg %s, b %s"
            + " (this window: r_bg %s, b %s); ",
        hourOfDay,
        in.tagDays(),
        in.tagDays() == 1 ? "" : "s",
        mbps(in.tagBgBps()),
        num(in.tagBurstiness()),
        mbps(in.meanBgBps()),
        num(in.burstiness()));
  }

  static String mbps(double bps) {
    return String.format(Locale.ROOT, "%.1f Mb/s", bps / 1e6);
  }

  private static String num(double v) {
    return String.format(Locale.ROOT, "%.3g", v);
  }
}
