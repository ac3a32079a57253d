package net.cheetah.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import net.cheetah.config.CheetahConfig;
import net.cheetah.jobs.ConfigOptions;
import net.cheetah.jobs.analyze.AnalyzeCsv;
import net.cheetah.jobs.analyze.AnalyzeJob;
import net.cheetah.jobs.analyze.NfdumpDecoder;
import net.cheetah.jobs.flink.Loopback;
import net.cheetah.jobs.flink.RestartStrategy;
import net.cheetah.runtime.FlinkRest;
import net.cheetah.runtime.FreePorts;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

@Command(
    name = "analyze",
    mixinStandardHelpOptions = true,
    description = {
      "Batch analysis of nfcapd archives with the streaming jobs' own operators (Flink batch"
          + " execution).",
      "Writes DIR/cheetahs.csv (one row per cheetah flow) and DIR/flowsets.csv (one row per"
          + " parallel flowset); lines nfdump printed that are not valid flows, and archives"
          + " nfdump cannot read whole, go to DIR/rejected.txt with the reason.",
      "Exit status 1 when an archive could not be read whole (the results cover the rest)."
    })
final class AnalyzeCommand implements Callable<Integer> {
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
      description = "Flink parallelism and concurrent nfdump processes (default ${DEFAULT-VALUE}).")
  int parallelism;

  @Mixin ConfigOptions config;

  @Override
  public Integer call() throws Exception {
    CheetahConfig cfg = config.load();
    Tools tools = Tools.fromEnvironment();
    long t0 = System.nanoTime();
    List<Path> archives = NfdumpDecoder.archives(input);
    Files.createDirectories(out);
    Path work = Files.createTempDirectory("cheetah-analyze-");
    try {
      List<String> unreadable = new ArrayList<>();
      List<Path> text = decode(tools, archives, work, unreadable);
      long t1 = System.nanoTime();
      System.err.printf(
          Locale.ROOT,
          "analyze: running the cheetah and flowset operators (Flink batch, parallelism %d)...%n",
          parallelism);
      int restPort = FreePorts.pick();
      StreamExecutionEnvironment env =
          StreamExecutionEnvironment.createLocalEnvironment(
              parallelism, flinkConf(restPort, cfg.flink().restarts()));
      AnalyzeJob.Result r;
      try (ProgressPoller poller =
          new ProgressPoller("http://127.0.0.1:" + restPort, lines(text))) {
        r = AnalyzeJob.run(env, text, cfg.detection());
      }
      AnalyzeCsv.writeCheetahs(out.resolve("cheetahs.csv"), r.cheetahs());
      AnalyzeCsv.writeFlowsets(out.resolve("flowsets.csv"), r.flowsets());
      Path rejected = out.resolve("rejected.txt");
      Files.deleteIfExists(rejected);
      List<String> refused = new ArrayList<>(unreadable);
      refused.addAll(r.rejected());
      if (!refused.isEmpty()) {
        Files.write(rejected, refused);
      }
      double secs = (System.nanoTime() - t0) / 1e9;
      System.out.printf(
          Locale.ROOT,
          "analyze: %d archive(s) (%d unreadable), %,d flow records (%,d rejected) in %.1f s (nfdump %.1f s, Flink %.1f s; %,.0f records/s)%n"
              + "  %,d cheetah flows -> %s%n  %,d flowsets (%d single flows) -> %s%n%s",
          archives.size(),
          unreadable.size(),
          r.records(),
          r.rejected().size(),
          secs,
          (t1 - t0) / 1e9,
          (System.nanoTime() - t1) / 1e9,
          r.records() / secs,
          r.cheetahs().size(),
          out.resolve("cheetahs.csv"),
          r.flowsets().size(),
          r.flowsets().stream().filter(f -> f.single()).count(),
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
      deleteTree(work);
    }
  }

  /**
   * nfdump's text of every archive; an archive nfdump cannot read whole is reported (stderr) and
   * listed in {@code unreadable} as a rejected.txt line, and the flows it printed are kept.
   */
  private List<Path> decode(Tools tools, List<Path> archives, Path work, List<String> unreadable)
      throws Exception {
    NfdumpDecoder decoder = new NfdumpDecoder(tools.nfdump());
    long totalBytes = 0;
    for (Path a : archives) {
      totalBytes += Files.size(a);
    }
    List<Path> text = new ArrayList<>();
    ExecutorService pool = Executors.newFixedThreadPool(Math.max(1, parallelism));
    try (Progress p = new Progress("decoding nfcapd", totalBytes / 1024, "KiB")) {
      List<Future<java.util.Optional<String>>> jobs = new ArrayList<>();
      for (int i = 0; i < archives.size(); i++) {
        Path a = archives.get(i);
        Path t = work.resolve(String.format(Locale.ROOT, "%06d.txt", i));
        text.add(t);
        jobs.add(
            pool.submit(
                () -> {
                  java.util.Optional<String> problem = decoder.decode(a, t);
                  p.advance(Files.size(a) / 1024);
                  return problem;
                }));
      }
      for (int i = 0; i < jobs.size(); i++) {
        java.util.Optional<String> problem = jobs.get(i).get();
        if (problem.isPresent()) {
          System.err.println("analyze: " + problem.get());
          unreadable.add("unreadable_archive: " + problem.get() + " | " + archives.get(i));
        }
      }
    } finally {
      pool.shutdownNow();
    }
    return text;
  }

  /** The local cluster: loopback only, the configured restart strategy (as the stack's jobs). */
  static Configuration flinkConf(int restPort, CheetahConfig.Restarts restarts) {
    Configuration c = Loopback.configuration();
    c.setString("rest.port", Integer.toString(restPort));
    c.setString("taskmanager.memory.managed.size", "256m");
    RestartStrategy.settings(restarts).forEach(c::setString);
    return c;
  }

  private static long lines(List<Path> files) throws IOException {
    long n = 0;
    byte[] buf = new byte[1 << 16];
    for (Path f : files) {
      try (var in = Files.newInputStream(f)) {
        for (int k = in.read(buf); k > 0; k = in.read(buf)) {
          for (int i = 0; i < k; i++) {
            n += buf[i] == '\n' ? 1 : 0;
          }
        }
      }
    }
    return n;
  }

  /**
   * Shows how many flow records the job has read, from the local cluster's REST API, until closed.
   * Batch execution reads and sorts all records first, then runs the operators: the bar covers the
   * reading; the rest is reported when it finishes. A restart it sees is printed as a warning with
   * its cause (Flink's own log says so too: the local cluster may be gone before the next look).
   */
  private static final class ProgressPoller implements AutoCloseable {
    private final Thread thread;
    private volatile boolean done;

    ProgressPoller(String restUrl, long total) {
      thread =
          new Thread(
              () -> {
                FlinkRest rest = new FlinkRest(restUrl);
                long restarts = 0;
                try (Progress bar = new Progress("reading flows", total, "records")) {
                  while (!done) {
                    try {
                      List<String> jobs = rest.jobIds();
                      if (!jobs.isEmpty()) {
                        long now = rest.restarts(jobs.get(0)).orElse(restarts);
                        if (now > restarts) {
                          restarts = now;
                          var failures = rest.failures(jobs.get(0));
                          System.err.printf(
                              "%nanalyze: warning: the Flink job restarted (%d so far): %s%n",
                              now,
                              failures.isEmpty()
                                  ? "(cause not reported)"
                                  : failures.get(0).cause());
                        }
                        var vertices = rest.progress(jobs.get(0));
                        if (!vertices.isEmpty()) {
                          bar.set(Math.min(total, vertices.get(0).recordsOut()));
                        }
                      }
                    } catch (IllegalStateException e) {
                      // the cluster is starting or already gone; try again
                    }
                    java.util.concurrent.locks.LockSupport.parkNanos(300_000_000L);
                  }
                  bar.set(total);
                }
              },
              "analyze-progress");
      thread.setDaemon(true);
      thread.start();
    }

    @Override
    public void close() throws InterruptedException {
      done = true;
      thread.join(2000);
    }
  }

  private static void deleteTree(Path p) throws IOException {

    if (!Files.exists(p)) {
      return;
    }
    try (var s = Files.walk(p)) {
      for (Path x : s.sorted(java.util.Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(x);
      }
    }
  }
}
