package net.cheetah.jobs.throughput;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import net.cheetah.analytics.throughput.HostPair;
import net.cheetah.analytics.throughput.HostSample;
import net.cheetah.analytics.throughput.Prca;
import net.cheetah.analytics.throughput.Transfer;
import net.cheetah.config.CheetahConfig;
import net.cheetah.jobs.flink.KeyedBytes;
import net.cheetah.schemas.v1.Alert;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.state.ReadOnlyBroadcastState;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.metrics.Counter;
import org.apache.flink.streaming.api.functions.co.KeyedBroadcastProcessFunction;
import org.apache.flink.util.Collector;

/**
 * The throughput job's PRCA operator, keyed by peer group (the sites of sender and receiver, {@link
 * #peerGroup}): each transfer waits until event time reaches its end; then, in start order, it
 * joins the group's kept transfers and PRCA runs again over them and the host samples
 * (transfers.hosts.v1, broadcast to every group: a host may be in several). Event time is the
 * lesser of the transfers' and the samples', so the samples taken during a transfer are in before
 * it is judged. Published to alerts.v1: the report of the new transfer's cluster when it is slow
 * against the group's reference, and the network reports of the transfers within
 * throughput.peer-window-ms of it (its arrival can make them all slow together). Kept per host
 * pair: its latest throughput.history transfers; per host (in every group): its latest
 * throughput.history samples.
 */
public final class PrcaFunction
    extends KeyedBroadcastProcessFunction<String, Transfer, HostSample, KeyedBytes> {
  /** The host samples, by host: broadcast state. */
  public static final MapStateDescriptor<String, List<HostSample>> SAMPLES =
      new MapStateDescriptor<>(
          "host-samples", Types.STRING, Types.LIST(TypeInformation.of(HostSample.class)));

  private final CheetahConfig.Throughput cfg;
  private transient Prca prca;
  private transient ListState<Transfer> pending;
  private transient ListState<Transfer> kept;
  private transient Counter reports;

  public PrcaFunction(CheetahConfig.Throughput cfg) {
    this.cfg = cfg;
  }

  /** The peer group of a transfer: the sites of its hosts (a host that is no address: itself). */
  public static String peerGroup(CheetahConfig.Throughput cfg, Transfer t) {
    Prca p =
        new Prca(
            cfg.slowFraction(), cfg.saturatedPercent(), cfg.peerWindowMs(), cfg.sitePrefixV4());
    return site(p, t.src()) + "\n" + site(p, t.dst());
  }

  private static String site(Prca p, String host) {
    try {
      return p.site(host);
    } catch (RuntimeException e) {
      return host; // looks like an address but is none (999.1.1.1): a site of its own
    }
  }

  @Override
  public void open(OpenContext ctx) {
    prca =
        new Prca(
            cfg.slowFraction(), cfg.saturatedPercent(), cfg.peerWindowMs(), cfg.sitePrefixV4());
    pending =
        getRuntimeContext().getListState(new ListStateDescriptor<>("pending", Transfer.class));
    kept = getRuntimeContext().getListState(new ListStateDescriptor<>("kept", Transfer.class));
    reports = getRuntimeContext().getMetricGroup().counter("prcaReportsOut");
  }

  @Override
  public void processBroadcastElement(HostSample s, Context ctx, Collector<KeyedBytes> out)
      throws Exception {
    List<HostSample> held = ctx.getBroadcastState(SAMPLES).get(s.host());
    List<HostSample> now = new ArrayList<>(held == null ? List.of() : held);
    // Shipped again (at least once): a host's sample at one time counts once.
    if (now.stream().anyMatch(h -> h.ms() == s.ms())) {
      return;
    }
    now.add(s);
    now.sort(Comparator.comparingLong(HostSample::ms));
    int keep = cfg.history();
    ctx.getBroadcastState(SAMPLES)
        .put(
            s.host(),
            now.size() > keep ? List.copyOf(now.subList(now.size() - keep, now.size())) : now);
  }

  @Override
  public void processElement(Transfer t, ReadOnlyContext ctx, Collector<KeyedBytes> out)
      throws Exception {
    // transfers.v1 is at least once: a transfer (hosts and start) counts once.
    for (ListState<Transfer> held : List.of(pending, kept)) {
      for (Transfer h : held.get()) {
        if (h.startMs() == t.startMs() && h.pair().equals(t.pair())) {
          return;
        }
      }
    }
    pending.add(t);
    ctx.timerService().registerEventTimeTimer(t.endMs());
  }

  @Override
  public void onTimer(long time, OnTimerContext ctx, Collector<KeyedBytes> out) throws Exception {
    long now = Math.max(time, ctx.timerService().currentWatermark());
    List<Transfer> ready = new ArrayList<>();
    List<Transfer> later = new ArrayList<>();
    for (Transfer t : pending.get()) {
      (t.endMs() <= now ? ready : later).add(t);
    }
    if (ready.isEmpty()) {
      return;
    }
    pending.update(later);
    ready.sort(
        Comparator.comparingLong(Transfer::startMs)
            .thenComparing(Transfer::pair)
            .thenComparing(Transfer::tool));
    List<Transfer> all = new ArrayList<>();
    kept.get().forEach(all::add);
    int keep = cfg.history();
    for (Transfer t : ready) {
      all.add(t);
      all = trimmed(all, t.pair(), keep);
      for (Prca.Report r : prca.analyse(all, samples(ctx.getBroadcastState(SAMPLES), all))) {
        boolean mine =
            r.scope() == Prca.Scope.CLUSTER
                ? r.cluster().transfers().contains(t)
                : Math.abs(r.startMs() - t.startMs()) <= cfg.peerWindowMs();
        if (mine) {
          Alert a = Alerts.prca(r, t.endMs());
          HostPair p = r.cluster().pair();
          out.collect(new KeyedBytes(ThroughputInput.keyBytes(p.src(), p.dst()), a.toByteArray()));
          reports.inc();
        }
      }
    }
    kept.update(all);
  }

  /** The samples of the hosts of {@code transfers}. */
  private static List<HostSample> samples(
      ReadOnlyBroadcastState<String, List<HostSample>> state, List<Transfer> transfers)
      throws Exception {
    java.util.Set<String> hosts = new java.util.TreeSet<>();
    for (Transfer t : transfers) {
      hosts.add(t.src());
      hosts.add(t.dst());
    }
    List<HostSample> out = new ArrayList<>();
    for (String h : hosts) {
      List<HostSample> of = state.get(h);
      if (of != null) {
        out.addAll(of);
      }
    }
    return out;
  }

  /** {@code all} with only the latest {@code keep} transfers (by start) of {@code pair}. */
  private static List<Transfer> trimmed(List<Transfer> all, HostPair pair, int keep) {
    List<Transfer> ofPair =
        all.stream()
            .filter(t -> t.pair().equals(pair))
            .sorted(Comparator.comparingLong(Transfer::startMs))
            .toList();
    if (ofPair.size() <= keep) {
      return all;
    }
    List<Transfer> drop = ofPair.subList(0, ofPair.size() - keep);
    List<Transfer> out = new ArrayList<>(all);
    for (Transfer d : drop) {
      out.remove(d);
    }
    return out;
  }
}
