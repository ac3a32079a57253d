package net.cheetah.runtime;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * Waits for a condition with a deadline and a poll interval, instead of bare sleeps
 * (CONVENTIONS.md, "Tests"). A condition that throws ends the wait with that exception.
 */
public final class Wait {

  public static final Duration DEFAULT_POLL_INTERVAL = Duration.ofMillis(50);

  private Wait() {}

  /** Polls {@code condition} every 50 ms until it holds or {@code timeout} passes. */
  public static void until(String description, Duration timeout, BooleanSupplier condition) {
    until(description, timeout, DEFAULT_POLL_INTERVAL, condition);
  }

  /**
   * Polls {@code condition} until it holds; throws {@link WaitTimeoutException} naming {@code
   * description} once {@code timeout} has passed.
   */
  public static void until(
      String description, Duration timeout, Duration pollInterval, BooleanSupplier condition) {
    forValue(
        description,
        timeout,
        pollInterval,
        () -> condition.getAsBoolean() ? Optional.of(Boolean.TRUE) : Optional.empty());
  }

  /** Polls {@code probe} every 50 ms until it returns a value, and returns that value. */
  public static <T> T forValue(String description, Duration timeout, Supplier<Optional<T>> probe) {
    return forValue(description, timeout, DEFAULT_POLL_INTERVAL, probe);
  }

  /**
   * Polls {@code probe} until it returns a value, and returns it; throws {@link
   * WaitTimeoutException} naming {@code description} once {@code timeout} has passed. The probe is
   * always called at least once, and once more at the deadline.
   */
  public static <T> T forValue(
      String description, Duration timeout, Duration pollInterval, Supplier<Optional<T>> probe) {
    if (timeout.isNegative() || pollInterval.isNegative() || pollInterval.isZero()) {
      throw new IllegalArgumentException(
          "Waiting for " + description + ": timeout must be >= 0 and poll interval > 0");
    }
    long start = System.nanoTime();
    long deadline = start + timeout.toNanos();
    while (true) {
      Optional<T> value = probe.get();
      if (value.isPresent()) {
        return value.get();
      }
      long remaining = deadline - System.nanoTime();
      if (remaining <= 0) {
        throw new WaitTimeoutException(
            "Timed out after "
                + Durations.describe(Duration.ofNanos(System.nanoTime() - start))
                + " waiting for "
                + description);
      }
      try {
        TimeUnit.NANOSECONDS.sleep(Math.min(remaining, pollInterval.toNanos()));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("Interrupted while waiting for " + description, e);
      }
    }
  }
}
