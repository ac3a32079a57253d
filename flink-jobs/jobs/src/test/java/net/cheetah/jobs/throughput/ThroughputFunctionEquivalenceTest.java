package net.cheetah.jobs.throughput;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.TreeMap;
import java.util.function.Supplier;
import net.cheetah.analytics.throughput.Transfer;
import net.cheetah.config.CheetahConfig;
import net.cheetah.core.flow.Address;
import net.cheetah.core.flow.Flow;
import net.cheetah.core.flow.FlowKey;
import net.cheetah.jobs.flink.KeyedBytes;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.streaming.api.operators.KeyedProcessOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The host-pair operator keeps a stream's records as one and one timer per pair; the operator it
 * replaced ({@link LegacyThroughputFunction}: every record and a timer per record) is the
 * reference: on the same input, every pair's throughput.v1 rows and alerts.v1 records must be the
 * same bytes in the same order. The input is random but seeded: a few host pairs (so that pairs
 * hold many streams), long flows cut into records by a 60 s active timeout, parallel streams
 * starting together, mice, a key used again after a pause longer than G (a second stream), logged
 * transfers (some shipped twice), records arriving out of order within the watermark's bound and a
 * few arriving after their instance closed (late). Snapshots are taken and restored halfway, so the
 * compacted state goes through a checkpoint too. Each output is compared with the watermark it came
 * out at: a row published later than before is a difference.
 */
class ThroughputFunctionEquivalenceTest {
  static final CheetahConfig CFG =
      CheetahConfig.load(Optional.empty(), Map.of("throughput.forecast-window", "3"));
  static final long ACTIVE_TIMEOUT = CFG.detection().activeTimeoutMs();
  static final long BOUND_MS = 5_000;

  /** One input with the event time it is processed at. */
  record Input(long arrivalMs, ThroughputInput value) {}

  @ParameterizedTest
  @ValueSource(longs = {1, 2, 3})
  void sameRowsAndAlertsAsTheOperatorWithEveryRecordInState(long seed) throws Exception {
    List<Input> inputs = workload(new Random(seed));
    Map<String, List<String>> legacy = run(LEGACY, LEGACY, inputs);
    Map<String, List<String>> now = run(CURRENT, CURRENT, inputs);
    // The workload must produce something of each kind, or the comparison proves little.
    long rows =
        legacy.values().stream().flatMap(List::stream).filter(r -> r.startsWith("row")).count();
    long alerts =
        legacy.values().stream().flatMap(List::stream).filter(r -> r.startsWith("alert")).count();
    assertThat(rows).as("rows").isGreaterThan(200);
    assertThat(alerts).as("alerts").isGreaterThan(5);
    assertThat(now).isEqualTo(legacy);
  }

  /**
   * A savepoint of the replaced operator (its records and series under Flink's record serializer, a
   * timer per record) restored into this one, halfway: the same outputs as the replaced operator
   * running on, so an upgrade loses no open instance and no series.
   */
  @ParameterizedTest
  @ValueSource(longs = {4, 5})
  void resumesFromTheReplacedOperatorsState(long seed) throws Exception {
    List<Input> inputs = workload(new Random(seed));
    assertThat(run(LEGACY, CURRENT, inputs)).isEqualTo(run(LEGACY, LEGACY, inputs));
  }

  static final Supplier<KeyedProcessFunction<String, ThroughputInput, KeyedBytes>> LEGACY =
      () -> new LegacyThroughputFunction(CFG.throughput(), CFG.detection());
  static final Supplier<KeyedProcessFunction<String, ThroughputInput, KeyedBytes>> CURRENT =
      () -> new ThroughputFunction(CFG.throughput(), CFG.detection());

  /**
   * Runs {@code function} over the inputs, a watermark every 2 s of arrival time and a snapshot
   * restored into a fresh operator of {@code afterRestore} halfway; each pair's outputs in order
   * ("row"/"alert", the watermark it came out at, its bytes).
   */
  static Map<String, List<String>> run(
      Supplier<KeyedProcessFunction<String, ThroughputInput, KeyedBytes>> function,
      Supplier<KeyedProcessFunction<String, ThroughputInput, KeyedBytes>> afterRestore,
      List<Input> inputs)
      throws Exception {
    Map<String, List<String>> out = new TreeMap<>();
    KeyedOneInputStreamOperatorTestHarness<String, ThroughputInput, KeyedBytes> h =
        harness(function);
    h.open();
    long watermark = Long.MIN_VALUE;
    int half = inputs.size() / 2;
    for (int i = 0; i < inputs.size(); i++) {
      Input in = inputs.get(i);
      if (i == half) {
        var snapshot = h.snapshot(1, in.arrivalMs());
        collect(h, watermark, out);
        h.close();
        h = harness(afterRestore);
        h.initializeState(snapshot);
        h.open();
      }
      long wm = in.arrivalMs() - BOUND_MS;
      if (watermark == Long.MIN_VALUE || wm - watermark >= 2_000) {
        h.processWatermark(wm);
        watermark = wm;
        collect(h, watermark, out);
      }
      h.processElement(new StreamRecord<>(in.value(), in.value().eventMs()));
    }
    h.processWatermark(Long.MAX_VALUE);
    collect(h, Long.MAX_VALUE, out);
    h.close();
    return out;
  }

  private static KeyedOneInputStreamOperatorTestHarness<String, ThroughputInput, KeyedBytes>
      harness(Supplier<KeyedProcessFunction<String, ThroughputInput, KeyedBytes>> function)
          throws Exception {
    // Each with the key type its job gives it: the replaced operator's String (StringSerializer),
    // this one's PairKeySerializer, so a savepoint's keys cross over as in an upgrade.
    return new KeyedOneInputStreamOperatorTestHarness<>(
        new KeyedProcessOperator<>(function.get()),
        ThroughputInput::pairKey,
        function == LEGACY ? TypeInformation.of(String.class) : PairKeySerializer.TYPE);
  }

  /** Moves what came out so far into {@code out}, each with the watermark it came out at. */
  private static void collect(
      KeyedOneInputStreamOperatorTestHarness<String, ThroughputInput, KeyedBytes> h,
      long watermark,
      Map<String, List<String>> out) {
    for (KeyedBytes kb : h.extractOutputValues()) {
      out.computeIfAbsent(new String(kb.key()), k -> new ArrayList<>())
          .add("row at " + watermark + " " + hex(kb.value()));
    }
    h.getOutput().clear();
    var alerts = h.getSideOutput(ThroughputFunction.ALERTS);
    if (alerts != null) {
      for (StreamRecord<KeyedBytes> r : alerts) {
        out.computeIfAbsent(new String(r.getValue().key()), k -> new ArrayList<>())
            .add("alert at " + watermark + " " + hex(r.getValue().value()));
      }
      alerts.clear();
    }
  }

  private static String hex(byte[] b) {
    StringBuilder s = new StringBuilder();
    for (byte x : b) {
      s.append(String.format("%02x", x));
    }
    return s.toString();
  }

  /** Four hours of five host pairs, by arrival. */
  static List<Input> workload(Random r) {
    List<Input> out = new ArrayList<>();
    Address exporter = Address.parse("192.0.2.1");
    long hours = 4 * 3_600_000L;
    for (int pair = 0; pair < 5; pair++) {
      Address src = Address.parse("10.0.1." + (pair + 1));
      Address dst = Address.parse("10.0.2." + (pair % 3 + 1));
      int port = 10_000;
      // Transfer-like instances every ~10 min: 1-6 streams starting within 2 s, 1-20 min long,
      // at a rate that changes now and then (steps, band alerts); some with a control flow.
      double rate = 2e8 * (1 + r.nextInt(5));
      for (long t = r.nextInt(60_000); t < hours; t += 300_000 + r.nextInt(600_000)) {
        if (r.nextInt(6) == 0) {
          rate = 2e7 * (1 + r.nextInt(50));
        }
        int streams = 1 + r.nextInt(6);
        long duration = 60_000 + r.nextInt(19 * 60_000);
        for (int s = 0; s < streams; s++) {
          long start = t + r.nextInt(2_000);
          long end = start + duration + r.nextInt(5_000);
          FlowKey k = new FlowKey(exporter, src, dst, port++, 5201, 6);
          records(out, r, k, start, end, rate / streams / 8);
          // Now and then the same ports again after a pause longer than G: a second stream.
          if (r.nextInt(8) == 0) {
            long again = end + 40_000 + r.nextInt(60_000);
            records(out, r, k, again, again + 5_000 + r.nextInt(30_000), rate / streams / 8);
          }
        }
        if (r.nextInt(3) == 0) {
          FlowKey control = new FlowKey(exporter, src, dst, port++, 22, 6);
          records(out, r, control, t, t + duration + 3_000, 100);
        }
        if (r.nextInt(2) == 0) {
          long tEnd = t + 21_000;
          Transfer tr =
              new Transfer(
                  src.toString(),
                  dst.toString(),
                  "iperf3",
                  streams,
                  (long) (rate / 8 * 20),
                  20.0,
                  t,
                  tEnd,
                  0);
          out.add(new Input(tEnd + r.nextInt(3_000), ThroughputInput.of(tr)));
          if (r.nextInt(4) == 0) { // shipped twice
            out.add(new Input(tEnd + 60_000 + r.nextInt(60_000), ThroughputInput.of(tr)));
          }
        }
      }
      // Mice: short single records all over.
      for (long t = r.nextInt(10_000); t < hours; t += 1_000 + r.nextInt(20_000)) {
        FlowKey k = new FlowKey(exporter, src, dst, 30_000 + r.nextInt(20_000), 443, 6);
        long end = t + r.nextInt(3_000);
        add(out, r, new Flow(k, t, end, 1 + r.nextInt(70_000), 1 + r.nextInt(50), 0, 0));
      }
    }
    out.sort(Comparator.comparingLong(Input::arrivalMs));
    return out;
  }

  /** A flow from start to end at {@code bytesPerMs}, cut into records by the active timeout. */
  private static void records(
      List<Input> out, Random r, FlowKey k, long start, long end, double bytesPerMs) {
    for (long s = start; s < end; s += ACTIVE_TIMEOUT) {
      long e = Math.min(end, s + ACTIVE_TIMEOUT - 1);
      add(
          out,
          r,
          new Flow(k, s, e, Math.max(1, (long) (bytesPerMs * (e - s))), 1 + (e - s) / 10, 0, 0));
    }
  }

  /** Arrives within the watermark's bound of its end, or now and then minutes late. */
  private static void add(List<Input> out, Random r, Flow f) {
    long delay = r.nextInt(200) == 0 ? 200_000 + r.nextInt(200_000) : r.nextInt((int) BOUND_MS);
    out.add(new Input(f.endMs() + delay, ThroughputInput.of(f)));
  }
}
