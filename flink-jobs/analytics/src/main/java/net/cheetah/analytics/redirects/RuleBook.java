package net.cheetah.analytics.redirects;

import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import net.cheetah.core.redirect.Rule;

/**
 * One device's desired rules and bookkeeping, as {@link FlowIsolation} and {@link PrefixFilters}
 * need them. The streaming job keeps it in checkpointed keyed state; tests and batch use {@link
 * MemoryRuleBook}.
 */
public interface RuleBook {
  Optional<Rule> active(String cause);

  List<Rule> allActive();

  void put(Rule rule);

  /** Removes the rule and what is kept with it (a prefix filter's last α time). */
  void remove(String cause);

  /** A prefix filter's newest α flow time, kept while the filter is active. */
  OptionalLong lastAlpha(String cause);

  void setLastAlpha(String cause, long ms);

  /** A cheetah that ended (kept until {@code untilMs}): a late START must not add its rule. */
  boolean ended(String cause);

  void markEnded(String cause, long untilMs);

  /** Forgets ended causes whose time has passed. */
  void forgetEndedBefore(long nowMs);

  /** The rate limit's token bucket: tokens and when they were last refilled. */
  double tokens();

  long tokensAtMs();

  void setTokens(double tokens, long atMs);
}
