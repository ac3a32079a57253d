package net.cheetah.analytics.redirects;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import net.cheetah.core.redirect.CheetahSighting;
import net.cheetah.core.redirect.CommandIds;
import net.cheetah.core.redirect.Decision;
import net.cheetah.core.redirect.RedirectSettings;
import net.cheetah.core.redirect.Rule;

/**
 * Per-flow isolation for one device (docs/ARCHITECTURE.md, "Redirect commands"): a cheetah start on
 * a monitored link adds a rule moving its 5-tuple to the scavenger class; its end or the rule's
 * expiry removes it. {@link Guardrails} are checked before a rule is added. Duplicate and
 * out-of-order events (END before START, a START repeated) change nothing.
 */
public final class FlowIsolation {
  private final RedirectSettings settings;
  private final Guardrails guardrails;

  public FlowIsolation(RedirectSettings settings) {
    this.settings = settings;
    this.guardrails = new Guardrails(settings);
  }

  /** Decisions for one sighting on {@code device}, at processing time {@code nowMs}. */
  public List<Decision> on(CheetahSighting s, String device, RuleBook book, long nowMs) {
    List<Decision> out = new ArrayList<>(expire(book, nowMs));
    switch (s.kind()) {
      case START -> start(s, device, book, nowMs).ifPresent(out::add);
      // An update may add a rule a guardrail refused at the start (a slot or token is free
      // now); a second refusal of the same flow is not recorded again.
      case UPDATE ->
          start(s, device, book, nowMs)
              .filter(d -> d.kind() != Decision.Kind.REFUSED)
              .ifPresent(out::add);
      case END -> {
        book.markEnded(s.flowId(), nowMs + settings.ruleTtlMs());
        book.active(s.flowId())
            .ifPresent(
                r -> {
                  book.remove(r.cause());
                  out.add(Decision.remove(r, "cheetah ended"));
                });
      }
    }
    return out;
  }

  /**
   * Removes per-flow rules whose expiry has passed (the adapters drop them by themselves too).
   * Prefix filters are renewed or aged out by {@link PrefixFilters} instead.
   */
  public List<Decision> expire(RuleBook book, long nowMs) {
    book.forgetEndedBefore(nowMs);
    List<Decision> out = new ArrayList<>();
    List<Rule> due = new ArrayList<>();
    for (Rule r : book.allActive()) {
      if (!r.isPrefixFilter() && r.expiresMs() <= nowMs) {
        due.add(r);
      }
    }
    due.sort(Comparator.comparing(Rule::expiresMs).thenComparing(Rule::commandId));
    for (Rule r : due) {
      book.remove(r.cause());
      out.add(Decision.remove(r, "rule expired"));
    }
    return out;
  }

  private Optional<Decision> start(CheetahSighting s, String device, RuleBook book, long nowMs) {
    if (book.active(s.flowId()).isPresent() || book.ended(s.flowId())) {
      return Optional.empty(); // already isolated, or already over: nothing to do
    }
    Rule rule =
        new Rule(
            CommandIds.add(device, s.flowId()),
            device,
            s.flowId(),
            s.link(),
            s.src(),
            s.dst(),
            128,
            s.srcPort(),
            s.dstPort(),
            s.proto(),
            nowMs,
            nowMs + settings.ruleTtlMs(),
            s.thresholdVersion(),
            String.format(
                java.util.Locale.ROOT,
                "cheetah %s on %s at %.3f Gb/s",
                s.flowId(),
                s.link(),
                s.rateBps() / 1e9));
    Optional<String> refusal = guardrails.refusal(rule, book, nowMs);
    if (refusal.isPresent()) {
      return Optional.of(Decision.refused(rule, refusal.get()));
    }
    book.put(rule);
    return Optional.of(Decision.add(rule));
  }
}
