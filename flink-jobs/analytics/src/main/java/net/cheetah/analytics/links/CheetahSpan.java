package net.cheetah.analytics.links;

/**
 * A cheetah flow on a link, as its events tell it: from start to end at a constant rate. Used to
 * take NetFlow-detected cheetahs out of the background (the probe marks its own per bin).
 */
public record CheetahSpan(String flowId, long startMs, long endMs, double rateBps) {

  /** Bytes of this span falling in [fromMs, toMs), at its mean rate. */
  public double bytesIn(long fromMs, long toMs) {
    long overlap = Math.min(endMs, toMs) - Math.max(startMs, fromMs);
    return overlap <= 0 ? 0 : rateBps / 8 * overlap / 1000.0;
  }
}
