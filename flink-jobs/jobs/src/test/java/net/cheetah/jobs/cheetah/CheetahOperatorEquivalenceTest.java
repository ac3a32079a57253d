package net.cheetah.jobs.cheetah;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import net.cheetah.config.CheetahConfig.Detection;
import net.cheetah.core.flow.Address;
import net.cheetah.core.flow.CheetahEvent;
import net.cheetah.core.flow.Flow;
import net.cheetah.core.flow.FlowKey;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.streaming.api.operators.KeyedProcessOperator;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.junit.jupiter.api.Test;

/**
 * The operator ({@link CheetahOperator}: packed state, its own schedule) against the one it
 * replaced ({@link LegacyCheetahFunction}: a StitchedFlow and a list of pending records in state,
 * one timer per record), on seeded random inputs: records of a few keys around H, slow and fast,
 * out of order, some late, watermarks between them, and checkpoints restored mid-stream (the packed
 * one only). Every key must get the same events in the same order, each at the same point of the
 * input and with the same timestamp.
 */
class CheetahOperatorEquivalenceTest {
  static final Detection D =
      new Detection(1000, 60_000, 30_000, 10_000, 60_000, 5_000, 0, 20_000, 0);

  sealed interface Step permits Rec, Mark, Checkpoint {}

  record Rec(Flow flow) implements Step {}

  record Mark(long watermark) implements Step {}

  record Checkpoint() implements Step {}

  static List<Step> scenario(Random rnd) {
    int keys = 1 + rnd.nextInt(3);
    List<Flow> flows = new ArrayList<>();
    for (int k = 0; k < keys; k++) {
      FlowKey key =
          new FlowKey(
              Address.parse("192.0.2.1"),
              Address.ofIpv4(0x0A000000 + k),
              Address.parse("198.18.0.1"),
              1000 + k,
              443,
              6);
      long t = rnd.nextInt(120_000);
      int n = 1 + rnd.nextInt(8);
      for (int i = 0; i < n; i++) {
        long start = t + rnd.nextInt(45_000) - 5_000; // gaps around G, some overlaps
        long span = rnd.nextInt(4) == 0 ? 0 : rnd.nextInt(70_000);
        long bytes = rnd.nextInt(3) == 0 ? 500 + rnd.nextInt(900) : rnd.nextInt(400);
        flows.add(new Flow(key, start, start + span, bytes, 1 + bytes / 100, rnd.nextInt(3), 0));
        t = Math.max(t, start + span);
      }
    }
    // Arrival roughly in end order, shuffled locally; watermarks trail the newest end.
    flows.sort((a, b) -> Long.compare(a.endMs() + rnd.nextInt(40_000), b.endMs()));
    List<Step> steps = new ArrayList<>();
    long newest = Long.MIN_VALUE;
    long wm = Long.MIN_VALUE;
    for (Flow f : flows) {
      steps.add(new Rec(f));
      newest = Math.max(newest, f.endMs());
      if (rnd.nextInt(3) == 0) {
        long w = newest - rnd.nextInt(30_000);
        if (w > wm) {
          wm = w;
          steps.add(new Mark(w));
        }
      }
      if (rnd.nextInt(5) == 0) {
        steps.add(new Checkpoint());
      }
    }
    for (int i = 0; i < 4; i++) {
      wm = Math.max(wm, newest) + rnd.nextInt(60_000);
      steps.add(new Mark(wm));
      if (rnd.nextBoolean()) {
        steps.add(new Checkpoint());
      }
    }
    steps.add(new Mark(Long.MAX_VALUE));
    return steps;
  }

  static KeyedOneInputStreamOperatorTestHarness<FlowKey, Flow, CheetahEvent> open(
      OneInputStreamOperator<Flow, CheetahEvent> op,
      TypeInformation<FlowKey> keys,
      OperatorSubtaskState restored)
      throws Exception {
    var h = new KeyedOneInputStreamOperatorTestHarness<>(op, Flow::key, keys);
    h.setup();
    if (restored != null) {
      h.initializeState(restored);
    }
    h.open();
    return h;
  }

  /** An event and the step of the input after which the operator had emitted it. */
  record Emitted(int step, CheetahEvent event) {}

  static Map<FlowKey, List<Emitted>> run(List<Step> steps, boolean packed) throws Exception {
    List<Emitted> out = new ArrayList<>();
    var h =
        packed
            ? open(new CheetahOperator(D), FlowKeySerializer.TYPE, null)
            : open(
                new KeyedProcessOperator<>(new LegacyCheetahFunction(D)),
                TypeInformation.of(FlowKey.class),
                null);
    int seen = 0;
    long checkpoint = 0;
    long watermark = Long.MIN_VALUE;
    for (int i = 0; i < steps.size(); i++) {
      Step s = steps.get(i);
      if (s instanceof Rec r) {
        h.processElement(new StreamRecord<>(r.flow(), r.flow().endMs()));
      } else if (s instanceof Mark m) {
        h.processWatermark(m.watermark());
        watermark = m.watermark();
      } else if (packed) {
        checkpoint++;
        OperatorSubtaskState snap = h.snapshot(checkpoint, checkpoint);
        h.close();
        h = open(new CheetahOperator(D), FlowKeySerializer.TYPE, snap);
        seen = 0;
      }
      List<StreamRecord<? extends CheetahEvent>> all = h.extractOutputStreamRecords();
      for (StreamRecord<? extends CheetahEvent> e : all.subList(seen, all.size())) {
        out.add(new Emitted(i, e.getValue()));
        // Its timestamp is the event time the flowset operator goes by: released by this
        // watermark, at or before the event's own time (the former operator's timers were not
        // always at the same time: a timer it kept past a change could fire first).
        assertThat(e.getTimestamp())
            .as("step %d: %s", i, e.getValue())
            .isLessThanOrEqualTo(watermark)
            .isLessThanOrEqualTo(e.getValue().eventMs());
      }
      seen = all.size();
    }
    h.close();
    Map<FlowKey, List<Emitted>> byKey = new LinkedHashMap<>();
    for (Emitted e : out) {
      byKey.computeIfAbsent(e.event().key(), k -> new ArrayList<>()).add(e);
    }
    return byKey;
  }

  @Test
  void sameEventsAsTheFormerOperatorOnRandomInputs() throws Exception {
    Random rnd = new Random(20261126);
    int withEvents = 0;
    for (int i = 0; i < 300; i++) {
      List<Step> steps = scenario(rnd);
      Map<FlowKey, List<Emitted>> former = run(steps, false);
      Map<FlowKey, List<Emitted>> packed = run(steps, true);
      assertThat(packed).as("scenario %d: %s", i, steps).isEqualTo(former);
      if (!former.isEmpty()) {
        withEvents++;
      }
    }
    assertThat(withEvents).as("scenarios with cheetahs").isGreaterThan(50);
  }
}
