package net.cheetah.analytics.throughput;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import net.cheetah.analytics.throughput.Instance.Formula;

/**
 * Active against passive throughput (docs/ARCHITECTURE.md, "Transfer throughput"): each logged
 * transfer matched to its application instance, err = (passive - active) / passive and the
 * correlation R per host pair, tool and formula, and the formula that agrees best with each tool.
 */
public final class ActivePassive {
  private ActivePassive() {}

  /** A transfer and the instance it was matched to. */
  public record Match(Transfer transfer, Instance instance) {
    /** (passive - active) / passive by formula {@code f}; NaN when either is undefined or 0. */
    public double err(Formula f) {
      double passive = instance.bps(f);
      double active = transfer.activeBps();
      return passive > 0 ? (passive - active) / passive : Double.NaN;
    }
  }

  /**
   * Each transfer matched to the instance of its host pair that overlaps it longest in time and has
   * its stream count (a transfer logging 0 streams matches any count); an instance is matched at
   * most once. Transfers are taken in start order; those without a match are left out.
   */
  public static List<Match> match(List<Transfer> transfers, List<Instance> instances) {
    Map<HostPair, List<Instance>> byPair = new TreeMap<>();
    for (Instance i : instances) {
      byPair.computeIfAbsent(i.pair(), p -> new ArrayList<>()).add(i);
    }
    List<Transfer> ordered = new ArrayList<>(transfers);
    ordered.sort(Comparator.comparingLong(Transfer::startMs));
    // By identity: two instances may be equal values (same pair, times and streams).
    Set<Instance> used = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
    List<Match> out = new ArrayList<>();
    for (Transfer t : ordered) {
      Instance best = null;
      long bestOverlap = -1;
      for (Instance i : byPair.getOrDefault(t.pair(), List.of())) {
        if (used.contains(i) || (t.streams() > 0 && i.streamCount() != t.streams())) {
          continue;
        }
        long overlap = Math.min(t.endMs(), i.endMs()) - Math.max(t.startMs(), i.startMs());
        if (overlap >= 0 && overlap > bestOverlap) {
          best = i;
          bestOverlap = overlap;
        }
      }
      if (best != null) {
        used.add(best);
        out.add(new Match(t, best));
      }
    }
    return out;
  }

  /** The agreement of one tool on one host pair by one formula, over {@code n} matches. */
  public record Agreement(
      HostPair pair,
      String tool,
      Formula formula,
      int n,
      double errMedian,
      double errMeanAbs,
      double r,
      boolean bestForTool) {}

  /**
   * Per host pair, tool and formula: the median err, the mean |err| and R (Pearson, passive against
   * active over the matches in time). {@code bestForTool} marks, for each tool, the formula whose
   * |err| is smallest on average over all of that tool's matches.
   */
  public static List<Agreement> compare(List<Match> matches) {
    record Group(HostPair pair, String tool) {}
    Map<Group, List<Match>> groups =
        new TreeMap<>(
            Comparator.comparing(Group::pair).thenComparing(Group::tool, String::compareTo));
    Map<String, List<Match>> byTool = new TreeMap<>();
    for (Match m : matches) {
      groups
          .computeIfAbsent(
              new Group(m.transfer().pair(), m.transfer().tool()), g -> new ArrayList<>())
          .add(m);
      byTool.computeIfAbsent(m.transfer().tool(), t -> new ArrayList<>()).add(m);
    }
    Map<String, Formula> best = new TreeMap<>();
    byTool.forEach((tool, list) -> bestFormula(list).ifPresent(f -> best.put(tool, f)));
    List<Agreement> out = new ArrayList<>();
    groups.forEach(
        (g, list) -> {
          for (Formula f : Formula.values()) {
            List<Double> errs = new ArrayList<>();
            List<double[]> pairs = new ArrayList<>();
            for (Match m : list) {
              double e = m.err(f);
              if (Double.isFinite(e)) {
                errs.add(e);
                pairs.add(new double[] {m.instance().bps(f), m.transfer().activeBps()});
              }
            }
            double[] e = errs.stream().mapToDouble(Double::doubleValue).toArray();
            double[] abs = errs.stream().mapToDouble(Math::abs).toArray();
            double[] passive = pairs.stream().mapToDouble(p -> p[0]).toArray();
            double[] active = pairs.stream().mapToDouble(p -> p[1]).toArray();
            out.add(
                new Agreement(
                    g.pair(),
                    g.tool(),
                    f,
                    e.length,
                    Stats.median(e),
                    Stats.mean(abs),
                    Stats.pearson(passive, active),
                    best.get(g.tool()) == f));
          }
        });
    return out;
  }

  /** The formula with the smallest mean |err| over {@code matches} (the lower number on a tie). */
  static Optional<Formula> bestFormula(List<Match> matches) {
    Map<Formula, Double> meanAbs = new EnumMap<>(Formula.class);
    for (Formula f : Formula.values()) {
      double[] abs =
          matches.stream().mapToDouble(m -> Math.abs(m.err(f))).filter(Double::isFinite).toArray();
      if (abs.length > 0) {
        meanAbs.put(f, Stats.mean(abs));
      }
    }
    return meanAbs.entrySet().stream()
        .min(
            Map.Entry.<Formula, Double>comparingByValue().thenComparing(Map.Entry.comparingByKey()))
        .map(Map.Entry::getKey);
  }
}
