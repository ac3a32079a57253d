package net.cheetah.simulator;

import java.util.Objects;
import java.util.Optional;

/**
 * One simulated setting: the port, its background, an optional cheetah (in the scavenger queue when
 * redirected), how long to run, the warm-up excluded from every statistic, and the bin length T1
 * over which background burstiness is measured.
 */
public record Scenario(
    PortConfig port,
    Background background,
    Optional<TcpCheetah> cheetah,
    boolean redirect,
    double durationSeconds,
    double warmupSeconds,
    double binSeconds) {

  public Scenario {
    Objects.requireNonNull(port, "port");
    Objects.requireNonNull(background, "background");
    Objects.requireNonNull(cheetah, "cheetah");
    if (!(durationSeconds > 0) || Double.isInfinite(durationSeconds)) {
      throw new IllegalArgumentException("run duration must be > 0 s, got " + durationSeconds);
    }
    if (!(warmupSeconds >= 0 && warmupSeconds < durationSeconds)) {
      throw new IllegalArgumentException(
          "warm-up must be >= 0 s and shorter than the run ("
              + durationSeconds
              + " s), got "
              + warmupSeconds);
    }
    if (!(binSeconds > 0) || binSeconds > durationSeconds - warmupSeconds) {
      throw new IllegalArgumentException(
          "burstiness bin T1 must be > 0 s and fit in the measured part of the run, got "
              + binSeconds);
    }
  }

  public double measuredSeconds() {
    return durationSeconds - warmupSeconds;
  }

  public Scenario withCheetah(Optional<TcpCheetah> c) {
    return new Scenario(port, background, c, redirect, durationSeconds, warmupSeconds, binSeconds);
  }

  public Scenario withRedirect(boolean r) {
    return new Scenario(port, background, cheetah, r, durationSeconds, warmupSeconds, binSeconds);
  }

  public Scenario withBackground(Background b) {
    return new Scenario(port, b, cheetah, redirect, durationSeconds, warmupSeconds, binSeconds);
  }
}
