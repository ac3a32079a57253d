package net.cheetah.jobs.cheetah;

import java.util.ArrayList;
import java.util.List;
import net.cheetah.analytics.CheetahDetector;
import net.cheetah.config.CheetahConfig.Detection;
import net.cheetah.core.flow.CheetahEvent;
import net.cheetah.core.flow.Flow;
import net.cheetah.core.flow.FlowKey;
import net.cheetah.core.flow.StitchedFlow;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.metrics.Counter;
import org.apache.flink.runtime.state.KeyedStateBackend;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.api.operators.sorted.state.BatchExecutionKeyedStateBackend;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.util.ExceptionUtils;

/**
 * The cheetah operator: a thin Flink shell around {@link CheetahDetector}, on a keyed stream of
 * flow records. Records of a key are held until event time reaches their end and then fed in start
 * order, so the streaming result does not depend on arrival order and equals the batch result
 * (where a key is processed once, at the end of its input).
 *
 * <p>State (docs/BENCHMARKS.md, "Bottlenecks seen" 1): one entry per key ({@link CheetahKeyState},
 * written by {@link CheetahKeyStateSerializer}). A key is due at the earliest time anything of it
 * is: the first end among its pending records, or the flow's close time. When a watermark passes
 * that time the key is processed with "now" = the watermark, and its events carry the due time as
 * their timestamp; this is what the former operator did with one Flink event-time timer per key
 * (CheetahOperatorEquivalenceTest holds it to the one before, with a timer per record). The
 * schedule is a {@link DueIndex}, not Flink's timer service: no timer heap to keep sorted per
 * record and nothing but the keyed state to checkpoint; it is rebuilt from the state on restore.
 */
public final class CheetahOperator extends AbstractStreamOperator<CheetahEvent>
    implements OneInputStreamOperator<Flow, CheetahEvent> {
  private static final long serialVersionUID = 1L;
  private static final long NONE = Long.MAX_VALUE;
  static final String STATE = "cheetah";

  private final Detection detection;
  private transient CheetahDetector detector;
  private transient ValueState<CheetahKeyState> state;
  private transient DueIndex<FlowKey> schedule;
  private transient long watermark;
  private transient boolean batch;
  private transient StreamRecord<CheetahEvent> out;
  private transient List<Flow> ready;
  private transient Counter recordsIn;
  private transient Counter lateRecords;
  private transient Counter cheetahsStarted;
  private transient Counter cheetahsEnded;

  public CheetahOperator(Detection detection) {
    this.detection = detection;
  }

  @Override
  public void open() throws Exception {
    super.open();
    detector = new CheetahDetector(detection);
    state =
        getRuntimeContext()
            .getState(new ValueStateDescriptor<>(STATE, CheetahKeyStateSerializer.INSTANCE));
    schedule = new DueIndex<>();
    watermark = Long.MIN_VALUE;
    out = new StreamRecord<>(null);
    ready = new ArrayList<>();
    var g = getMetricGroup();
    recordsIn = g.counter("flowRecordsIn");
    lateRecords = g.counter("lateFlowRecords");
    cheetahsStarted = g.counter("cheetahsStarted");
    cheetahsEnded = g.counter("cheetahsEnded");
    batch = getKeyedStateBackend() instanceof BatchExecutionKeyedStateBackend<?>;
    if (batch) {
      // Batch execution keeps one key's state at a time, input sorted by key: a key's input is
      // complete when the next key is selected, and it is processed then (as Flink's batch timer
      // service fires a key's timers), with event time at its end.
      this.<FlowKey>getKeyedStateBackend()
          .registerKeySelectionListener(
              next -> {
                try {
                  schedule.drain(NONE, this::process);
                } catch (Exception e) {
                  ExceptionUtils.rethrow(e);
                }
              });
    } else {
      KeyedStateBackend<FlowKey> backend = getKeyedStateBackend();
      List<FlowKey> keys = backend.getKeys(STATE, VoidNamespace.INSTANCE).toList();
      for (FlowKey k : keys) { // restored: every key with state is due somewhen
        setCurrentKey(k);
        CheetahKeyState s = state.value();
        if (s != null) {
          schedule.add(k, due(s));
        }
      }
    }
  }

  @Override
  public void processElement(StreamRecord<Flow> element) throws Exception {
    Flow r = element.getValue();
    recordsIn.inc();
    if (r.endMs() <= watermark) {
      lateRecords.inc();
    }
    CheetahKeyState s = state.value();
    if (s == null) {
      s = new CheetahKeyState();
    }
    long was = due(s);
    s.addPending(r);
    if (r.endMs() < was) {
      schedule.add(r.key(), r.endMs());
    }
    state.update(s);
  }

  @Override
  public void processWatermark(Watermark mark) throws Exception {
    watermark = Math.max(watermark, mark.getTimestamp());
    schedule.drain(watermark, this::process);
    super.processWatermark(mark);
  }

  /**
   * The key's entry due at {@code t} came up: feeds what is due by the watermark, closes if due.
   */
  private void process(FlowKey key, long t) throws Exception {
    setCurrentKey(key);
    CheetahKeyState s = state.value();
    if (s == null || due(s) != t) {
      return; // stale: the key was processed or moved since this entry was added
    }
    // In batch execution the key's input is over when it is processed.
    long now = batch ? NONE : Math.max(t, watermark);
    out.setTimestamp(t);
    StitchedFlow f = s.flow;
    if (f != null) {
      f.key = key;
    }
    ready.clear();
    for (int i = 0; i < s.pendingCount; i++) {
      if (s.pendingEnd(i) <= now) {
        ready.add(s.pendingFlow(key, i));
      }
    }
    if (!ready.isEmpty()) {
      ready.sort(CheetahDetector.FEED_ORDER);
      s.retainPending(i -> s.pendingEnd(i) > now);
      for (Flow r : ready) {
        f = detector.onRecord(f, r, this::emit);
      }
    }
    if (f != null && now >= detector.closeTime(f)) {
      detector.onEnd(f, detector.closeTime(f), this::emit);
      f = null;
    }
    if (f != null) {
      f.key = null; // the state key; not kept twice
    }
    s.flow = f;
    if (s.isEmpty()) {
      state.clear();
    } else {
      state.update(s);
      schedule.add(key, due(s));
    }
  }

  /** When the key is due next: its first pending end, or its flow's close time. */
  private long due(CheetahKeyState s) {
    long d = s.earliestPendingEnd();
    return s.flow == null ? d : Math.min(d, detector.closeTime(s.flow));
  }

  private void emit(CheetahEvent e) {
    if (e.kind() == CheetahEvent.Kind.START) {
      cheetahsStarted.inc();
    } else if (e.kind() == CheetahEvent.Kind.END) {
      cheetahsEnded.inc();
    }
    output.collect(out.replace(e));
  }

  /** Entries in the schedule, stale ones included (for tests). */
  long scheduled() {
    return schedule.size();
  }
}
