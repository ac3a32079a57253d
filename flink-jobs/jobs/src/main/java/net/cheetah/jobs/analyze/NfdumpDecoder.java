package net.cheetah.jobs.analyze;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Runs nfdump over nfcapd archives: finds the files under a path and prints each one's flows as
 * text in {@link NfdumpLine#FORMAT}.
 */
public final class NfdumpDecoder {
  private final String nfdump;

  public NfdumpDecoder(String nfdumpBinary) {
    this.nfdump = nfdumpBinary;
  }

  /** nfcapd files under {@code input} (itself if a file), in name order; .current files skipped. */
  public static List<Path> archives(Path input) throws IOException {
    if (!Files.exists(input)) {
      throw new IOException("input " + input + " does not exist; give an nfcapd file or a directory of them");
    }
    if (Files.isRegularFile(input)) {
      return List.of(input);
    }
    try (Stream<Path> s = Files.walk(input)) {
      List<Path> files =
          new ArrayList<>(
              s.filter(Files::isRegularFile)
                  .filter(p -> p.getFileName().toString().startsWith("nfcapd."))
                  .filter(p -> !p.getFileName().toString().startsWith("nfcapd.current"))
                  .sorted()
                  .toList());
      if (files.isEmpty()) {
        throw new IOException("no nfcapd.* files under " + input);
      }
      return files;
    }
  }

  /** Writes the flows of {@code archive} to {@code out}, one line each. */
  public void decode(Path archive, Path out) throws IOException, InterruptedException {
    ProcessBuilder pb =
        new ProcessBuilder(nfdump, "-r", archive.toString(), "-q", "-N", "-6", "-o", NfdumpLine.FORMAT)
            .redirectOutput(out.toFile())
            .redirectError(ProcessBuilder.Redirect.PIPE);
    pb.environment().putAll(Map.of("TZ", "UTC", "LC_ALL", "C"));
    Process p;
    try {
      p = pb.start();
    } catch (IOException e) {
      throw new IOException("cannot run '" + nfdump + "' (" + e.getMessage() + "); install nfdump (./cheetah setup does)", e);
    }
    String err = new String(p.getErrorStream().readAllBytes());
    if (!p.waitFor(1, TimeUnit.HOURS) || p.exitValue() != 0) {
      throw new IOException("nfdump failed on " + archive + " (exit " + p.exitValue() + "): " + err.strip());
    }
  }
}
