package net.cheetah.threshold;

/** What a loss table was built for: a mean background rate r̄_bg and a burstiness b. */
public record BackgroundTag(double meanBgBps, double burstiness) {
  public BackgroundTag {
    if (!(meanBgBps >= 0) || !(burstiness >= 0)) {
      throw new IllegalArgumentException(
          "a tag needs r_bg >= 0 and burstiness >= 0, got " + meanBgBps + ", " + burstiness);
    }
  }

  /** Whether this tag is within ε_r of the other's mean rate and within ε_b of its burstiness. */
  public boolean isWithin(BackgroundTag other, double epsilonRateBps, double epsilonBurstiness) {
    return Math.abs(meanBgBps - other.meanBgBps) <= epsilonRateBps
        && Math.abs(burstiness - other.burstiness) <= epsilonBurstiness;
  }
}
