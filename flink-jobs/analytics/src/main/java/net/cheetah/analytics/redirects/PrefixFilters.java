package net.cheetah.analytics.redirects;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import net.cheetah.core.redirect.CheetahSighting;
import net.cheetah.core.redirect.CommandIds;
import net.cheetah.core.redirect.Decision;
import net.cheetah.core.redirect.Prefix;
import net.cheetah.core.redirect.RedirectSettings;
import net.cheetah.core.redirect.Rule;

/**
 * Prefix filters for one device (docs/ARCHITECTURE.md, "Prefix filters"): an α flow (a NetFlow
 * cheetah) exported by the device's ingress router installs a filter on its (source, destination)
 * prefix pair, IPv4 /24 (IPv6 /48) or host pairs, for the transfers that follow; the filter ages
 * out once no α flow of the pair arrived for the configured age (30 days).
 *
 * <p>Time is the α flows' event time (capped at the processing clock), so a filter's life is a
 * function of the events and a replay after a restart yields the same command ids. A filter
 * generation expires at its newest α flow + the age and is named by that expiry. A later α flow of
 * an active filter only moves its newest α time: nothing changes on the device. From the expiry −
 * the renew window on, the filter is reviewed: if a later α flow arrived it is renewed (REMOVE,
 * then ADD of a generation expiring at the newest α + the age), otherwise it is removed at its
 * expiry. Remove comes before add: FlowSpec and OpenFlow know a rule by its match, so removing the
 * old generation after adding the new one would take both away.
 */
public final class PrefixFilters {
  /** Every filter's cause starts so ({@link Rule#PREFIX_FILTER_CAUSE}). */
  public static final String CAUSE = Rule.PREFIX_FILTER_CAUSE;

  /** Renewals go out this long before expiry at most (half the age when the age is shorter). */
  static final long MAX_RENEW_WINDOW_MS = 3_600_000;

  private final RedirectSettings settings;
  private final Guardrails guardrails;

  public PrefixFilters(RedirectSettings settings) {
    this.settings = settings;
    this.guardrails = new Guardrails(settings);
  }

  public long renewWindowMs() {
    return Math.min(MAX_RENEW_WINDOW_MS, settings.prefixFilterAgeMs() / 2);
  }

  /** The filter cause of a prefix pair: {@code "prefix 198.18.1.0/24→198.18.2.0/24"}. */
  public static String cause(Prefix src, Prefix dst) {
    return CAUSE + src + "→" + dst;
  }

  /** Decisions for one sighting on {@code device}, at processing time {@code nowMs}. */
  public List<Decision> on(CheetahSighting s, String device, RuleBook book, long nowMs) {
    List<Decision> out = new ArrayList<>(review(book, nowMs));
    if (!settings.prefixFiltersOn() || !s.alpha() || s.src().isIpv4() != s.dst().isIpv4()) {
      return out; // probe cheetahs never build filters; a pair must be of one family
    }
    Prefix src = new Prefix(s.src(), settings.filterLengthFor(s.src()));
    Prefix dst = new Prefix(s.dst(), settings.filterLengthFor(s.dst()));
    String cause = cause(src, dst);
    long alphaMs = Math.min(s.eventMs(), nowMs);
    Optional<Rule> active = book.active(cause);
    if (active.isPresent()) {
      long newest = Math.max(alphaMs, book.lastAlpha(cause).orElse(alphaMs));
      book.setLastAlpha(cause, newest);
      out.addAll(review(active.get(), book, nowMs)); // renews at once inside the renew window
      return out;
    }
    long expiresMs = alphaMs + settings.prefixFilterAgeMs();
    if (s.kind() == CheetahSighting.Kind.END || expiresMs <= nowMs) {
      return out; // an ended flow builds no filter; an α flow older than the age has aged out
    }
    Rule rule =
        filter(
            device,
            cause,
            s.link(),
            src,
            dst,
            nowMs,
            expiresMs,
            String.format(
                Locale.ROOT,
                "%s: α flow %s from %s at %.3f Gb/s",
                cause,
                s.flowId(),
                s.link(),
                s.rateBps() / 1e9));
    Optional<String> refusal = guardrails.refusal(rule, book, nowMs);
    if (refusal.isPresent()) {
      // Each new α flow may try again; its updates do not record the refusal again.
      if (s.kind() == CheetahSighting.Kind.START) {
        out.add(Decision.refused(rule, refusal.get()));
      }
      return out;
    }
    book.put(rule);
    book.setLastAlpha(cause, alphaMs);
    out.add(Decision.add(rule));
    return out;
  }

  /** Renews or ages out every filter inside its renew window at {@code nowMs}. */
  public List<Decision> review(RuleBook book, long nowMs) {
    List<Rule> due = new ArrayList<>();
    for (Rule r : book.allActive()) {
      if (r.isPrefixFilter() && nowMs >= r.expiresMs() - renewWindowMs()) {
        due.add(r);
      }
    }
    due.sort(Comparator.comparing(Rule::expiresMs).thenComparing(Rule::commandId));
    List<Decision> out = new ArrayList<>();
    for (Rule r : due) {
      out.addAll(review(r, book, nowMs));
    }
    return out;
  }

  /** When a filter must be looked at again: the start of its renew window, and its expiry. */
  public List<Long> reviewTimes(Rule filter) {
    return List.of(filter.expiresMs() - renewWindowMs(), filter.expiresMs());
  }

  private List<Decision> review(Rule r, RuleBook book, long nowMs) {
    if (nowMs < r.expiresMs() - renewWindowMs()) {
      return List.of();
    }
    long age = settings.prefixFilterAgeMs();
    long newest = book.lastAlpha(r.cause()).orElse(r.expiresMs() - age);
    long renewedExpiry = newest + age;
    if (renewedExpiry > Math.max(r.expiresMs(), nowMs)) {
      return renew(r, newest, renewedExpiry, book, nowMs);
    }
    if (r.expiresMs() <= nowMs) {
      book.remove(r.cause());
      return List.of(
          Decision.remove(r, "aged out: no α flow since " + Instant.ofEpochMilli(newest)));
    }
    return List.of();
  }

  private List<Decision> renew(Rule old, long newest, long expiresMs, RuleBook book, long nowMs) {
    Rule next =
        filter(
            old.deviceId(),
            old.cause(),
            old.link(),
            old.srcPrefix(),
            old.dstPrefix(),
            nowMs,
            expiresMs,
            old.cause() + ": renewed, newest α flow at " + Instant.ofEpochMilli(newest));
    book.remove(old.cause());
    // Protected prefixes may have changed since the filter was added (a restart with new
    // settings): a renewal passes them again. K and the rate limit do not apply: the device
    // keeps one rule for the pair, as before.
    Optional<String> shielded = guardrails.protectedOverlap(next);
    if (shielded.isPresent()) {
      return List.of(Decision.remove(old, shielded.get()), Decision.refused(next, shielded.get()));
    }
    book.put(next);
    book.setLastAlpha(next.cause(), newest);
    return List.of(
        Decision.remove(old, "renewed until " + Instant.ofEpochMilli(expiresMs)),
        Decision.add(next));
  }

  /** A filter generation: its id names the device, the pair and the expiry. */
  private static Rule filter(
      String device,
      String cause,
      String link,
      Prefix src,
      Prefix dst,
      long issuedMs,
      long expiresMs,
      String reason) {
    return new Rule(
        CommandIds.add(device, cause + "@" + expiresMs),
        device,
        cause,
        link,
        src.network(),
        dst.network(),
        src.length(),
        0,
        0,
        0,
        issuedMs,
        expiresMs,
        0,
        reason);
  }
}
