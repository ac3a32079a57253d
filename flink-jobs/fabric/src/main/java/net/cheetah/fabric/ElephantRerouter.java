package net.cheetah.fabric;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import net.cheetah.config.CheetahConfig;
import net.cheetah.core.fabric.ReroutePolicy;

/**
 * The EFM rule (docs/FABRIC.md, "The rule"): on each congested switch-to-switch link, the first of
 * its elephants (by {@code fabric.policy}) that has an equal-cost path with room for it is moved
 * there, with hysteresis. Pure: one call is one round, over a {@link LinkState}, with the {@link
 * MoveHistory} carried between rounds.
 */
public final class ElephantRerouter {
  /** Rounding slack (bit/s) in "at or below the threshold": sums of rates are not exact. */
  private static final double SLACK_BPS = 1e-3;

  private final Fabric fabric;
  private final CheetahConfig.Fabric settings;

  public ElephantRerouter(Fabric fabric, CheetahConfig.Fabric settings) {
    this.fabric = fabric;
    this.settings = settings;
  }

  /**
   * One round's decisions, and a line for each congested link left as it was.
   *
   * @param reroutes the flows to move, in the order decided
   * @param unresolved for each congested link no move relieved, why (no elephant, none with a known
   *     path, none that fits, held)
   */
  public record Round(List<Reroute> reroutes, List<String> unresolved) {
    public Round {
      reroutes = List.copyOf(reroutes);
      unresolved = List.copyOf(unresolved);
    }
  }

  /** The round at {@code nowMs}; records the moves in {@code history}. */
  public Round decide(LinkState state, MoveHistory history, long nowMs) {
    history.forget(settings.returnHoldMs(), nowMs);
    Map<Link, Double> load = new HashMap<>();
    state.utilisationBps().forEach((id, bps) -> fabric.link(id).ifPresent(l -> load.put(l, bps)));
    Map<FabricFlow, Set<Link>> seenOn = new HashMap<>();
    state
        .flowRatesBps()
        .forEach(
            (id, flows) ->
                fabric
                    .link(id)
                    .ifPresent(
                        l ->
                            flows
                                .keySet()
                                .forEach(
                                    f -> seenOn.computeIfAbsent(f, x -> new HashSet<>()).add(l))));

    List<Link> congested =
        load.keySet().stream()
            .filter(this::betweenSwitches)
            .filter(l -> over(l, load.get(l)))
            .sorted(
                Comparator.comparingDouble((Link l) -> -load.get(l) / l.capacityBps())
                    .thenComparing(Link::id))
            .toList();

    List<Reroute> reroutes = new ArrayList<>();
    List<String> unresolved = new ArrayList<>();
    Set<FabricFlow> movedNow = new HashSet<>();
    for (Link link : congested) {
      double before = load.get(link);
      if (!over(link, before)) {
        continue; // relieved by a move earlier in this round
      }
      List<Map.Entry<FabricFlow, Double>> elephants = elephantsOn(link, state, movedNow);
      String why = elephants.isEmpty() ? "no elephant" : "no elephant has a path that fits";
      boolean anyLocated = false;
      boolean anyFree = false;
      Reroute decided = null;
      for (Map.Entry<FabricFlow, Double> e : elephants) {
        FabricFlow flow = e.getKey();
        double rate = e.getValue();
        if (history.movedWithin(flow, settings.holdMs(), nowMs)) {
          continue;
        }
        anyFree = true;
        Optional<FabricPath> current = locate(flow, seenOn.getOrDefault(flow, Set.of()));
        if (current.isEmpty()) {
          continue;
        }
        anyLocated = true;
        Optional<FabricPath> target = firstFitting(flow, current.get(), rate, load, history, nowMs);
        if (target.isPresent()) {
          decided =
              new Reroute(
                  flow,
                  current.get(),
                  target.get(),
                  link.id(),
                  rate,
                  link.id()
                      + " at "
                      + percent(before / link.capacityBps())
                      + " of "
                      + mbps(link.capacityBps())
                      + " (over "
                      + percent(settings.utilisationThreshold())
                      + "): "
                      + settings.policy().name().toLowerCase(java.util.Locale.ROOT)
                      + " elephant that fits, "
                      + mbps(rate)
                      + ", from "
                      + String.join("-", current.get().switches())
                      + " to "
                      + String.join("-", target.get().switches()));
          break;
        }
      }
      if (decided == null) {
        if (!elephants.isEmpty() && !anyFree) {
          why = "every elephant was moved less than fabric.hold-ms ago";
        } else if (!elephants.isEmpty() && !anyLocated) {
          why = "no elephant's path is known";
        }
        unresolved.add(link.id() + " at " + percent(before / link.capacityBps()) + ": " + why);
        continue;
      }
      apply(decided, load);
      history.moved(decided.flow(), decided.from(), nowMs);
      movedNow.add(decided.flow());
      reroutes.add(decided);
    }
    return new Round(reroutes, unresolved);
  }

  /** The loads with {@code r}'s flow taken off its old path and put on its new one. */
  private static void apply(Reroute r, Map<Link, Double> load) {
    for (Link l : r.from().links()) {
      load.computeIfPresent(l, (k, v) -> Math.max(0, v - r.rateBps()));
    }
    for (Link l : r.to().links()) {
      load.merge(l, r.rateBps(), Double::sum);
    }
  }

  /** The flows on {@code link} above the elephant share of its capacity, in the policy's order. */
  private List<Map.Entry<FabricFlow, Double>> elephantsOn(
      Link link, LinkState state, Set<FabricFlow> movedNow) {
    Comparator<Map.Entry<FabricFlow, Double>> byRate = Map.Entry.comparingByValue();
    if (settings.policy() == ReroutePolicy.BIGGEST) {
      byRate = byRate.reversed();
    }
    return state.flowRatesBps().getOrDefault(link.id(), Map.of()).entrySet().stream()
        .filter(e -> elephant(link, e.getValue()) && !movedNow.contains(e.getKey()))
        .sorted(byRate.thenComparing(Map.Entry.comparingByKey()))
        .toList();
  }

  /** A flow at {@code bps} on {@code link} is an elephant there: above E·C. */
  boolean elephant(Link link, double bps) {
    return bps > settings.elephantShare() * link.capacityBps();
  }

  /**
   * The flow's path now: the one equal-cost path between its hosts' edge switches that holds every
   * switch-to-switch link it is seen on; empty when its hosts are not in the fabric, share an edge
   * switch, or the links fit no path or more than one.
   */
  Optional<FabricPath> locate(FabricFlow flow, Set<Link> seen) {
    Optional<Host> src = fabric.hostAt(flow.src());
    Optional<Host> dst = fabric.hostAt(flow.dst());
    if (src.isEmpty() || dst.isEmpty()) {
      return Optional.empty();
    }
    String from = src.get().edge().node();
    String to = dst.get().edge().node();
    if (from.equals(to)) {
      return Optional.empty();
    }
    List<Link> onPath = seen.stream().filter(this::betweenSwitches).toList();
    List<FabricPath> holding =
        fabric.paths(from, to).stream().filter(p -> p.links().containsAll(onPath)).toList();
    return holding.size() == 1 ? Optional.of(holding.get(0)) : Optional.empty();
  }

  /**
   * The first other equal-cost path, in the fabric's order, whose every link stays at or below the
   * threshold with the flow on it; the flow's rate is taken off the links of its current path
   * first, so a link both paths share counts it once. A link with no measure does not fit.
   */
  private Optional<FabricPath> firstFitting(
      FabricFlow flow,
      FabricPath current,
      double rate,
      Map<Link, Double> load,
      MoveHistory history,
      long nowMs) {
    List<Link> from = current.links();
    String src = from.get(0).from().node();
    String dst = from.get(from.size() - 1).to().node();
    for (FabricPath p : fabric.paths(src, dst)) {
      if (p.equals(current)
          || history.leftWithin(flow, p, settings.returnHoldMs(), nowMs)
          || !fits(p, current, rate, load)) {
        continue;
      }
      return Optional.of(p);
    }
    return Optional.empty();
  }

  private boolean fits(FabricPath p, FabricPath current, double rate, Map<Link, Double> load) {
    for (Link l : p.links()) {
      Double now = load.get(l);
      if (now == null) {
        return false;
      }
      double after = now - (current.contains(l) ? rate : 0) + rate;
      if (over(l, after)) {
        return false;
      }
    }
    return true;
  }

  /** Above U·C: congested, if between switches (also the link states of {@link FabricRounds}). */
  boolean over(Link l, double bps) {
    return bps > settings.utilisationThreshold() * l.capacityBps() + SLACK_BPS;
  }

  boolean betweenSwitches(Link l) {
    return fabric.switchNamed(l.from().node()).isPresent()
        && fabric.switchNamed(l.to().node()).isPresent();
  }

  private static String percent(double fraction) {
    return String.format(java.util.Locale.ROOT, "%.1f %%", 100 * fraction);
  }

  private static String mbps(double bps) {
    return String.format(java.util.Locale.ROOT, "%.2f Mb/s", bps / 1e6);
  }
}
