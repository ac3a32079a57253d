package net.cheetah.jobs.flink;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import net.cheetah.config.CheetahConfig.Restarts;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.junit.jupiter.api.Test;

class RestartStrategyTest {
  @Test
  void boundedExponentialDelayAsFlinkReadsIt() {
    Configuration c =
        Configuration.fromMap(RestartStrategy.settings(new Restarts(3, 1000, 60_000, 3_600_000)));
    assertThat(c.get(RestartStrategyOptions.RESTART_STRATEGY)).isEqualTo("exponential-delay");
    assertThat(c.get(RestartStrategyOptions.RESTART_STRATEGY_EXPONENTIAL_DELAY_ATTEMPTS))
        .isEqualTo(3);
    assertThat(c.get(RestartStrategyOptions.RESTART_STRATEGY_EXPONENTIAL_DELAY_INITIAL_BACKOFF))
        .isEqualTo(Duration.ofSeconds(1));
    assertThat(c.get(RestartStrategyOptions.RESTART_STRATEGY_EXPONENTIAL_DELAY_MAX_BACKOFF))
        .isEqualTo(Duration.ofMinutes(1));
    assertThat(c.get(RestartStrategyOptions.RESTART_STRATEGY_EXPONENTIAL_DELAY_BACKOFF_MULTIPLIER))
        .isEqualTo(2.0);
    assertThat(
            c.get(
                RestartStrategyOptions.RESTART_STRATEGY_EXPONENTIAL_DELAY_RESET_BACKOFF_THRESHOLD))
        .isEqualTo(Duration.ofHours(1));
  }

  @Test
  void noAttemptsMeansNoRestart() {
    Configuration c = Configuration.fromMap(RestartStrategy.settings(new Restarts(0, 1, 1, 1)));
    assertThat(c.get(RestartStrategyOptions.RESTART_STRATEGY)).isEqualTo("none");
  }
}
