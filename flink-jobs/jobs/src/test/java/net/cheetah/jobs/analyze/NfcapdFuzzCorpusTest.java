package net.cheetah.jobs.analyze;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Replays the kept fuzz corpus of the nfcapd reader (the "nfcapd-file" line of
 * scripts/fuzz_targets.txt: seeds nfcapd 1.7.1 wrote, uncompressed and LZ4/LZO/BZ2, and what
 * fuzzing found) through {@link NfcapdFileFuzz}: every input is read or clearly refused, none
 * throws anything else or takes longer than {@link #LIMIT}.
 */
class NfcapdFuzzCorpusTest {
  static final String TARGET = "nfcapd-file";
  static final Duration LIMIT = Duration.ofSeconds(30);

  @Test
  void everyCorpusInputIsReadOrRefused() throws Exception {
    Path corpus = corpus();
    List<Path> inputs;
    try (Stream<Path> s = Files.list(corpus)) {
      inputs = s.filter(Files::isRegularFile).sorted().toList();
    }
    assertThat(inputs).as("corpus %s", corpus).isNotEmpty();
    ExecutorService one = Executors.newSingleThreadExecutor();
    try {
      for (Path input : inputs) {
        byte[] data = Files.readAllBytes(input);
        Future<?> run =
            one.submit(
                () -> {
                  NfcapdFileFuzz.fuzzerTestOneInput(data);
                  return null;
                });
        try {
          run.get(LIMIT.toSeconds(), TimeUnit.SECONDS);
        } catch (TimeoutException e) {
          throw new AssertionError(input + " not handled within " + LIMIT, e);
        } catch (java.util.concurrent.ExecutionException e) {
          throw new AssertionError(input + ": " + e.getCause(), e.getCause());
        }
      }
    } finally {
      one.shutdownNow();
    }
  }

  /** The corpus folder the registry names for this target. */
  static Path corpus() throws IOException {
    Path root = Path.of("").toAbsolutePath();
    while (!Files.exists(root.resolve("scripts/fuzz_targets.txt"))) {
      root = root.getParent();
      assertThat(root).as("scripts/fuzz_targets.txt above the working directory").isNotNull();
    }
    for (String line : Files.readAllLines(root.resolve("scripts/fuzz_targets.txt"))) {
      String[] col = line.trim().split("\\s+");
      if (!line.startsWith("#") && col.length >= 5 && col[0].equals(TARGET)) {
        assertThat(col[3]).isEqualTo(NfcapdFileFuzz.class.getName());
        return root.resolve(col[4]);
      }
    }
    throw new AssertionError(TARGET + " is not in scripts/fuzz_targets.txt");
  }
}
