package net.cheetah.jobs.links;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import net.cheetah.analytics.links.BinRing;
import net.cheetah.analytics.links.CheetahSpan;
import net.cheetah.analytics.links.LinkStatsSchedule;
import net.cheetah.analytics.links.LinkWindow;
import net.cheetah.config.CheetahConfig;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.metrics.Counter;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.util.Collector;

/**
 * Per link: keeps the last T2 (+ lateness) of T1 bins and the NetFlow cheetahs on the link, and
 * emits background rate and burstiness for every aligned T2 window and every sliding update
 * (BinRing, LinkStatsSchedule). The link's clock is its newest bin, so no watermark is needed: the
 * probe sends a bin every T1, idle ones included.
 */
public final class LinkStatsFunction extends KeyedProcessFunction<String, LinkInput, LinkWindow> {
  private final CheetahConfig.LinkStats cfg;
  private transient LinkStatsSchedule schedule;
  private transient ValueState<RingState> ring;
  private transient MapState<String, CheetahSpan> spans;
  private transient ValueState<Double> capacity;
  private transient Counter lateBins;
  private transient Counter misalignedBins;

  public LinkStatsFunction(CheetahConfig.LinkStats cfg) {
    this.cfg = cfg;
  }

  @Override
  public void open(OpenContext context) {
    schedule =
        new LinkStatsSchedule(cfg.t1Ms(), cfg.t2Ms(), cfg.slidingEveryMs(), cfg.latenessMs());
    ring =
        getRuntimeContext()
            .getState(new ValueStateDescriptor<>("ring", TypeInformation.of(RingState.class)));
    spans =
        getRuntimeContext()
            .getMapState(
                new MapStateDescriptor<>(
                    "netflow-cheetahs",
                    TypeInformation.of(String.class),
                    TypeInformation.of(CheetahSpan.class)));
    capacity =
        getRuntimeContext()
            .getState(new ValueStateDescriptor<>("capacity-bps", TypeInformation.of(Double.class)));
    lateBins = getRuntimeContext().getMetricGroup().counter("lateBins");
    misalignedBins = getRuntimeContext().getMetricGroup().counter("misalignedBins");
  }

  @Override
  public void processElement(LinkInput in, Context ctx, Collector<LinkWindow> out)
      throws Exception {
    switch (in.kind()) {
      case CAPACITY -> capacity.update(in.rateBps());
      case CHEETAH ->
          spans.put(
              in.flowId(), new CheetahSpan(in.flowId(), in.startMs(), in.endMs(), in.rateBps()));
      case BIN -> onBin(in, out);
    }
  }

  private void onBin(LinkInput bin, Collector<LinkWindow> out) throws Exception {
    if (Math.floorMod(bin.startMs(), cfg.t1Ms()) != 0) {
      misalignedBins.inc();
      return;
    }
    RingState s = ring.value();
    if (s == null) {
      int slots = schedule.ringSlots();
      long[] starts = new long[slots];
      Arrays.fill(starts, Long.MIN_VALUE);
      s =
          new RingState(
              starts,
              new long[slots],
              new long[slots],
              Long.MIN_VALUE,
              schedule.firstTumblingEnd(bin.startMs()),
              schedule.firstSlidingEnd(bin.startMs()));
    }
    BinRing bins =
        new BinRing(cfg.t1Ms(), s.starts(), s.bytes(), s.cheetahBytes(), s.newestStartMs());
    if (!bins.add(bin.startMs(), bin.bytes(), bin.cheetahBytes())) {
      lateBins.inc();
      return;
    }
    long[] next = {s.nextTumblingEnd(), s.nextSlidingEnd()};
    List<LinkStatsSchedule.Due> due = schedule.due(bins.newestStartMs(), next);
    if (!due.isEmpty()) {
      List<CheetahSpan> known = new ArrayList<>();
      for (CheetahSpan span : spans.values()) {
        known.add(span);
      }
      double c = capacity.value() == null ? cfg.capacityBps() : capacity.value();
      for (LinkStatsSchedule.Due d : due) {
        LinkWindow w = bins.window(bin.linkId(), d.fromMs(), d.toMs(), known, c, d.sliding());
        if (w.bins() > 0) {
          out.collect(w);
        }
      }
      pruneSpans(bins.newestStartMs() - (long) schedule.ringSlots() * cfg.t1Ms());
    }
    ring.update(
        new RingState(
            s.starts(), s.bytes(), s.cheetahBytes(), bins.newestStartMs(), next[0], next[1]));
  }

  private void pruneSpans(long oldestKeptMs) throws Exception {
    List<String> gone = new ArrayList<>();
    for (Map.Entry<String, CheetahSpan> e : spans.entries()) {
      if (e.getValue().endMs() < oldestKeptMs) {
        gone.add(e.getKey());
      }
    }
    for (String id : gone) {
      spans.remove(id);
    }
  }
}
