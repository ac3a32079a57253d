package net.cheetah.jobs.redirects;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import net.cheetah.analytics.redirects.RuleBook;
import net.cheetah.core.redirect.Rule;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.ValueState;

/** One device's rule book in Flink keyed state: checkpointed, restored after a restart. */
final class StateRuleBook implements RuleBook {
  private final MapState<String, Rule> active;
  private final MapState<String, Long> ended;
  private final MapState<String, Long> lastAlpha;
  private final ValueState<double[]> bucket; // {tokens, at ms}

  StateRuleBook(
      MapState<String, Rule> active,
      MapState<String, Long> ended,
      MapState<String, Long> lastAlpha,
      ValueState<double[]> bucket) {
    this.active = active;
    this.ended = ended;
    this.lastAlpha = lastAlpha;
    this.bucket = bucket;
  }

  @Override
  public Optional<Rule> active(String cause) {
    return Optional.ofNullable(io(() -> active.get(cause)));
  }

  @Override
  public List<Rule> allActive() {
    List<Rule> out = new ArrayList<>();
    io(() -> active.values()).forEach(out::add);
    return out;
  }

  @Override
  public void put(Rule rule) {
    run(() -> active.put(rule.cause(), rule));
  }

  @Override
  public void remove(String cause) {
    run(() -> active.remove(cause));
    run(() -> lastAlpha.remove(cause));
  }

  @Override
  public OptionalLong lastAlpha(String cause) {
    Long ms = io(() -> lastAlpha.get(cause));
    return ms == null ? OptionalLong.empty() : OptionalLong.of(ms);
  }

  @Override
  public void setLastAlpha(String cause, long ms) {
    run(() -> lastAlpha.put(cause, ms));
  }

  @Override
  public boolean ended(String cause) {
    return io(() -> ended.contains(cause));
  }

  @Override
  public void markEnded(String cause, long untilMs) {
    run(() -> ended.put(cause, untilMs));
  }

  @Override
  public void forgetEndedBefore(long nowMs) {
    List<String> gone = new ArrayList<>();
    for (Map.Entry<String, Long> e : io(() -> ended.entries())) {
      if (e.getValue() < nowMs) {
        gone.add(e.getKey());
      }
    }
    gone.forEach(c -> run(() -> ended.remove(c)));
  }

  @Override
  public double tokens() {
    double[] b = io(() -> bucket.value());
    return b == null ? Double.NaN : b[0];
  }

  @Override
  public long tokensAtMs() {
    double[] b = io(() -> bucket.value());
    return b == null ? 0 : (long) b[1];
  }

  @Override
  public void setTokens(double tokens, long atMs) {
    run(() -> bucket.update(new double[] {tokens, atMs}));
  }

  private interface StateCall<T> {
    T call() throws Exception;
  }

  private interface StateRun {
    void run() throws Exception;
  }

  private static <T> T io(StateCall<T> c) {
    try {
      return c.call();
    } catch (Exception e) {
      throw new IllegalStateException("redirect state access failed", e);
    }
  }

  private static void run(StateRun r) {
    try {
      r.run();
    } catch (Exception e) {
      throw new IllegalStateException("redirect state access failed", e);
    }
  }
}
