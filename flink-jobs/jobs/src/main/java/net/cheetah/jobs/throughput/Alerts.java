package net.cheetah.jobs.throughput;

import java.util.Locale;
import net.cheetah.analytics.throughput.Forecasts;
import net.cheetah.analytics.throughput.HostPair;
import net.cheetah.analytics.throughput.Prca;
import net.cheetah.schemas.v1.Alert;

/**
 * alerts.v1 records of the throughput job (docs/ARCHITECTURE.md, "Transfer throughput"). Kinds as
 * the offline command's CSV files name them: {@code outside_band} (forecasts.csv), {@code step}
 * (steps.csv), {@code prca} (prca.csv). An alert's id says what it is about, so that the same
 * finding published again (a PRCA cluster report after each new transfer of its cluster) replaces
 * the earlier one in the warehouse (alerts: ReplacingMergeTree by alert_id).
 */
public final class Alerts {
  public static final String OUTSIDE_BAND = "outside_band";
  public static final String STEP = "step";
  public static final String PRCA = "prca";
  public static final String WARNING = "warning";

  private Alerts() {}

  /** An observation outside its forecast band: value observed, expected the forecast mean. */
  public static Alert outsideBand(HostPair p, String source, Forecasts.Forecast f, double bandSd) {
    return Alert.newBuilder()
        .setAlertId(String.join("/", OUTSIDE_BAND, p.src(), p.dst(), source, "" + f.ms()))
        .setKind(OUTSIDE_BAND)
        .setSrcHost(p.src())
        .setDstHost(p.dst())
        .setDetectedMs(f.ms())
        .setSeverity(WARNING)
        .setMessage(
            String.format(
                Locale.ROOT,
                "%s: %s bit/s, outside the forecast %s ± %s × %s bit/s",
                source,
                bps(f.observed()),
                bps(f.mean()),
                bps(bandSd),
                bps(f.sd())))
        .setValue(f.observed())
        .setExpected(f.mean())
        .build();
  }

  /** A step change: at its first observation after; value the mean after, expected before. */
  public static Alert step(HostPair p, String source, SeriesTracker.Step s) {
    return Alert.newBuilder()
        .setAlertId(String.join("/", STEP, p.src(), p.dst(), source, "" + s.ms()))
        .setKind(STEP)
        .setSrcHost(p.src())
        .setDstHost(p.dst())
        .setDetectedMs(s.ms())
        .setSeverity(WARNING)
        .setMessage(
            String.format(
                Locale.ROOT,
                "%s: step from %s to %s bit/s after %d (t = %s)",
                source,
                bps(s.before()),
                bps(s.after()),
                s.lastBeforeMs(),
                bps(s.t())))
        .setValue(s.after())
        .setExpected(s.before())
        .build();
  }

  /**
   * A PRCA report found at {@code detectedMs}: value its throughput (a cluster's median, or the
   * transfer's rate), expected the reference cluster's median. Its id: the cluster (pair and
   * settings) for a slow cluster, the transfer (pair, tool and start) for a network report.
   */
  public static Alert prca(Prca.Report r, long detectedMs) {
    HostPair p = r.cluster().pair();
    Prca.Settings s = r.cluster().settings();
    String scope = r.scope().name().toLowerCase(Locale.ROOT);
    String about =
        r.scope() == Prca.Scope.CLUSTER
            ? String.join(
                "/",
                s.tool(),
                "" + s.streams(),
                "" + s.bufferBytes(),
                bps(s.srcNicBps()),
                bps(s.dstNicBps()))
            : s.tool() + "/" + r.startMs();
    return Alert.newBuilder()
        .setAlertId(String.join("/", PRCA, scope, p.src(), p.dst(), about))
        .setKind(PRCA)
        .setSrcHost(p.src())
        .setDstHost(p.dst())
        .setDetectedMs(detectedMs)
        .setSeverity(WARNING)
        .setMessage(
            String.format(
                Locale.ROOT,
                "%s %s: %s (%d transfer(s) of %s, streams %d, from %d to %d; reference %s at %s"
                    + " bit/s)",
                scope,
                r.cause().name().toLowerCase(Locale.ROOT),
                r.detail(),
                r.transfers(),
                s.tool(),
                s.streams(),
                r.startMs(),
                r.endMs(),
                r.reference().pair(),
                bps(r.reference().medianBps())))
        .setValue(r.bps())
        .setExpected(r.reference().medianBps())
        .build();
  }

  /**
   * A rate as the alerts' messages and the offline CSVs (`cheetah throughput`) write it: up to 6
   * decimals, no exponent, NaN empty.
   */
  public static String bps(double v) {
    if (!Double.isFinite(v)) {
      return Double.isNaN(v) ? "" : v > 0 ? "inf" : "-inf";
    }
    String s =
        new java.math.BigDecimal(v)
            .setScale(6, java.math.RoundingMode.HALF_EVEN)
            .stripTrailingZeros()
            .toPlainString();
    return s.equals("-0") ? "0" : s;
  }
}
