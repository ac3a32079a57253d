package net.cheetah.analytics.redirects;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import net.cheetah.core.redirect.Rule;

/** A {@link RuleBook} in plain maps. */
public final class MemoryRuleBook implements RuleBook {
  private final Map<String, Rule> active = new HashMap<>();
  private final Map<String, Long> ended = new HashMap<>();
  private final Map<String, Long> lastAlpha = new HashMap<>();
  private double tokens = Double.NaN;
  private long tokensAtMs;

  @Override
  public Optional<Rule> active(String cause) {
    return Optional.ofNullable(active.get(cause));
  }

  @Override
  public List<Rule> allActive() {
    return new ArrayList<>(active.values());
  }

  @Override
  public void put(Rule rule) {
    active.put(rule.cause(), rule);
  }

  @Override
  public void remove(String cause) {
    active.remove(cause);
    lastAlpha.remove(cause);
  }

  @Override
  public OptionalLong lastAlpha(String cause) {
    Long ms = lastAlpha.get(cause);
    return ms == null ? OptionalLong.empty() : OptionalLong.of(ms);
  }

  @Override
  public void setLastAlpha(String cause, long ms) {
    lastAlpha.put(cause, ms);
  }

  @Override
  public boolean ended(String cause) {
    return ended.containsKey(cause);
  }

  @Override
  public void markEnded(String cause, long untilMs) {
    ended.put(cause, untilMs);
  }

  @Override
  public void forgetEndedBefore(long nowMs) {
    ended.values().removeIf(until -> until < nowMs);
  }

  @Override
  public double tokens() {
    return tokens;
  }

  @Override
  public long tokensAtMs() {
    return tokensAtMs;
  }

  @Override
  public void setTokens(double t, long atMs) {
    tokens = t;
    tokensAtMs = atMs;
  }
}
