package net.cheetah.analytics.throughput;

import java.util.List;

/**
 * An application instance: the streams of one host pair that started within the instance window of
 * the first (docs/ARCHITECTURE.md, "Transfer throughput"), with its passive throughput by the three
 * formulas, in bit/s:
 *
 * <ol>
 *   <li>{@link #sumStreamBps}: the sum over streams of bytes / time (streams of zero duration have
 *       no rate and add nothing);
 *   <li>{@link #meanTimeBps}: total bytes / mean stream time;
 *   <li>{@link #maxTimeBps}: total bytes / longest stream time.
 * </ol>
 *
 * A formula whose time is zero is NaN. {@code controlFlows} counts flows too small to be streams
 * (control connections), left out of everything else; {@code longFlows} counts streams flagged as
 * long-flow artefacts.
 */
public record Instance(
    HostPair pair,
    long startMs,
    long endMs,
    List<FlowStream> streams,
    int controlFlows,
    int longFlows,
    long bytes,
    double sumStreamBps,
    double meanTimeBps,
    double maxTimeBps) {

  public int streamCount() {
    return streams.size();
  }

  /** The throughput by formula 1, 2 or 3. */
  public double bps(Formula f) {
    return switch (f) {
      case SUM_STREAM -> sumStreamBps;
      case MEAN_TIME -> meanTimeBps;
      case MAX_TIME -> maxTimeBps;
    };
  }

  /** The three passive throughput formulas, numbered as the study numbers them. */
  public enum Formula {
    SUM_STREAM(1),
    MEAN_TIME(2),
    MAX_TIME(3);

    public final int number;

    Formula(int number) {
      this.number = number;
    }
  }
}
