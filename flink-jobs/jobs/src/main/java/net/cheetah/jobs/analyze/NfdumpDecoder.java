package net.cheetah.jobs.analyze;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
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
      throw new IOException(
          "input " + input + " does not exist; give an nfcapd file or a directory of them");
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

  /**
   * Writes the flows of {@code archive} to {@code out}, one line each. Returns why nfdump could not
   * read the whole archive (a truncated or corrupt file), if it could not: the flows it printed
   * before are in {@code out} all the same.
   */
  public Optional<String> decode(Path archive, Path out) throws IOException, InterruptedException {
    Process p = start(archive, ProcessBuilder.Redirect.to(out.toFile()));
    String err = new String(p.getErrorStream().readAllBytes());
    return finish(p, archive, err);
  }

  /**
   * Calls {@code line} for every flow line of {@code archive}, in order. Returns why nfdump could
   * not read the whole archive, if it could not (see {@link #decode}).
   */
  public Optional<String> lines(Path archive, LineConsumer line) throws Exception {
    Process p = start(archive, ProcessBuilder.Redirect.PIPE);
    // stderr is small; drained after stdout (nfdump writes errors before exiting).
    try (var r =
        new java.io.BufferedReader(
            new java.io.InputStreamReader(
                p.getInputStream(), java.nio.charset.StandardCharsets.UTF_8))) {
      for (String l = r.readLine(); l != null; l = r.readLine()) {
        line.accept(l);
      }
    } catch (Exception e) {
      p.destroy();
      throw e;
    }
    return finish(p, archive, new String(p.getErrorStream().readAllBytes()));
  }

  /** Receives one line nfdump printed. */
  @FunctionalInterface
  public interface LineConsumer {
    void accept(String line) throws Exception;
  }

  private Process start(Path archive, ProcessBuilder.Redirect stdout) throws IOException {
    ProcessBuilder pb =
        new ProcessBuilder(
                nfdump, "-r", archive.toString(), "-q", "-N", "-6", "-o", NfdumpLine.FORMAT)
            .redirectOutput(stdout)
            .redirectError(ProcessBuilder.Redirect.PIPE);
    pb.environment().putAll(Map.of("TZ", "UTC", "LC_ALL", "C"));
    try {
      return pb.start();
    } catch (IOException e) {
      throw new IOException(
          "cannot run '"
              + nfdump
              + "' ("
              + e.getMessage()
              + "); install nfdump (./cheetah setup does)",
          e);
    }
  }

  /**
   * nfdump 1.7 exits 0 on a file it cannot open (bad magic, truncated, empty) and only says so on
   * stderr; on a corrupt block it exits 255 after printing the flows before it. Either way the
   * archive was not read whole: anything on stderr, or a non-zero exit, is the archive's problem.
   */
  private static Optional<String> finish(Process p, Path archive, String err)
      throws IOException, InterruptedException {
    if (!p.waitFor(1, TimeUnit.HOURS)) {
      p.destroyForcibly();
      throw new IOException("nfdump did not finish reading " + archive + " within an hour");
    }
    if (p.exitValue() == 0 && err.isBlank()) {
      return Optional.empty();
    }
    return Optional.of(
        "nfdump could not read "
            + archive
            + " (exit "
            + p.exitValue()
            + "): "
            + err.strip().replaceAll("\\s*\\n\\s*", "; ")
            + " (a truncated or corrupt nfcapd file: flows before the damage, if any, were read)");
  }
}
