package net.cheetah.fabric;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import net.cheetah.config.CheetahConfig;
import net.cheetah.core.redirect.Prefix;
import net.cheetah.core.redirect.RedirectSettings;
import net.cheetah.schemas.v1.RedirectCommand;

/**
 * The fabric job's decisions (docs/FABRIC.md, "The job"), pure: sFlow flow samples already placed
 * on links and interface counters come in, in event time; every {@link #ROUND_MS} of event time one
 * {@link ElephantRerouter} round runs over the window's flow rates and the links' latest
 * utilisation, and its reroutes come out as unsigned commands, with the guardrails of the other
 * redirect commands (protected prefixes, at most {@code redirects.max-rules-per-device} active
 * reroutes, {@code redirects.rule-ttl-ms} expiry, dry run). A rerouted flow without samples for
 * {@code fabric.flow-idle-ms} gets its {@code REMOVE}.
 *
 * <p>A round ending at T (a multiple of {@link #ROUND_MS}) takes the samples of [T - 1 s, T) and
 * runs once both inputs have reached T + {@link #GRACE_MS} (inputs from the switches arrive
 * slightly out of order; see {@link #SOURCE_SKEW_MS}), with each link's newest utilisation; a
 * sample older than the window still open is late, dropped and counted. All of it is in {@link
 * Memory}, which the job checkpoints.
 */
public final class FabricRounds {
  /** One round per second of event time: the study's sFlow counter push. */
  public static final long ROUND_MS = 1000;

  /** A round runs when an input this long after its end arrives. */
  public static final long GRACE_MS = 500;

  /**
   * Samples and counters come from two topics, read unevenly: a round waits for both to pass its
   * end (plus the grace), unless one of them is this far ahead of the other (the other is silent,
   * e.g. no flow at all, or lags: its inputs older than the rounds run are then late).
   */
  public static final long SOURCE_SKEW_MS = 5000;

  /** A link's utilisation measured longer ago than this before a round is not used by it. */
  public static final long STALE_MS = 3 * ROUND_MS;

  /** A flow sample placed on the links it measures, with its bytes scaled by the sampling. */
  public record Sample(long atMs, FabricFlow flow, List<String> measured, double scaledBytes)
      implements Serializable {}

  /**
   * A decision: the command (unsigned; {@code refusal} set when a guardrail refused it, {@code
   * dry_run} in a dry run) and whether it is published on redirects.commands.v1.
   */
  public record Decision(RedirectCommand command, boolean published) implements Serializable {}

  /**
   * One link as the round ending at {@code roundMs} saw it (fabric.links.v1): for every link of the
   * fabric, each round.
   *
   * @param measured whether the counters gave a utilisation (not older than {@link #STALE_MS})
   * @param counterBps the utilisation as the counters measured it (0 when not measured)
   * @param utilisationBps after the lag correction for recent moves: what the rule used
   * @param overThreshold {@code utilisationBps} above U·C (congested when between switches)
   * @param flows flows sampled on the link in the round's window; {@code sampledBps} their sum
   * @param elephants flows above E·C
   * @param top the biggest flow (an elephant when {@code elephants} > 0), or null when none
   * @param rerouteCommandId the command id of the reroute this round decided for the link (its
   *     decision in redirects.decisions.v1, whatever the outcome), or ""
   * @param unresolved why the link stays congested after this round (the rule's line), or ""
   */
  public record LinkRound(
      long roundMs,
      Link link,
      boolean betweenSwitches,
      double thresholdBps,
      boolean measured,
      double counterBps,
      double utilisationBps,
      boolean overThreshold,
      int flows,
      double sampledBps,
      int elephants,
      FabricFlow top,
      double topBps,
      String rerouteCommandId,
      String unresolved)
      implements Serializable {}

  /** What the round ending at {@code endMs} decided, and every link of the fabric as it saw it. */
  public record Round(long endMs, List<Decision> decisions, List<LinkRound> links) {
    public Round {
      decisions = List.copyOf(decisions);
      links = List.copyOf(links);
    }
  }

  private record Utilisation(double bps, long atMs) implements Serializable {}

  private record Active(RedirectCommand add, long expiresMs) implements Serializable {}

  /**
   * A move decided at {@code atMs}: until counters measure traffic after it, the utilisation the
   * rounds see is corrected by the flow's rate (off the links it left, onto the ones it took).
   */
  private record Moved(List<String> from, List<String> to, double bps, long atMs)
      implements Serializable {}

  /** Everything the rounds remember: checkpointed by the job. */
  public static final class Memory implements Serializable {
    private static final long serialVersionUID = 1L;
    private long roundEndMs;
    private long sampleClockMs = Long.MIN_VALUE;
    private long counterClockMs = Long.MIN_VALUE;
    private final List<Sample> pending = new ArrayList<>();
    private final CounterRates counters = new CounterRates();
    private final Map<String, Utilisation> utilisation = new HashMap<>();
    private final MoveHistory history = new MoveHistory();
    private final Map<FabricFlow, Long> lastSeenMs = new HashMap<>();
    private final Map<FabricFlow, Active> active = new TreeMap<>();
    private final List<Moved> moved = new ArrayList<>();
    // redirects.max-new-rules-per-minute: a token bucket of that size for the fabric (one device),
    // refilled continuously over a minute of event time; NaN until the first reroute (full).
    private double tokens = Double.NaN;
    private long tokensAtMs;
    private long late;
    private long rounds;

    /** Samples dropped because their window had closed. */
    public long late() {
      return late;
    }

    /** Rounds run. */
    public long rounds() {
      return rounds;
    }

    /** Reroutes in force (published or, in a dry run, recorded). */
    public int active() {
      return active.size();
    }
  }

  private final Fabric fabric;
  private final CheetahConfig.Fabric settings;
  private final RedirectSettings guards;
  private final String device;
  private final ElephantRerouter rerouter;
  private final Memory m;

  /**
   * @param device the device id of the commands: the fabric, whose adapter applies them
   */
  public FabricRounds(
      Fabric fabric,
      CheetahConfig.Fabric settings,
      RedirectSettings guards,
      String device,
      Memory memory) {
    this.fabric = fabric;
    this.settings = settings;
    this.guards = guards;
    this.device = device;
    this.rerouter = new ElephantRerouter(fabric, settings);
    this.m = memory;
  }

  public Memory memory() {
    return m;
  }

  /** Takes a placed flow sample; returns the rounds it closes. */
  public List<Round> onSample(Sample s) {
    m.sampleClockMs = Math.max(m.sampleClockMs, s.atMs());
    List<Round> out = advance(s.atMs());
    if (s.atMs() < m.roundEndMs - ROUND_MS) {
      m.late++;
    } else if (!s.measured().isEmpty()) {
      m.pending.add(s);
    }
    return out;
  }

  /**
   * Takes a counter sample of the port {@code linkId} leaves (its ifOutOctets, a 64-bit counter);
   * returns the rounds it closes.
   */
  public List<Round> onCounter(
      String linkId, long atMs, long octets, double speedBps, boolean reset) {
    m.counterClockMs = Math.max(m.counterClockMs, atMs);
    List<Round> out = advance(atMs);
    m.counters
        .update(linkId, atMs, octets, 64, speedBps, reset)
        .bps()
        .ifPresent(bps -> m.utilisation.put(linkId, new Utilisation(bps, atMs)));
    return out;
  }

  private List<Round> advance(long atMs) {
    List<Round> out = new ArrayList<>();
    if (m.roundEndMs == 0) {
      m.roundEndMs = Math.floorDiv(atMs, ROUND_MS) * ROUND_MS + ROUND_MS;
      return out;
    }
    long ahead = Math.max(m.sampleClockMs, m.counterClockMs);
    long clock = Math.max(Math.min(m.sampleClockMs, m.counterClockMs), ahead - SOURCE_SKEW_MS);
    while (clock >= m.roundEndMs + GRACE_MS) {
      out.add(round(m.roundEndMs));
      m.roundEndMs += ROUND_MS;
      if (m.pending.isEmpty() && clock >= m.roundEndMs + ROUND_MS + GRACE_MS) {
        // A gap in the inputs: skip to the round before the clock's, nothing to place before it.
        long last = Math.floorDiv(clock - GRACE_MS, ROUND_MS) * ROUND_MS;
        m.roundEndMs = Math.max(m.roundEndMs, last);
      }
    }
    return out;
  }

  /** The round ending at {@code endMs}. */
  private Round round(long endMs) {
    m.rounds++;
    Map<String, Map<FabricFlow, Double>> rates = new HashMap<>();
    Iterator<Sample> it = m.pending.iterator();
    while (it.hasNext()) {
      Sample s = it.next();
      if (s.atMs() >= endMs) {
        continue; // a later window's
      }
      it.remove();
      m.lastSeenMs.merge(s.flow(), s.atMs(), Math::max);
      if (s.atMs() < endMs - ROUND_MS) {
        continue; // arrived after its window ran (before the first round): seen, not a rate
      }
      // The rate of SflowPlacement.flowRatesBps: scaled bytes × 8 per second of the window.
      for (String link : s.measured()) {
        rates
            .computeIfAbsent(link, k -> new HashMap<>())
            .merge(s.flow(), s.scaledBytes() * 8 * 1000.0 / ROUND_MS, Double::sum);
      }
    }
    Map<String, Double> measured = new HashMap<>();
    m.utilisation.forEach(
        (link, u) -> {
          if (u.atMs() > endMs - STALE_MS) {
            measured.put(link, u.bps());
          }
        });
    Map<String, Double> util = new HashMap<>(measured);
    // Counters lag a move by up to a polling interval: a measure taken before a move's traffic
    // could show in a whole interval after it gets the move applied, so that the rounds after a
    // move do not see its old path still congested (and move a second flow off it).
    m.moved.removeIf(mv -> mv.atMs() + ROUND_MS + GRACE_MS + STALE_MS < endMs);
    for (Moved mv : m.moved) {
      for (String link : List.copyOf(util.keySet())) {
        if (m.utilisation.get(link).atMs() < mv.atMs() + ROUND_MS + GRACE_MS) {
          double delta =
              (mv.to().contains(link) ? mv.bps() : 0) - (mv.from().contains(link) ? mv.bps() : 0);
          util.put(link, Math.max(0, util.get(link) + delta));
        }
      }
    }
    List<Decision> out = new ArrayList<>();
    expireAndRemoveIdle(endMs, out);
    ElephantRerouter.Round r = rerouter.decide(new LinkState(util, rates), m.history, endMs);
    Map<String, String> rerouted = new HashMap<>();
    for (Reroute reroute : r.reroutes()) {
      decide(reroute, endMs, out);
      // The id decide gave its command (the same add, whatever the guardrails made of it).
      rerouted.put(
          reroute.link(),
          RerouteCommands.add(reroute, device, endMs, guards.ruleTtlMs()).getCommandId());
    }
    m.lastSeenMs
        .keySet()
        .removeIf(
            f -> endMs - m.lastSeenMs.get(f) > settings.returnHoldMs() && !m.active.containsKey(f));
    return new Round(endMs, out, links(endMs, measured, util, rates, rerouted, r.unresolved()));
  }

  /** Every link of the fabric, in its order, as this round saw it. */
  private List<LinkRound> links(
      long endMs,
      Map<String, Double> measured,
      Map<String, Double> util,
      Map<String, Map<FabricFlow, Double>> rates,
      Map<String, String> rerouted,
      List<String> unresolved) {
    List<LinkRound> links = new ArrayList<>();
    for (Link l : fabric.links()) {
      String id = l.id();
      double bps = util.getOrDefault(id, 0.0);
      Map<FabricFlow, Double> flows = rates.getOrDefault(id, Map.of());
      FabricFlow top = null;
      double topBps = 0;
      int elephants = 0;
      double sampled = 0;
      for (Map.Entry<FabricFlow, Double> e : new TreeMap<>(flows).entrySet()) {
        sampled += e.getValue();
        if (rerouter.elephant(l, e.getValue())) {
          elephants++;
        }
        if (top == null || e.getValue() > topBps) {
          top = e.getKey();
          topBps = e.getValue();
        }
      }
      String why =
          unresolved.stream().filter(u -> u.startsWith(id + " at ")).findFirst().orElse("");
      links.add(
          new LinkRound(
              endMs,
              l,
              rerouter.betweenSwitches(l),
              settings.utilisationThreshold() * l.capacityBps(),
              measured.containsKey(id),
              measured.getOrDefault(id, 0.0),
              bps,
              util.containsKey(id) && rerouter.over(l, bps),
              flows.size(),
              sampled,
              elephants,
              top,
              topBps,
              rerouted.getOrDefault(id, ""),
              why));
    }
    return links;
  }

  private void expireAndRemoveIdle(long endMs, List<Decision> out) {
    Iterator<Map.Entry<FabricFlow, Active>> it = m.active.entrySet().iterator();
    while (it.hasNext()) {
      Map.Entry<FabricFlow, Active> e = it.next();
      if (endMs >= e.getValue().expiresMs()) {
        it.remove(); // the adapter ages it out itself: the flow is back on ECMP
        continue;
      }
      long seen = m.lastSeenMs.getOrDefault(e.getKey(), e.getValue().add().getIssuedMs());
      if (endMs - seen >= settings.flowIdleMs()) {
        it.remove();
        out.add(
            publish(
                RerouteCommands.remove(
                    e.getValue().add(),
                    endMs,
                    "flow ended: no sFlow samples for " + (endMs - seen) + " ms")));
      }
    }
  }

  private void decide(Reroute r, long endMs, List<Decision> out) {
    RedirectCommand add = RerouteCommands.add(r, device, endMs, guards.ruleTtlMs());
    String refusal = refusal(r, endMs);
    if (!refusal.isEmpty()) {
      // Not moved: neither fabric.hold-ms nor fabric.return-hold-ms may keep it from being tried.
      m.history.undo(r.flow(), r.from(), endMs);
      out.add(new Decision(add.toBuilder().setRefusal(refusal).build(), false));
      return;
    }
    Active before = m.active.remove(r.flow());
    if (before != null) {
      // Moved again (after fabric.hold-ms): the old path's rules go before the new ones come.
      out.add(publish(RerouteCommands.remove(before.add(), endMs, "moved again: " + r.reason())));
    }
    m.active.put(r.flow(), new Active(add, add.getExpiresMs()));
    m.moved.add(
        new Moved(
            r.from().links().stream().map(Link::id).toList(),
            r.to().links().stream().map(Link::id).toList(),
            r.rateBps(),
            endMs));
    out.add(publish(add));
  }

  /**
   * The guardrails of docs/ARCHITECTURE.md, "Redirect commands", that apply to a reroute, in their
   * order: protected prefixes, K rules in force, the new-rule rate (a token taken when it passes).
   */
  private String refusal(Reroute r, long nowMs) {
    Prefix src = Prefix.host(r.flow().src());
    Prefix dst = Prefix.host(r.flow().dst());
    for (Prefix p : guards.protectedPrefixes()) {
      if (p.overlaps(src) || p.overlaps(dst)) {
        return "protected prefix " + p;
      }
    }
    if (!m.active.containsKey(r.flow()) && m.active.size() >= guards.maxRulesPerDevice()) {
      return "device "
          + device
          + " has K = "
          + guards.maxRulesPerDevice()
          + " active rules (redirects.max-rules-per-device)";
    }
    if (!takeToken(nowMs)) {
      return "rate limit of "
          + guards.maxNewRulesPerMinute()
          + " new rules per minute (redirects.max-new-rules-per-minute)";
    }
    return "";
  }

  /**
   * A token of the new-rule bucket, if one is left at {@code nowMs} (event time). The bucket is
   * kept as of the last token taken (a refusal leaves it as it is: the refill is linear), so the
   * refill is one product, exact at whole minutes.
   */
  private boolean takeToken(long nowMs) {
    double capacity = guards.maxNewRulesPerMinute();
    double tokens =
        Double.isNaN(m.tokens)
            ? capacity
            : Math.min(
                capacity, m.tokens + Math.max(0, nowMs - m.tokensAtMs) * capacity / 60_000.0);
    if (tokens < 1) {
      return false;
    }
    m.tokens = tokens - 1;
    m.tokensAtMs = nowMs;
    return true;
  }

  private Decision publish(RedirectCommand c) {
    if (guards.dryRun()) {
      return new Decision(c.toBuilder().setDryRun(true).build(), false);
    }
    return new Decision(c, true);
  }

  /** The fabric the rounds run on. */
  public Fabric fabric() {
    return fabric;
  }
}
