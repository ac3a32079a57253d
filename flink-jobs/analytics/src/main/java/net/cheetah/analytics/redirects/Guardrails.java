package net.cheetah.analytics.redirects;

import java.util.List;
import java.util.Optional;
import net.cheetah.core.redirect.Prefix;
import net.cheetah.core.redirect.RedirectSettings;
import net.cheetah.core.redirect.Rule;

/**
 * The checks a new rule passes before it is signed (docs/ARCHITECTURE.md, "Redirect commands"), in
 * this order: protected prefixes, K active rules per device, the new-rule rate. Shared by per-flow
 * isolation and prefix filters, so both count against the same K and the same token bucket. The
 * protected-prefix check alone is public: operator commands ({@code ./cheetah guard}) pass it too.
 */
public final class Guardrails {
  private final RedirectSettings settings;

  Guardrails(RedirectSettings settings) {
    this.settings = settings;
  }

  /** Why {@code rule} may not be added, or empty after taking a rate-limit token for it. */
  Optional<String> refusal(Rule rule, RuleBook book, long nowMs) {
    Optional<String> shielded = protectedOverlap(rule);
    if (shielded.isPresent()) {
      return shielded;
    }
    if (book.allActive().size() >= settings.maxRulesPerDevice()) {
      return Optional.of(
          "device "
              + rule.deviceId()
              + " has K = "
              + settings.maxRulesPerDevice()
              + " active rules");
    }
    if (!takeToken(book, nowMs)) {
      return Optional.of(
          "rate limit of " + settings.maxNewRulesPerMinute() + " new rules per minute");
    }
    return Optional.empty();
  }

  /**
   * A protected prefix the rule's match would touch: for a 5-tuple one holding its address, for a
   * prefix filter one sharing any address with it.
   */
  Optional<String> protectedOverlap(Rule rule) {
    return protectedOverlap(settings.protectedPrefixes(), rule.srcPrefix(), rule.dstPrefix());
  }

  /** The first of {@code protectedPrefixes} sharing an address with one of {@code match}. */
  public static Optional<String> protectedOverlap(List<Prefix> protectedPrefixes, Prefix... match) {
    for (Prefix p : protectedPrefixes) {
      for (Prefix m : match) {
        if (p.overlaps(m)) {
          return Optional.of("protected prefix " + p);
        }
      }
    }
    return Optional.empty();
  }

  private boolean takeToken(RuleBook book, long nowMs) {
    double capacity = settings.maxNewRulesPerMinute();
    double tokens = Double.isNaN(book.tokens()) ? capacity : book.tokens();
    long elapsed = Math.max(0, nowMs - book.tokensAtMs());
    tokens = Math.min(capacity, tokens + elapsed * capacity / 60_000.0);
    if (tokens < 1) {
      book.setTokens(tokens, nowMs);
      return false;
    }
    book.setTokens(tokens - 1, nowMs);
    return true;
  }
}
