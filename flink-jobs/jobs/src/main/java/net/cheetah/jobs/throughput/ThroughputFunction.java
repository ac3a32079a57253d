package net.cheetah.jobs.throughput;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import net.cheetah.analytics.throughput.AppInstances;
import net.cheetah.analytics.throughput.FlowStream;
import net.cheetah.analytics.throughput.HostPair;
import net.cheetah.analytics.throughput.Instance;
import net.cheetah.analytics.throughput.StreamStitcher;
import net.cheetah.analytics.throughput.ThroughputAnalysis;
import net.cheetah.analytics.throughput.Transfer;
import net.cheetah.config.CheetahConfig;
import net.cheetah.core.flow.Flow;
import net.cheetah.core.flow.FlowKey;
import net.cheetah.jobs.flink.KeyedBytes;
import net.cheetah.schemas.v1.Throughput;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeutils.base.StringSerializer;
import org.apache.flink.metrics.Counter;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.util.Collector;
import org.apache.flink.util.OutputTag;

/**
 * The throughput job's host-pair operator (keyed by sender, newline, receiver): flow records into
 * streams and application instances, each published on throughput.v1 with its three passive
 * throughputs (passive = true), each logged transfer likewise (passive = false), both with the
 * forecasts and diurnal fit of their series; forecast-band violations and steps go to alerts.v1
 * ({@link #ALERTS}).
 *
 * <p>Flow records wait until event time shows their instance complete: no new member can start
 * within the instance window of its first, and no member can be continued (a continuation record
 * comes at most detection.gap-ms + detection.active-timeout-ms after the end so far, as the cheetah
 * detector's close time): close = max(first start + window, latest end + G) + active timeout.
 * Instances are published in start order, so a pair's series sees them as the offline command
 * orders them. Transfers wait until event time reaches their end and are taken in start order. A
 * flow record arriving after its instance was published starts an instance of its own (counted as
 * lateFlowRecords). A transfer this pair had already (same start, as the warehouse keys it:
 * transfers.v1 is at least once) is dropped (duplicateTransfers).
 *
 * <p>State per pair: the records of its open instances and unfinished transfers, and per series
 * (netflow, each tool) the latest {@link SeriesTracker#kept} observations and the EWMA, forgotten
 * after throughput.pair-ttl-days of event time without an observation. Whenever the pair is looked
 * at, the records of each open stream are kept as one (the stream's hull: first start, latest end,
 * summed bytes and packets), which stitches into the same stream: a long flow holds one record, not
 * one per active timeout. One event-time timer per pair waits for its records (the earliest close
 * of a record arrived since, or of the first open instance), not one per record. Records and series
 * are written by hand ({@link FlowSerializer}, {@link SeriesStateSerializer}); what a savepoint of
 * the operator before them holds ("flows", "series": Flink's record serializer) is moved over when
 * its pair is next looked at.
 */
public final class ThroughputFunction
    extends KeyedProcessFunction<String, ThroughputInput, KeyedBytes> {
  private static final long DAY_MS = 86_400_000L;

  public static final OutputTag<KeyedBytes> ALERTS =
      new OutputTag<>("alerts", TypeInformation.of(KeyedBytes.class));

  private final CheetahConfig.Throughput cfg;
  private final long gapMs;
  private final long activeTimeoutMs;
  private transient AppInstances grouping;
  private transient SeriesTracker tracker;
  private transient ListState<Flow> flows;
  private transient ListState<Flow> oldFlows;
  private transient MapState<String, SeriesState> oldSeries;
  private transient ValueState<Long> flowTimer;
  private transient ListState<Transfer> transfers;
  private transient MapState<String, SeriesState> series;
  private transient Counter lateFlowRecords;
  private transient Counter duplicateTransfers;
  private transient Counter pairsExpired;
  private transient Counter instancesOut;
  private transient Counter transfersOut;
  private transient Counter alertsOut;

  public ThroughputFunction(CheetahConfig.Throughput cfg, CheetahConfig.Detection detection) {
    this.cfg = cfg;
    this.gapMs = detection.gapMs();
    this.activeTimeoutMs = detection.activeTimeoutMs();
  }

  @Override
  public void open(OpenContext ctx) {
    grouping =
        new AppInstances(cfg.instanceWindowMs(), cfg.longFlowFactor(), cfg.controlFraction());
    tracker = new SeriesTracker(cfg);
    flows =
        getRuntimeContext()
            .getListState(new ListStateDescriptor<>("flow-records", FlowSerializer.INSTANCE));
    flowTimer = getRuntimeContext().getState(new ValueStateDescriptor<>("flow-timer", Long.class));
    transfers =
        getRuntimeContext().getListState(new ListStateDescriptor<>("transfers", Transfer.class));
    series =
        getRuntimeContext()
            .getMapState(
                new MapStateDescriptor<>(
                    "series-by-source", StringSerializer.INSTANCE, SeriesStateSerializer.INSTANCE));
    oldFlows = getRuntimeContext().getListState(new ListStateDescriptor<>("flows", Flow.class));
    oldSeries =
        getRuntimeContext()
            .getMapState(new MapStateDescriptor<>("series", String.class, SeriesState.class));
    var g = getRuntimeContext().getMetricGroup();
    lateFlowRecords = g.counter("lateFlowRecords");
    duplicateTransfers = g.counter("duplicateTransfers");
    pairsExpired = g.counter("pairsExpired");
    instancesOut = g.counter("instancesOut");
    transfersOut = g.counter("transfersOut");
    alertsOut = g.counter("alertsOut");
  }

  @Override
  public void processElement(ThroughputInput in, Context ctx, Collector<KeyedBytes> out)
      throws Exception {
    if (in.flow() != null) {
      Flow f = in.flow();
      flows.add(f);
      long close =
          Math.max(f.startMs() + cfg.instanceWindowMs(), f.endMs() + gapMs) + activeTimeoutMs;
      if (close <= ctx.timerService().currentWatermark()) {
        lateFlowRecords.inc();
      }
      // Its instance closes at this record's close or later: a timer no later than that suffices
      // (an instance with an earlier start, which this one waits for, has a timer of its own).
      awaitFlows(close, ctx);
    } else {
      adoptOldState();
      Transfer t = in.transfer();
      if (seen(t)) {
        duplicateTransfers.inc();
        return;
      }
      transfers.add(t);
      ctx.timerService().registerEventTimeTimer(t.endMs());
    }
  }

  @Override
  public void onTimer(long t, OnTimerContext ctx, Collector<KeyedBytes> out) throws Exception {
    // Batch execution fires a key's timers with the watermark at +inf: "now" is the later.
    long now = Math.max(t, ctx.timerService().currentWatermark());
    adoptOldState();
    Long due = flowTimer.value();
    if (due != null && due <= t) {
      flowTimer.clear(); // timers fire in time order: this is it, or it fired before
    }
    String[] pair = ctx.getCurrentKey().split("\n", 2);
    HostPair hosts = new HostPair(pair[0], pair[1]);
    Emitter emit = new Emitter(ctx, out);
    closeTransfers(now, hosts, emit);
    Long next = closeInstances(now, hosts, emit);
    if (next != null) {
      awaitFlows(next, ctx);
    }
    expire(now, ctx);
  }

  /**
   * Moves the pair's records and series out of the states an earlier version kept them in (restored
   * from its savepoint) into this version's; nothing to do for a pair that has none there.
   */
  private void adoptOldState() throws Exception {
    Iterable<Flow> old = oldFlows.get();
    if (old != null && old.iterator().hasNext()) {
      flows.addAll(toList(old));
      oldFlows.clear();
    }
    if (!oldSeries.isEmpty()) {
      for (Map.Entry<String, SeriesState> e : oldSeries.entries()) {
        series.put(e.getKey(), e.getValue());
      }
      oldSeries.clear();
    }
  }

  private static List<Flow> toList(Iterable<Flow> flows) {
    List<Flow> out = new ArrayList<>();
    flows.forEach(out::add);
    return out;
  }

  /** Looks at the pair again at {@code ms}, unless its timer is due earlier. */
  private void awaitFlows(long ms, Context ctx) throws Exception {
    Long due = flowTimer.value();
    if (due == null || ms < due) {
      ctx.timerService().registerEventTimeTimer(ms);
      flowTimer.update(ms);
    }
  }

  private static boolean any(Iterable<?> state) {
    return state != null && state.iterator().hasNext();
  }

  /**
   * Forgets the pair's series once throughput.pair-ttl-days of event time passed since its latest
   * observation with nothing of it waiting; else looks again then (rounded up to a day, so that a
   * pair has a few such timers at most).
   */
  private void expire(long now, OnTimerContext ctx) throws Exception {
    long latest = Long.MIN_VALUE;
    for (SeriesState s : series.values()) {
      if (s.size() > 0) {
        latest = Math.max(latest, s.ms()[s.size() - 1]);
      }
    }
    if (latest == Long.MIN_VALUE) {
      return;
    }
    long ttl = cfg.pairTtlDays() * DAY_MS;
    boolean waiting = any(flows.get()) || any(transfers.get());
    if (now >= latest + ttl && !waiting) {
      series.clear();
      pairsExpired.inc();
    } else {
      ctx.timerService()
          .registerEventTimeTimer(Math.floorDiv(latest + ttl, DAY_MS) * DAY_MS + DAY_MS);
    }
  }

  /**
   * Whether this pair has had a transfer starting then already: transfers.v1 is at least once (a
   * log shipped again sends its records again), and a transfer is its hosts and start, as the
   * warehouse's transfers table keys it. Remembered as long as a tool's series keeps it
   * (throughput.history observations).
   */
  private boolean seen(Transfer t) throws Exception {
    for (Transfer p : transfers.get()) {
      if (p.startMs() == t.startMs()) {
        return true;
      }
    }
    for (Map.Entry<String, SeriesState> e : series.entries()) {
      if (e.getKey().equals(ThroughputAnalysis.NETFLOW)) {
        continue;
      }
      for (long ms : e.getValue().ms()) {
        if (ms == t.startMs()) {
          return true;
        }
      }
    }
    return false;
  }

  private void closeTransfers(long now, HostPair hosts, Emitter emit) throws Exception {
    List<Transfer> ready = new ArrayList<>();
    List<Transfer> later = new ArrayList<>();
    for (Transfer tr : transfers.get()) {
      (tr.endMs() <= now ? ready : later).add(tr);
    }
    if (ready.isEmpty()) {
      return;
    }
    transfers.update(later);
    ready.sort(Comparator.comparingLong(Transfer::startMs).thenComparing(Transfer::tool));
    for (Transfer tr : ready) {
      double bps = tr.activeBps();
      Throughput.Builder row =
          Throughput.newBuilder()
              .setSrcHost(hosts.src())
              .setDstHost(hosts.dst())
              .setStartMs(tr.startMs())
              .setEndMs(tr.endMs())
              .setStreams(tr.streams())
              .setBytes(tr.bytes())
              // A tool reports one rate: it stands in all three columns.
              .setSumStreamBps(bps)
              .setMeanTimeBps(bps)
              .setMaxTimeBps(bps)
              .setPassive(false);
      emit.row(row, observe(hosts, tr.tool(), tr.startMs(), bps, emit));
      transfersOut.inc();
    }
  }

  /** Publishes the complete instances; returns when the first open one can close, if any. */
  private Long closeInstances(long now, HostPair hosts, Emitter emit) throws Exception {
    Map<FlowKey, List<Flow>> byKey = new HashMap<>();
    for (Flow f : flows.get()) {
      byKey.computeIfAbsent(f.key(), k -> new ArrayList<>()).add(f);
    }
    if (byKey.isEmpty()) {
      return null;
    }
    // Each stream with the records it was stitched from: one key's streams never overlap, and a
    // record lies within the stream it continues.
    Map<FlowStream, List<Flow>> records = new IdentityHashMap<>();
    List<FlowStream> streams = new ArrayList<>();
    for (List<Flow> list : byKey.values()) {
      for (FlowStream s : StreamStitcher.stitch(list, gapMs)) {
        List<Flow> mine = new ArrayList<>();
        for (Flow f : list) {
          if (f.startMs() >= s.startMs() && f.startMs() <= s.endMs()) {
            mine.add(f);
          }
        }
        records.put(s, mine);
        streams.add(s);
      }
    }
    List<Flow> open = new ArrayList<>();
    Long next = null;
    for (List<FlowStream> members : grouping.members(streams)) {
      long close = members.get(0).startMs() + cfg.instanceWindowMs();
      for (FlowStream s : members) {
        close = Math.max(close, s.endMs() + gapMs);
      }
      close += activeTimeoutMs;
      if (next == null && now >= close) {
        publish(grouping.instance(hosts, members), hosts, emit);
      } else {
        // Later instances wait for the first open one: a pair's instances go out in start order.
        next = next == null ? close : next;
        members.forEach(s -> open.add(hull(records.get(s))));
      }
    }
    flows.update(open);
    return next;
  }

  /**
   * The records of one stream as one record: the same key, first start, latest end, summed bytes
   * and packets. It stitches into the same stream as they did (its start and end are theirs, and a
   * record continuing any of them continues it).
   */
  static Flow hull(List<Flow> records) {
    Flow first = records.get(0);
    if (records.size() == 1) {
      return first;
    }
    long start = Long.MAX_VALUE;
    long end = Long.MIN_VALUE;
    long bytes = 0;
    long packets = 0;
    for (Flow f : records) {
      start = Math.min(start, f.startMs());
      end = Math.max(end, f.endMs());
      bytes += f.bytes();
      packets += f.packets();
    }
    return new Flow(first.key(), start, end, bytes, packets, first.srcAs(), first.dstAs());
  }

  private void publish(Instance i, HostPair hosts, Emitter emit) throws Exception {
    Throughput.Builder row =
        Throughput.newBuilder()
            .setSrcHost(hosts.src())
            .setDstHost(hosts.dst())
            .setStartMs(i.startMs())
            .setEndMs(i.endMs())
            .setStreams(i.streamCount())
            .setBytes(i.bytes())
            .setSumStreamBps(i.sumStreamBps())
            .setMeanTimeBps(i.meanTimeBps())
            .setMaxTimeBps(i.maxTimeBps())
            .setPassive(true);
    emit.row(row, observe(hosts, ThroughputAnalysis.NETFLOW, i.startMs(), i.sumStreamBps(), emit));
    instancesOut.inc();
  }

  /** Adds an observation to its series and sends its alerts; null when it has no rate. */
  private SeriesTracker.Update observe(
      HostPair hosts, String source, long ms, double bps, Emitter emit) throws Exception {
    if (!Double.isFinite(bps)) {
      return null;
    }
    SeriesState s = series.get(source);
    SeriesTracker.Update u = tracker.observe(s == null ? SeriesState.empty() : s, ms, bps);
    series.put(source, u.next());
    if (u.forecast().outsideBand()) {
      emit.alert(Alerts.outsideBand(hosts, source, u.forecast(), cfg.forecastBandSd()));
    }
    u.step().ifPresent(st -> emit.alert(Alerts.step(hosts, source, st)));
    return u;
  }

  /** Where rows and alerts go. */
  private final class Emitter {
    private final OnTimerContext ctx;
    private final Collector<KeyedBytes> out;

    Emitter(OnTimerContext ctx, Collector<KeyedBytes> out) {
      this.ctx = ctx;
      this.out = out;
    }

    void row(Throughput.Builder row, SeriesTracker.Update u) {
      double nan = Double.NaN;
      row.setForecastMean5Bps(u == null ? nan : u.forecast().mean())
          .setForecastEwmaBps(u == null ? nan : u.forecast().ewma())
          .setDiurnalA(u == null ? nan : u.fit().a())
          .setDiurnalB(u == null ? nan : u.fit().b())
          .setDiurnalC(u == null ? nan : u.fit().c());
      out.collect(
          new KeyedBytes(
              ThroughputInput.keyBytes(row.getSrcHost(), row.getDstHost()),
              row.build().toByteArray()));
    }

    void alert(net.cheetah.schemas.v1.Alert a) {
      ctx.output(
          ALERTS,
          new KeyedBytes(
              ThroughputInput.keyBytes(a.getSrcHost(), a.getDstHost()), a.toByteArray()));
      alertsOut.inc();
    }
  }
}
