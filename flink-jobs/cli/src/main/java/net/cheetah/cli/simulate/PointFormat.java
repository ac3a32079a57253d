package net.cheetah.cli.simulate;

import java.util.Locale;
import net.cheetah.simulator.Estimate;
import net.cheetah.simulator.PointResult;
import net.cheetah.simulator.Scenario;
import net.cheetah.simulator.TcpCheetah;

/** Prints a point's aggregates as a table row or as one JSON line. */
final class PointFormat {
  private PointFormat() {}

  static String header(boolean ratio) {
    return String.format(
        Locale.ROOT,
        "%12s %7s %8s %8s %5s  %-24s %-22s %-16s%s",
        "cheetah_Mbps",
        "rtt_ms",
        "lambda",
        "redirect",
        "runs",
        "bg_loss (mean ± ci95)",
        "cheetah_Mbps (± ci95)",
        "burstiness",
        ratio ? " thr_ratio (± ci95)" : "");
  }

  static String row(PointResult p, double lambda) {
    Scenario s = p.scenario();
    TcpCheetah c = s.cheetah().orElseThrow();
    String ratio =
        p.throughputRatio()
            .map(r -> String.format(Locale.ROOT, " %.4f ± %.4f", r.mean(), r.halfWidth95()))
            .orElse("");
    return String.format(
        Locale.ROOT,
        "%12.1f %7.1f %8s %8s %5d  %-24s %-22s %-16s%s",
        c.rateLimitBps() / 1e6,
        c.rttSeconds() * 1e3,
        Double.isNaN(lambda) ? "replay" : String.format(Locale.ROOT, "%.1f", lambda),
        s.redirect() ? "yes" : "no",
        p.runs().size(),
        String.format(
            Locale.ROOT, "%.3e ± %.1e", p.bgLossRate().mean(), p.bgLossRate().halfWidth95()),
        String.format(
            Locale.ROOT,
            "%.1f ± %.1f",
            p.cheetahThroughputBps().mean() / 1e6,
            p.cheetahThroughputBps().halfWidth95() / 1e6),
        String.format(
            Locale.ROOT, "%.3f ± %.3f", p.bgBurstiness().mean(), p.bgBurstiness().halfWidth95()),
        ratio);
  }

  static String json(PointResult p, double lambda) {
    Scenario s = p.scenario();
    TcpCheetah c = s.cheetah().orElseThrow();
    StringBuilder b = new StringBuilder("{");
    b.append(String.format(Locale.ROOT, "\"cheetah_rate_bps\":%s", num(c.rateLimitBps())));
    b.append(String.format(Locale.ROOT, ",\"rtt_ms\":%s", num(c.rttSeconds() * 1e3)));
    b.append(",\"lambda\":").append(Double.isNaN(lambda) ? "null" : num(lambda));
    b.append(",\"redirect\":").append(s.redirect());
    b.append(",\"cc\":\"").append(c.congestionControl().name().toLowerCase(Locale.ROOT));
    b.append("\",\"runs\":").append(p.runs().size());
    b.append(",\"events\":").append(p.events());
    b.append(",\"bg_loss_rate\":").append(est(p.bgLossRate()));
    b.append(",\"cheetah_throughput_bps\":").append(est(p.cheetahThroughputBps()));
    b.append(",\"bg_burstiness\":").append(est(p.bgBurstiness()));
    b.append(",\"bg_mean_delay_s\":").append(est(p.bgMeanDelaySeconds()));
    b.append(",\"cheetah_mean_delay_s\":").append(est(p.cheetahMeanDelaySeconds()));
    p.throughputRatio().ifPresent(r -> b.append(",\"throughput_ratio\":").append(est(r)));
    return b.append('}').toString();
  }

  private static String est(Estimate e) {
    return "{\"mean\":"
        + num(e.mean())
        + ",\"ci95\":"
        + num(e.halfWidth95())
        + ",\"low\":"
        + num(e.low())
        + ",\"high\":"
        + num(e.high())
        + "}";
  }

  private static String num(double v) {
    if (v == Math.rint(v) && Math.abs(v) < 1e15) {
      return Long.toString((long) v);
    }
    return Double.toString(v);
  }
}
