package net.cheetah.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import net.cheetah.config.CheetahConfig;
import net.cheetah.config.CheetahConfig.Detection;
import net.cheetah.core.flow.Address;
import net.cheetah.core.flow.CheetahEvent;
import net.cheetah.core.flow.Flow;
import net.cheetah.core.flow.FlowKey;
import net.cheetah.jobs.cheetah.CheetahOperator;
import net.cheetah.jobs.cheetah.FlowKeySerializer;
import net.cheetah.jobs.cheetah.LegacyCheetahFunction;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.runtime.state.storage.FileSystemCheckpointStorage;
import org.apache.flink.streaming.api.operators.KeyedProcessOperator;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;

/**
 * Checkpointed state of the cheetah operator per concurrent flow that cannot be a cheetah: N
 * distinct 5-tuples with one mouse record each (1–4 s, ≤ 75 KB, the default H of 1 GB), fed to the
 * operator in Flink's operator test harness (heap state backend, a real snapshot written to a
 * file-system checkpoint directory), snapshotted twice:
 *
 * <ul>
 *   <li>{@code pending}: every record received, none due yet (event time before their ends);
 *   <li>{@code open}: every record fed to the detector, no flow closed yet (event time past their
 *       ends, before end + G + active timeout): where a mouse spends most of its ~90 s of state.
 * </ul>
 *
 * The size is Flink's own account of the snapshot (the keyed state handle: entries, keys and
 * timers), so it is deterministic: the same N gives the same bytes in every run. Both the current
 * operator ({@link CheetahOperator}) and the one before its state was packed ({@link
 * LegacyCheetahFunction}) are measured in the same run. The snapshot's wall time is printed too,
 * for reading only (it depends on the machine's load).
 */
public final class StateSizeBenchmark {
  private StateSizeBenchmark() {}

  private static final Detection D = CheetahConfig.defaultConfig().detection();
  private static final long T0 = 1_700_000_000_000L;

  public static void main(String[] args) throws Exception {
    List<Integer> sizes = new ArrayList<>();
    boolean legacy = true;
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--flows" -> {
          for (String s : args[++i].split(",")) {
            sizes.add(Integer.parseInt(s.trim().replace("_", "")));
          }
        }
        case "--no-legacy" -> legacy = false;
        case "--help", "-h" -> {
          System.out.println(
              "usage: StateSizeBenchmark [--flows N[,N...]] [--no-legacy]\n"
                  + "  --flows N,...  concurrent non-cheetah flows (default 100000,1000000)\n"
                  + "  --no-legacy    only the current operator, not also LegacyCheetahFunction (the"
                  + " operator before its state was packed)");
          return;
        }
        default -> throw new IllegalArgumentException("unknown option " + args[i]);
      }
    }
    if (sizes.isEmpty()) {
      sizes = List.of(100_000, 1_000_000);
    }
    for (int n : sizes) {
      Result now = measure(new CheetahOperator(D), FlowKeySerializer.TYPE, n);
      print("current", n, now);
      if (legacy) {
        Result before =
            measure(
                new KeyedProcessOperator<>(new LegacyCheetahFunction(D)),
                TypeInformation.of(FlowKey.class),
                n);
        print("legacy", n, before);
        System.out.printf(
            Locale.ROOT,
            "FIGURE state.ratio.%-13s pending %.2fx, open %.2fx smaller than before%n",
            count(n),
            (double) before.pendingBytes / now.pendingBytes,
            (double) before.openBytes / now.openBytes);
      }
    }
  }

  record Result(long pendingBytes, long pendingMs, long openBytes, long openMs, int timers) {}

  private static void print(String which, int n, Result r) {
    System.out.printf(
        Locale.ROOT,
        "FIGURE state.%s.%-12s pending: %,d B = %.1f B/flow (%,d timers; snapshot %d ms),"
            + " open: %,d B = %.1f B/flow (snapshot %d ms)%n",
        which,
        count(n),
        r.pendingBytes,
        (double) r.pendingBytes / n,
        r.timers,
        r.pendingMs,
        r.openBytes,
        (double) r.openBytes / n,
        r.openMs);
  }

  private static String count(int n) {
    return n % 1_000_000 == 0 ? n / 1_000_000 + "m" : n % 1000 == 0 ? n / 1000 + "k" : "" + n;
  }

  /** Mouse i: its own 5-tuple, 1–4 s, 40–75,000 bytes, all within the first 10 s. */
  static Flow mouse(int i) {
    Address exporter = Address.parse(i % 2 == 0 ? "192.0.2.1" : "192.0.2.2");
    Address src = Address.ofIpv4(0x0A00_0000 | (i >>> 8));
    Address dst = Address.ofIpv4(0xC612_0000 | (i & 0xFF));
    long start = T0 + (i * 7919L) % 10_000;
    long span = 1_000 + (i * 104_729L) % 3_000;
    long bytes = 40 + (i * 15_485_863L) % 75_000;
    return new Flow(
        new FlowKey(exporter, src, dst, 1024 + i % 60_000, 443, 6),
        start,
        start + span,
        bytes,
        1 + bytes / 1_000,
        i % 3 == 0 ? 64_500 : 0,
        0);
  }

  static Result measure(
      OneInputStreamOperator<Flow, CheetahEvent> op, TypeInformation<FlowKey> keys, int n)
      throws Exception {
    Path dir = Files.createTempDirectory("cheetah-state-size");
    try (KeyedOneInputStreamOperatorTestHarness<FlowKey, Flow, CheetahEvent> h =
        new KeyedOneInputStreamOperatorTestHarness<>(op, Flow::key, keys)) {
      h.setCheckpointStorage(new FileSystemCheckpointStorage(dir.toUri()));
      h.open();
      h.processWatermark(T0);
      for (int i = 0; i < n; i++) {
        Flow r = mouse(i);
        h.processElement(new StreamRecord<>(r, r.endMs()));
      }
      int timers = h.numEventTimeTimers();
      long t = System.nanoTime();
      OperatorSubtaskState pending = h.snapshot(1, 1);
      long pendingMs = (System.nanoTime() - t) / 1_000_000;
      // Past every end (<= T0 + 13 s), before any close (>= T0 + 1 s + G + active timeout).
      h.processWatermark(T0 + 20_000);
      if (!h.extractOutputValues().isEmpty()) {
        throw new IllegalStateException("a mouse made an event: the workload is not what it says");
      }
      t = System.nanoTime();
      OperatorSubtaskState open = h.snapshot(2, 2);
      long openMs = (System.nanoTime() - t) / 1_000_000;
      return new Result(pending.getStateSize(), pendingMs, open.getStateSize(), openMs, timers);
    } finally {
      try (var files = Files.walk(dir)) {
        files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      }
    }
  }
}
