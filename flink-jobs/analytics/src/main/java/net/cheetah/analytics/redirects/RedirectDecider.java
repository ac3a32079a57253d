package net.cheetah.analytics.redirects;

import java.util.ArrayList;
import java.util.List;
import net.cheetah.core.redirect.CheetahSighting;
import net.cheetah.core.redirect.Decision;
import net.cheetah.core.redirect.RedirectSettings;
import net.cheetah.core.redirect.Rule;

/**
 * Every decision for one device's rule book: per-flow isolation and prefix filters, which share the
 * book and so the guardrails (K, the new-rule rate) of the device.
 */
public final class RedirectDecider {
  private final FlowIsolation isolation;
  private final PrefixFilters filters;

  public RedirectDecider(RedirectSettings settings) {
    this.isolation = new FlowIsolation(settings);
    this.filters = new PrefixFilters(settings);
  }

  /** Decisions for one sighting on {@code device}, at processing time {@code nowMs}. */
  public List<Decision> on(CheetahSighting s, String device, RuleBook book, long nowMs) {
    List<Decision> out = new ArrayList<>(isolation.on(s, device, book, nowMs));
    out.addAll(filters.on(s, device, book, nowMs));
    return out;
  }

  /** Removals of expired rules, renewals and age-outs of prefix filters, due at {@code nowMs}. */
  public List<Decision> expire(RuleBook book, long nowMs) {
    List<Decision> out = new ArrayList<>(isolation.expire(book, nowMs));
    out.addAll(filters.review(book, nowMs));
    return out;
  }

  /** The times at which {@link #expire} has something to do for an added rule. */
  public List<Long> wakeUps(Rule added) {
    return added.isPrefixFilter() ? filters.reviewTimes(added) : List.of(added.expiresMs());
  }
}
