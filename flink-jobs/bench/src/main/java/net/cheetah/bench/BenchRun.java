package net.cheetah.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.function.Consumer;
import java.util.stream.Stream;

/**
 * How a benchmark's main runs it once its options are read: a shutdown hook stops it on a signal
 * (Ctrl-C), a failure is printed and exits 1, and the JVM always exits with the status (Flink and
 * Kafka clients leave non-daemon threads behind).
 */
final class BenchRun {
  private BenchRun() {}

  /** A benchmark run this way. */
  interface Bench {
    /** The benchmark; its exit status. */
    int run() throws Exception;

    /** Stops whatever it started; safe to call twice, and from the shutdown hook. */
    void stop();

    /** Whether {@link #stop} was called before the run ended (a signal). */
    boolean stopped();
  }

  static void runAndExit(String name, Bench b) {
    Thread hook = new Thread(b::stop, name + "-stop");
    Runtime.getRuntime().addShutdownHook(hook);
    int status;
    try {
      status = b.run();
    } catch (Exception e) {
      if (b.stopped()) {
        System.err.println(name + ": stopped before the end (signal)");
      } else {
        System.err.println(name + ": failed: " + e);
        e.printStackTrace();
      }
      status = 1;
    } finally {
      b.stop();
      try {
        Runtime.getRuntime().removeShutdownHook(hook);
      } catch (IllegalStateException e) {
        // already shutting down (Ctrl-C): the hook has stopped everything
      }
    }
    System.exit(status);
  }

  /** Deletes a run's temp dir, or says where it is kept ({@code --keep-data}). */
  static void removeDir(Path dir, boolean keep, Consumer<String> say) {
    if (keep) {
      say.accept("kept " + dir);
      return;
    }
    try (Stream<Path> s = Files.walk(dir)) {
      for (Path x : s.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(x);
      }
    } catch (IOException e) {
      say.accept("could not delete " + dir + ": " + e.getMessage());
    }
  }
}
