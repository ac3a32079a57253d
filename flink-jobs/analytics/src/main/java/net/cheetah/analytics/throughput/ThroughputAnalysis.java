package net.cheetah.analytics.throughput;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import net.cheetah.config.CheetahConfig;

/**
 * Every throughput analysis of docs/ARCHITECTURE.md, "Transfer throughput", over one batch of
 * streams (flows), logged transfers and host samples: what `cheetah throughput` writes.
 */
public final class ThroughputAnalysis {
  /** The source of a series of passive throughputs (formula 1 of the application instances). */
  public static final String NETFLOW = "netflow";

  private final CheetahConfig.Throughput cfg;

  public ThroughputAnalysis(CheetahConfig.Throughput cfg) {
    this.cfg = cfg;
  }

  /** One series: a host pair's throughputs from one source (a tool, or {@link #NETFLOW}). */
  public record Series(
      HostPair pair,
      String source,
      List<Forecasts.Observation> observations,
      Forecasts.Series forecasts,
      DiurnalFit.WeekFits diurnal,
      List<StepDetector.Step> steps) {}

  /** All results. */
  public record Result(
      List<Instance> instances,
      List<ActivePassive.Match> matches,
      List<ActivePassive.Agreement> agreements,
      List<Series> series,
      List<Prca.Report> prca) {}

  public Result run(List<FlowStream> streams, List<Transfer> transfers, List<HostSample> samples) {
    AppInstances grouping =
        new AppInstances(cfg.instanceWindowMs(), cfg.longFlowFactor(), cfg.controlFraction());
    List<Instance> instances = grouping.group(streams);
    List<ActivePassive.Match> matches = ActivePassive.match(transfers, instances);
    List<ActivePassive.Agreement> agreements = ActivePassive.compare(matches);
    record Key(HostPair pair, String source) {}
    Map<Key, List<Forecasts.Observation>> bySeries =
        new TreeMap<>(
            Comparator.comparing(Key::pair).thenComparing(Key::source, String::compareTo));
    for (Transfer t : transfers) {
      if (Double.isFinite(t.activeBps())) {
        bySeries
            .computeIfAbsent(new Key(t.pair(), t.tool()), k -> new ArrayList<>())
            .add(new Forecasts.Observation(t.startMs(), t.activeBps()));
      }
    }
    for (Instance i : instances) {
      if (Double.isFinite(i.sumStreamBps())) {
        bySeries
            .computeIfAbsent(new Key(i.pair(), NETFLOW), k -> new ArrayList<>())
            .add(new Forecasts.Observation(i.startMs(), i.sumStreamBps()));
      }
    }
    Forecasts forecasts =
        new Forecasts(cfg.forecastWindow(), cfg.ewmaWeight(), cfg.forecastBandSd());
    DiurnalFit diurnal = new DiurnalFit(cfg.diurnalMaxDb());
    StepDetector steps = new StepDetector(cfg.stepWindow(), cfg.stepMinT(), cfg.stepMinChange());
    List<Series> series = new ArrayList<>();
    bySeries.forEach(
        (k, obs) -> {
          obs.sort(Comparator.comparingLong(Forecasts.Observation::ms));
          series.add(
              new Series(
                  k.pair(),
                  k.source(),
                  List.copyOf(obs),
                  forecasts.run(obs),
                  diurnal.fitWeek(obs),
                  steps.find(obs)));
        });
    Prca prca =
        new Prca(
            cfg.slowFraction(), cfg.saturatedPercent(), cfg.peerWindowMs(), cfg.sitePrefixV4());
    return new Result(instances, matches, agreements, series, prca.analyse(transfers, samples));
  }
}
