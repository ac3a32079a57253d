package net.cheetah.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import net.cheetah.analytics.BatchAnalysis;
import net.cheetah.config.CheetahConfig;
import net.cheetah.config.CheetahConfig.Detection;
import net.cheetah.core.flow.Address;
import net.cheetah.core.flow.CheetahEvent;
import net.cheetah.core.flow.Flow;
import net.cheetah.core.flow.FlowKey;
import net.cheetah.core.flow.Flowset;
import net.cheetah.jobs.ConfigOptions;
import net.cheetah.jobs.analyze.AnalyzeCsv;
import net.cheetah.jobs.analyze.ArchiveFlows;
import net.cheetah.jobs.analyze.NfcapdFile;
import net.cheetah.jobs.analyze.NfdumpDecoder;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

@Command(
    name = "analyze",
    mixinStandardHelpOptions = true,
    description = {
      "Batch analysis of nfcapd archives with the streaming jobs' own logic (the normaliser, the"
          + " cheetah detector and the flowset grouper, driven directly over the whole input).",
      "Reads nfcapd files natively (nfdump 1.7 layout; uncompressed, LZ4, LZO or BZ2 blocks);"
          + " a file the native reader cannot read is read through nfdump instead.",
      "Writes DIR/cheetahs.csv (one row per cheetah flow) and DIR/flowsets.csv (one row per"
          + " parallel flowset); records that are not valid flows, and archives nfdump cannot"
          + " read whole, go to DIR/rejected.txt with the reason.",
      "Exit status 1 when an archive could not be read whole (the results cover the rest)."
    })
final class AnalyzeCommand implements Callable<Integer> {
  /** Data blocks per reading task (nfcapd writes blocks of up to 1 MiB, ~10,000 records). */
  private static final int BLOCKS_PER_TASK = 8;

  @Option(
      names = "--input",
      required = true,
      paramLabel = "PATH",
      description = "An nfcapd file or a directory of them (searched recursively).")
  Path input;

  @Option(
      names = "--out",
      required = true,
      paramLabel = "DIR",
      description = "Output directory (created).")
  Path out;

  @Option(
      names = "--parallelism",
      defaultValue = "2",
      description =
          "Threads reading archives and running the detection (default ${DEFAULT-VALUE}).")
  int parallelism;

  @Mixin ConfigOptions config;

  @Override
  public Integer call() throws Exception {
    CheetahConfig cfg = config.load();
    Tools tools = Tools.fromEnvironment();
    long t0 = System.nanoTime();
    List<Path> archives = NfdumpDecoder.archives(input);
    Files.createDirectories(out);
    int threads = Math.max(1, parallelism);
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      List<String> unreadable = new ArrayList<>();
      List<ArchiveFlows> read = read(pool, tools, archives, threads, unreadable);
      long t1 = System.nanoTime();
      Detected d = detect(pool, read, threads, cfg.detection());
      long records = 0;
      List<String> refused = new ArrayList<>(unreadable);
      for (ArchiveFlows a : read) {
        records += a.records();
        refused.addAll(a.rejected());
      }
      AnalyzeCsv.writeCheetahs(out.resolve("cheetahs.csv"), d.cheetahs());
      AnalyzeCsv.writeFlowsets(out.resolve("flowsets.csv"), d.flowsets());
      Path rejected = out.resolve("rejected.txt");
      Files.deleteIfExists(rejected);
      if (!refused.isEmpty()) {
        Files.write(rejected, refused);
      }
      double secs = (System.nanoTime() - t0) / 1e9;
      System.out.printf(
          Locale.ROOT,
          "analyze: %d archive(s) (%d unreadable), %,d flow records (%,d rejected) in %.1f s (reading %.1f s, detection %.1f s; %,.0f records/s)%n"
              + "  %,d cheetah flows -> %s%n  %,d flowsets (%d single flows) -> %s%n%s",
          archives.size(),
          unreadable.size(),
          records,
          refused.size() - unreadable.size(),
          secs,
          (t1 - t0) / 1e9,
          (System.nanoTime() - t1) / 1e9,
          records / secs,
          d.cheetahs().size(),
          out.resolve("cheetahs.csv"),
          d.flowsets().size(),
          d.flowsets().stream().filter(f -> f.single()).count(),
          out.resolve("flowsets.csv"),
          refused.isEmpty() ? "" : "  rejected archives, lines and reasons -> " + rejected + "\n");
      if (!unreadable.isEmpty()) {
        System.err.printf(
            Locale.ROOT,
            "analyze: %d of %d archive(s) could not be read whole (listed in %s); the results"
                + " cover the rest%n",
            unreadable.size(),
            archives.size(),
            rejected);
        return 1;
      }
      return 0;
    } finally {
      pool.shutdownNow();
    }
  }

  /**
   * The flows of every archive, in archive order, read by {@code threads} threads (several per
   * file: a file's data blocks are read in slices). A file the native reader refuses is read
   * through nfdump instead, whole; an archive nfdump cannot read whole either is reported (stderr)
   * and listed in {@code unreadable} as a rejected.txt line, and the flows it printed are kept.
   */
  private static List<ArchiveFlows> read(
      ExecutorService pool, Tools tools, List<Path> archives, int threads, List<String> unreadable)
      throws Exception {
    long totalBytes = 0;
    for (Path a : archives) {
      totalBytes += Files.size(a);
    }
    List<ArchiveFlows> result = new ArrayList<>();
    try (Progress p = new Progress("reading nfcapd", Math.max(1, totalBytes / 1024), "KiB")) {
      // Per archive: its slices (native), or null when it must go through nfdump.
      List<List<Future<ArchiveFlows>>> slices = new ArrayList<>();
      List<String> refusedAtOpen = new ArrayList<>();
      List<NfcapdFile> open = new ArrayList<>();
      try {
        for (Path a : archives) {
          NfcapdFile f;
          try {
            f = NfcapdFile.open(a);
            refusedAtOpen.add(null);
          } catch (IOException e) {
            slices.add(null);
            refusedAtOpen.add(e.getMessage());
            continue;
          }
          open.add(f);
          List<Future<ArchiveFlows>> l = new ArrayList<>();
          for (int from = 0; from < f.blockCount(); from += BLOCKS_PER_TASK) {
            int lo = from;
            int hi = Math.min(f.blockCount(), from + BLOCKS_PER_TASK);
            l.add(
                pool.submit(
                    () -> {
                      ArchiveFlows flows =
                          new ArchiveFlows(threads, (int) Math.min(1 << 24, f.records(lo, hi)));
                      f.read(lo, hi, flows::record);
                      p.advance(f.storedBytes(lo, hi) / 1024);
                      return flows;
                    }));
          }
          slices.add(l);
        }
        List<Future<Fallback>> viaNfdump = new ArrayList<>();
        for (int i = 0; i < archives.size(); i++) {
          List<Future<ArchiveFlows>> l = slices.get(i);
          String why = null;
          List<ArchiveFlows> got = new ArrayList<>();
          if (l == null) {
            why = refusedAtOpen.get(i);
          } else {
            for (Future<ArchiveFlows> s : l) {
              try {
                got.add(s.get());
              } catch (ExecutionException e) {
                if (!(e.getCause() instanceof NfcapdFile.Unreadable)) {
                  throw e;
                }
                why = why == null ? e.getCause().getMessage() : why;
              }
            }
          }
          if (why == null) {
            result.addAll(got);
            viaNfdump.add(null);
          } else {
            Path a = archives.get(i);
            String reason = why;
            viaNfdump.add(pool.submit(() -> viaNfdump(tools, a, reason, threads)));
          }
        }
        for (int i = 0; i < archives.size(); i++) {
          if (viaNfdump.get(i) == null) {
            continue;
          }
          Fallback fb = viaNfdump.get(i).get();
          result.add(fb.flows());
          if (fb.problem().isPresent()) {
            System.err.println("analyze: " + fb.problem().get());
            unreadable.add("unreadable_archive: " + fb.problem().get() + " | " + archives.get(i));
          }
        }
      } finally {
        for (NfcapdFile f : open) {
          f.close();
        }
      }
    }
    return result;
  }

  /**
   * The flows nfdump printed for an archive, and why it could not read it whole if it could not.
   */
  private record Fallback(ArchiveFlows flows, Optional<String> problem) {}

  private static Fallback viaNfdump(Tools tools, Path archive, String why, int partitions)
      throws Exception {
    System.err.println(
        "analyze: reading " + archive + " through nfdump (native reader: " + why + ")");
    ArchiveFlows flows = new ArchiveFlows(partitions, 1024);
    Optional<String> problem = new NfdumpDecoder(tools.nfdump()).lines(archive, flows::line);
    return new Fallback(flows, problem);
  }

  /** Final cheetahs (their END events) and flowsets. */
  private record Detected(List<CheetahEvent> cheetahs, List<Flowset> flowsets) {}

  /**
   * Per partition, in parallel: the records of every flow key through the cheetah detector, then
   * the ended cheetahs of every (src, dst) through the flowset grouper.
   */
  private static Detected detect(
      ExecutorService pool, List<ArchiveFlows> read, int partitions, Detection d) throws Exception {
    List<Future<Detected>> parts = new ArrayList<>();
    for (int p = 0; p < partitions; p++) {
      int part = p;
      parts.add(pool.submit(() -> detectPartition(read, part, d)));
    }
    List<CheetahEvent> cheetahs = new ArrayList<>();
    List<Flowset> flowsets = new ArrayList<>();
    for (Future<Detected> f : parts) {
      cheetahs.addAll(f.get().cheetahs());
      flowsets.addAll(f.get().flowsets());
    }
    return new Detected(cheetahs, flowsets);
  }

  /**
   * One partition. Records are grouped by flow key with one sort of fixed-length 64-bit keys (the
   * key's hash in the high bits, the record's position in the low bits, so that a key's records
   * keep the order they were read in); keys whose hashes collide are told apart by equality.
   */
  static Detected detectPartition(List<ArchiveFlows> read, int part, Detection d) {
    // Record g of the partition is record g - starts[s] of read.get(s).
    int[] starts = new int[read.size() + 1];
    for (int s = 0; s < read.size(); s++) {
      starts[s + 1] = starts[s] + read.get(s).size(part);
    }
    int n = starts[read.size()];
    int indexBits = Math.max(1, 64 - Long.numberOfLeadingZeros(n));
    long indexMask = (1L << indexBits) - 1;
    long[] order = new long[n];
    for (int s = 0, g = 0; s < read.size(); s++) {
      ArchiveFlows a = read.get(s);
      for (int i = 0; i < a.size(part); i++, g++) {
        order[g] = (a.keyHash(part, i) & ~indexMask) | g;
      }
    }
    java.util.Arrays.sort(order);
    int[] sliceOf = new int[n];
    for (int s = 0; s < read.size(); s++) {
      java.util.Arrays.fill(sliceOf, starts[s], starts[s + 1], s);
    }
    BatchAnalysis analysis = new BatchAnalysis(d);
    Map<List<Address>, List<CheetahEvent>> byPair = new HashMap<>();
    List<CheetahEvent> ends = new ArrayList<>();
    java.util.function.Consumer<CheetahEvent> out =
        e -> {
          if (e.kind() == CheetahEvent.Kind.END) {
            ends.add(e);
            byPair
                .computeIfAbsent(List.of(e.key().src(), e.key().dst()), x -> new ArrayList<>())
                .add(e);
          }
        };
    for (int from = 0; from < n; ) {
      long hash = order[from] & ~indexMask;
      int to = from + 1;
      while (to < n && (order[to] & ~indexMask) == hash) {
        to++;
      }
      long total = 0;
      for (int i = from; i < to; i++) {
        int g = (int) (order[i] & indexMask);
        int s = sliceOf[g];
        total += read.get(s).bytes(part, g - starts[s]);
      }
      if (!analysis.canBeCheetah(total)) {
        from = to; // fewer than H bytes under this hash: no record of it can make a cheetah
        continue;
      }
      List<Flow> run = new ArrayList<>(to - from);
      for (int i = from; i < to; i++) {
        int g = (int) (order[i] & indexMask);
        run.add(read.get(sliceOf[g]).flow(part, g - starts[sliceOf[g]]));
      }
      FlowKey first = run.get(0).key();
      if (run.stream().allMatch(f -> f.key().equals(first))) {
        analysis.cheetahs(run, out);
      } else {
        Map<FlowKey, List<Flow>> byKey = new java.util.LinkedHashMap<>();
        for (Flow f : run) {
          byKey.computeIfAbsent(f.key(), x -> new ArrayList<>()).add(f);
        }
        byKey.values().forEach(records -> analysis.cheetahs(records, out));
      }
      from = to;
    }
    List<Flowset> sets = new ArrayList<>();
    byPair.forEach((pair, e) -> sets.addAll(analysis.flowsets(pair.get(0), pair.get(1), e)));
    return new Detected(ends, sets);
  }
}
