package net.cheetah.jobs.flink;

import java.util.LinkedHashMap;
import java.util.Map;
import net.cheetah.config.CheetahConfig.Restarts;
import org.apache.flink.configuration.RestartStrategyOptions;

/**
 * Cheetah's restart strategy as Flink settings, for every job (the stack's MiniCluster, analyze's
 * local cluster). Without it Flink restarts a checkpointed job forever, so a job that throws on
 * every record would keep restarting while nobody notices.
 *
 * <p>Exponential delay with bounded attempts rather than fixed delay: the jobs run for weeks, and
 * fixed delay counts restarts over a job's whole life (three unrelated broker hiccups a month apart
 * would end a healthy job), while exponential delay counts only failures in a row (reset after
 * {@link Restarts#resetAfterMs()} without failure) and backs off instead of hammering a broker that
 * is down. A poison record fails the job after {@link Restarts#attempts()} restarts.
 */
public final class RestartStrategy {
  /** Each further failure in a row doubles the delay, up to {@link Restarts#maxDelayMs()}. */
  static final double BACKOFF_MULTIPLIER = 2.0;

  private RestartStrategy() {}

  /** The Flink configuration keys and values of {@code restarts}. */
  public static Map<String, String> settings(Restarts restarts) {
    Map<String, String> s = new LinkedHashMap<>();
    if (restarts.attempts() == 0) {
      s.put(RestartStrategyOptions.RESTART_STRATEGY.key(), "none");
      return s;
    }
    s.put(RestartStrategyOptions.RESTART_STRATEGY.key(), "exponential-delay");
    s.put(
        RestartStrategyOptions.RESTART_STRATEGY_EXPONENTIAL_DELAY_ATTEMPTS.key(),
        Integer.toString(restarts.attempts()));
    s.put(
        RestartStrategyOptions.RESTART_STRATEGY_EXPONENTIAL_DELAY_INITIAL_BACKOFF.key(),
        restarts.initialDelayMs() + " ms");
    s.put(
        RestartStrategyOptions.RESTART_STRATEGY_EXPONENTIAL_DELAY_MAX_BACKOFF.key(),
        restarts.maxDelayMs() + " ms");
    s.put(
        RestartStrategyOptions.RESTART_STRATEGY_EXPONENTIAL_DELAY_BACKOFF_MULTIPLIER.key(),
        Double.toString(BACKOFF_MULTIPLIER));
    s.put(
        RestartStrategyOptions.RESTART_STRATEGY_EXPONENTIAL_DELAY_RESET_BACKOFF_THRESHOLD.key(),
        restarts.resetAfterMs() + " ms");
    return s;
  }
}
