package net.cheetah.simulator;

/**
 * Background as a Poisson Pareto burst process: bursts start as a Poisson process of rate λ, last a
 * Pareto-distributed time of mean d and shape α = 3 − 2h (h the Hurst parameter), and each sends
 * MTU packets at the constant rate that makes the mean background rate r̄_bg = λ · d · r_burst.
 * Raising λ at fixed r̄_bg superposes more, thinner bursts: the traffic gets less bursty.
 */
public record ParetoBursts(
    double meanRateBps,
    double burstsPerSecond,
    double hurst,
    double meanBurstSeconds,
    int packetBytes)
    implements Background {

  /** The study's background (r̄_bg = 200 Mb/s, h = 0.5, d = 100 ms, 1500 B) at λ bursts/s. */
  public static ParetoBursts study(double burstsPerSecond) {
    return new ParetoBursts(200e6, burstsPerSecond, 0.5, 0.1, 1500);
  }

  public ParetoBursts {
    if (!(meanRateBps > 0) || Double.isInfinite(meanRateBps)) {
      throw new IllegalArgumentException(
          "mean background rate must be > 0 bits/s, got " + meanRateBps);
    }
    if (!(burstsPerSecond > 0) || Double.isInfinite(burstsPerSecond)) {
      throw new IllegalArgumentException(
          "burst arrival rate lambda must be > 0 bursts/s, got " + burstsPerSecond);
    }
    if (!(hurst > 0 && hurst < 1)) {
      throw new IllegalArgumentException(
          "Hurst parameter must be in (0, 1) so that the Pareto shape 3 - 2h exceeds 1 (a finite"
              + " mean burst), got "
              + hurst);
    }
    if (!(meanBurstSeconds > 0) || Double.isInfinite(meanBurstSeconds)) {
      throw new IllegalArgumentException(
          "mean burst duration must be > 0 s, got " + meanBurstSeconds);
    }
    if (packetBytes <= 0) {
      throw new IllegalArgumentException("packet size must be > 0 bytes, got " + packetBytes);
    }
  }

  /** Pareto shape α = 3 − 2h. */
  public double paretoShape() {
    return 3 - 2 * hurst;
  }

  /** Pareto scale (the shortest burst) giving mean d: x_m = d (α − 1) / α. */
  public double paretoScaleSeconds() {
    double alpha = paretoShape();
    return meanBurstSeconds * (alpha - 1) / alpha;
  }

  /** The constant rate of one burst: r̄_bg / (λ d). */
  public double burstRateBps() {
    return meanRateBps / (burstsPerSecond * meanBurstSeconds);
  }

  public ParetoBursts withBurstsPerSecond(double lambda) {
    return new ParetoBursts(meanRateBps, lambda, hurst, meanBurstSeconds, packetBytes);
  }
}
