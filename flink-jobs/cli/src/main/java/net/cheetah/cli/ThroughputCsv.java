package net.cheetah.cli;

import java.io.IOException;
import java.io.Writer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import net.cheetah.analytics.throughput.ActivePassive;
import net.cheetah.analytics.throughput.DiurnalFit;
import net.cheetah.analytics.throughput.Forecasts;
import net.cheetah.analytics.throughput.Instance;
import net.cheetah.analytics.throughput.Prca;
import net.cheetah.analytics.throughput.StepDetector;
import net.cheetah.analytics.throughput.ThroughputAnalysis;

/**
 * The CSV files of `cheetah throughput` (times in epoch ms, rates in bit/s, undefined values
 * empty); their columns are documented in the README ("Transfer throughput offline").
 */
final class ThroughputCsv {
  static final String INSTANCES =
      "src,dst,start_ms,end_ms,streams,control_flows,long_flows,bytes,sum_stream_bps,mean_time_bps,max_time_bps,tool,active_bps";
  static final String COMPARISON = "src,dst,tool,formula,n,err_median,err_mean_abs,r,best_for_tool";
  static final String FORECASTS =
      "src,dst,source,time_ms,observed_bps,mean_bps,sd_bps,ewma_bps,outside_band,mean_error,ewma_error";
  static final String DIURNAL =
      "src,dst,source,days,n,a_bps,b_rad,c_bps,da_bps,db_rad,dc_bps,diurnal";
  static final String STEPS = "src,dst,source,time_ms,last_before_ms,before_bps,after_bps,t";
  static final String PRCA =
      "scope,src,dst,tool,streams,buffer_bytes,src_nic_bps,dst_nic_bps,start_ms,end_ms,transfers,bps,"
          + "cluster_median_bps,pair_achievable_bps,reference_src,reference_dst,reference_median_bps,cause,detail";

  private ThroughputCsv() {}

  static void writeAll(Path out, ThroughputAnalysis.Result r) throws IOException {
    Map<Instance, ActivePassive.Match> matched = new java.util.IdentityHashMap<>();
    r.matches().forEach(m -> matched.put(m.instance(), m));
    List<String> rows = new ArrayList<>();
    for (Instance i : r.instances()) {
      ActivePassive.Match m = matched.get(i);
      rows.add(
          row(
              i.pair().src(),
              i.pair().dst(),
              i.startMs(),
              i.endMs(),
              i.streamCount(),
              i.controlFlows(),
              i.longFlows(),
              i.bytes(),
              i.sumStreamBps(),
              i.meanTimeBps(),
              i.maxTimeBps(),
              m == null ? "" : m.transfer().tool(),
              m == null ? Double.NaN : m.transfer().activeBps()));
    }
    write(out.resolve("instances.csv"), INSTANCES, rows);

    rows = new ArrayList<>();
    for (ActivePassive.Agreement a : r.agreements()) {
      rows.add(
          row(
              a.pair().src(),
              a.pair().dst(),
              a.tool(),
              a.formula().number,
              a.n(),
              a.errMedian(),
              a.errMeanAbs(),
              a.r(),
              a.bestForTool()));
    }
    write(out.resolve("comparison.csv"), COMPARISON, rows);

    List<String> forecasts = new ArrayList<>();
    List<String> diurnal = new ArrayList<>();
    List<String> steps = new ArrayList<>();
    for (ThroughputAnalysis.Series s : r.series()) {
      String src = s.pair().src();
      String dst = s.pair().dst();
      for (Forecasts.Forecast f : s.forecasts().rows()) {
        forecasts.add(
            row(
                src,
                dst,
                s.source(),
                f.ms(),
                f.observed(),
                f.mean(),
                f.sd(),
                f.ewma(),
                f.outsideBand(),
                s.forecasts().meanError(),
                s.forecasts().ewmaError()));
      }
      for (String days : List.of("weekday", "weekend")) {
        DiurnalFit.Fit d = days.equals("weekday") ? s.diurnal().weekday() : s.diurnal().weekend();
        if (d.n() > 0) {
          diurnal.add(
              row(
                  src,
                  dst,
                  s.source(),
                  days,
                  d.n(),
                  d.a(),
                  d.b(),
                  d.c(),
                  d.da(),
                  d.db(),
                  d.dc(),
                  d.diurnal()));
        }
      }
      for (StepDetector.Step st : s.steps()) {
        steps.add(
            row(src, dst, s.source(), st.ms(), st.lastBeforeMs(), st.before(), st.after(), st.t()));
      }
    }
    write(out.resolve("forecasts.csv"), FORECASTS, forecasts);
    write(out.resolve("diurnal.csv"), DIURNAL, diurnal);
    write(out.resolve("steps.csv"), STEPS, steps);

    rows = new ArrayList<>();
    for (Prca.Report p : r.prca()) {
      Prca.Settings st = p.cluster().settings();
      rows.add(
          row(
              p.scope().name().toLowerCase(Locale.ROOT),
              p.cluster().pair().src(),
              p.cluster().pair().dst(),
              st.tool(),
              st.streams(),
              st.bufferBytes(),
              st.srcNicBps(),
              st.dstNicBps(),
              p.startMs(),
              p.endMs(),
              p.transfers(),
              p.bps(),
              p.cluster().medianBps(),
              p.pairAchievableBps(),
              p.reference().pair().src(),
              p.reference().pair().dst(),
              p.reference().medianBps(),
              p.cause().name().toLowerCase(Locale.ROOT),
              p.detail()));
    }
    write(out.resolve("prca.csv"), PRCA, rows);
  }

  private static void write(Path file, String header, List<String> rows) throws IOException {
    try (Writer w = Files.newBufferedWriter(file)) {
      w.write(header + "\n");
      for (String r : rows) {
        w.write(r + "\n");
      }
    }
  }

  /** One CSV row: NaN empty, doubles with up to 6 decimals, text quoted when it needs to be. */
  static String row(Object... cells) {
    StringBuilder b = new StringBuilder();
    for (Object c : cells) {
      if (b.length() > 0) {
        b.append(',');
      }
      b.append(cell(c));
    }
    return b.toString();
  }

  private static String cell(Object c) {
    if (c instanceof Double d) {
      return net.cheetah.jobs.throughput.Alerts.bps(d);
    }
    String s = String.valueOf(c);
    if (s.contains(",") || s.contains("\"") || s.contains("\n")) {
      return "\"" + s.replace("\"", "\"\"") + "\"";
    }
    return s;
  }
}
