package net.cheetah.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class WaitTest {

  @Test
  void returnsAsSoonAsTheConditionHolds() {
    AtomicInteger calls = new AtomicInteger();
    Wait.until(
        "three calls",
        Duration.ofSeconds(5),
        Duration.ofMillis(1),
        () -> calls.incrementAndGet() == 3);
    assertThat(calls).hasValue(3);
  }

  @Test
  void returnsTheFirstValueTheProbeFinds() {
    AtomicInteger calls = new AtomicInteger();
    String value =
        Wait.forValue(
            "a value",
            Duration.ofSeconds(5),
            Duration.ofMillis(1),
            () -> calls.incrementAndGet() < 4 ? Optional.empty() : Optional.of("found"));
    assertThat(value).isEqualTo("found");
    assertThat(calls).hasValue(4);
  }

  @Test
  void timesOutNamingWhatItWaitedFor() {
    long start = System.nanoTime();
    assertThatThrownBy(() -> Wait.until("the moon", Duration.ofMillis(200), () -> false))
        .isInstanceOf(WaitTimeoutException.class)
        .hasMessageContaining("waiting for the moon");
    assertThat(Duration.ofNanos(System.nanoTime() - start))
        .isBetween(Duration.ofMillis(200), Duration.ofSeconds(5));
  }

  @Test
  void checksOnceEvenWithAZeroTimeout() {
    AtomicInteger calls = new AtomicInteger();
    Wait.until("true", Duration.ZERO, () -> calls.incrementAndGet() > 0);
    assertThat(calls).hasValue(1);
  }

  @Test
  void aFailingConditionEndsTheWait() {
    assertThatThrownBy(
            () ->
                Wait.until(
                    "a failure",
                    Duration.ofSeconds(5),
                    () -> {
                      throw new IllegalStateException("broken probe");
                    }))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("broken probe");
  }
}
