package net.cheetah.threshold;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The loss tables built so far, and tag matching: a table is reused when its tag is within ε_r of
 * the observed mean background rate and within ε_b of the observed burstiness (and was built for
 * the configured RTT). Of several, the nearest wins (distance: the larger of |Δr|/ε_r and
 * |Δb|/ε_b); on a tie the burstier, then the busier tag wins, the conservative choice.
 */
public final class LossTableLibrary {
  private static final double TIE = 1e-9;
  private final List<LossTable> tables = new ArrayList<>();

  public void add(LossTable table) {
    tables.add(table);
  }

  public int size() {
    return tables.size();
  }

  public TableLookup lookup(BackgroundTag observed, TableParams p) {
    Optional<LossTable> best = Optional.empty();
    double bestDistance = Double.POSITIVE_INFINITY;
    for (LossTable t : tables) {
      if (t.rttSeconds() != p.rttSeconds()) {
        continue;
      }
      if (!t.tag().isWithin(observed, p.epsilonRateBps(), p.epsilonBurstiness())) {
        continue;
      }
      double dr = Math.abs(t.tag().meanBgBps() - observed.meanBgBps());
      double db = Math.abs(t.tag().burstiness() - observed.burstiness());
      double d = Math.max(ratio(dr, p.epsilonRateBps()), ratio(db, p.epsilonBurstiness()));
      // Distances within 1e-9 are ties: 0.55 − 0.5 and 0.5 − 0.45 differ in the last bits.
      boolean tie = Math.abs(d - bestDistance) <= TIE;
      if ((d < bestDistance && !tie) || (tie && moreConservative(t, best.orElseThrow()))) {
        best = Optional.of(t);
        bestDistance = d;
      }
    }
    String observedText =
        "r_bg " + Rates.mbps(observed.meanBgBps()) + ", b " + Rates.fraction(observed.burstiness());
    if (best.isEmpty()) {
      return new TableLookup.NeedsTable(
          observed,
          p.rttSeconds(),
          "no loss table for RTT "
              + Rates.fraction(p.rttSeconds() * 1e3)
              + " ms within ε_r "
              + Rates.mbps(p.epsilonRateBps())
              + " and ε_b "
              + Rates.fraction(p.epsilonBurstiness())
              + " of "
              + observedText
              + ": build one");
    }
    LossTable t = best.get();
    return new TableLookup.Found(
        t,
        // "tag", not "observed": the tag looked up may be an hour-of-day prediction.
        "tag "
            + observedText
            + " matches the table of r_bg "
            + Rates.mbps(t.tag().meanBgBps())
            + ", b "
            + Rates.fraction(t.tag().burstiness()));
  }

  private static double ratio(double delta, double epsilon) {
    return epsilon == 0 ? 0 : delta / epsilon;
  }

  private static boolean moreConservative(LossTable a, LossTable b) {
    if (a.tag().burstiness() != b.tag().burstiness()) {
      return a.tag().burstiness() > b.tag().burstiness();
    }
    return a.tag().meanBgBps() > b.tag().meanBgBps();
  }
}
