package net.cheetah.analytics;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import net.cheetah.config.CheetahConfig.Detection;
import net.cheetah.core.flow.Address;
import net.cheetah.core.flow.CheetahEvent;
import net.cheetah.core.flow.Flow;
import net.cheetah.core.flow.Flowset;
import net.cheetah.core.flow.FlowsetMember;
import net.cheetah.core.flow.StitchedFlow;

/**
 * The cheetah and flowset definitions over a complete input (`cheetah analyze`): what the streaming
 * operators emit once event time has passed the end of all input, computed by driving the same
 * {@link CheetahDetector} and {@link FlowsetGrouper} directly.
 *
 * <p>With every record of a key known, the cheetah operator feeds them in {@link
 * CheetahDetector#FEED_ORDER} and ends the last flow at its close time; with every cheetah of a
 * (src, dst) ended, the flowset operator closes each τ-group at its close time, and no member is
 * late. Not thread-safe: one instance per thread.
 */
public final class BatchAnalysis {
  private final CheetahDetector detector;
  private final FlowsetGrouper grouper;

  public BatchAnalysis(Detection d) {
    this.detector = new CheetahDetector(d);
    this.grouper = new FlowsetGrouper(d.tauMs(), d.flowsetLatenessMs());
  }

  /**
   * Every record of one flow key (any order; {@code records} is sorted in place, stably): the
   * detector's events for them, the last flow ended.
   */
  public void cheetahs(List<Flow> records, Consumer<CheetahEvent> out) {
    records.sort(CheetahDetector.FEED_ORDER);
    StitchedFlow f = null;
    for (Flow r : records) {
      f = detector.onRecord(f, r, out);
    }
    if (f != null) {
      detector.onEnd(f, detector.closeTime(f), out);
    }
  }

  /**
   * Whether records of one flow key holding {@code totalBytes} bytes in all can give any event:
   * {@link #cheetahs} of them emits nothing when not.
   */
  public boolean canBeCheetah(long totalBytes) {
    return detector.canBeCheetah(totalBytes);
  }

  /**
   * The flowsets of one (src, dst) from the END events of its cheetahs (the first END per flow).
   */
  public List<Flowset> flowsets(Address src, Address dst, List<CheetahEvent> ends) {
    Map<String, FlowsetMember> members = new LinkedHashMap<>();
    for (CheetahEvent e : ends) {
      if (e.kind() == CheetahEvent.Kind.END) {
        members.putIfAbsent(e.flowId(), FlowsetMember.of(e));
      }
    }
    List<Flowset> sets = new ArrayList<>();
    for (List<FlowsetMember> g : grouper.closable(members.values(), Long.MAX_VALUE)) {
      long lastStart = g.get(g.size() - 1).startMs();
      sets.add(FlowsetGrouper.toFlowset(src, dst, g, grouper.closeTime(lastStart)));
    }
    return sets;
  }
}
