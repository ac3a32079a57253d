package net.cheetah.cli;

import java.io.IOException;
import java.net.URI;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Where a job of the embedded stack resumes from: the newest state it left, whether a clean stop
 * left it (a savepoint, recorded in a marker file) or a crash did (a retained checkpoint of one of
 * its earlier runs, {@code <checkpoints>/<job id>/chk-N}). Every run of a job has a new job id, so
 * each submission appends its id to {@code <checkpoints>/<job name>.runs} ({@link #recordRun}); the
 * checkpoints of the job are those under the recorded ids.
 *
 * <p>Resuming from anything older than the newest would repeat output the newer one had already
 * committed (its Kafka transactions), so {@link #choose} picks the newest by completion time: a
 * checkpoint or savepoint is complete once its {@code _metadata} is written (a {@code chk-N}
 * without it was cut short by the crash and is ignored), and that file's modification time is when
 * it completed. A tie (same instant) goes to the savepoint (a clean stop takes it after the
 * checkpoints of its run; the next run's take seconds to start), then to the later run, then to the
 * higher checkpoint number.
 */
final class ResumePoint {
  private static final Pattern CHECKPOINT_DIR = Pattern.compile("chk-(\\d+)");
  private static final Pattern JOB_ID = Pattern.compile("[0-9a-f]{32}");
  static final String METADATA = "_metadata";

  private ResumePoint() {}

  /** What a job can resume from. */
  enum Kind {
    CHECKPOINT,
    SAVEPOINT
  }

  /**
   * A complete checkpoint or savepoint.
   *
   * @param path what Flink restores from (a file: URI or path)
   * @param completed when its {@code _metadata} was written
   * @param run index of the job's run it belongs to in {@code .runs} (savepoint: -1, unknown)
   * @param checkpointId the N of {@code chk-N} (savepoint: -1)
   */
  record Retained(Kind kind, String path, Instant completed, int run, long checkpointId) {
    String describe() {
      return (kind == Kind.CHECKPOINT ? "checkpoint " : "savepoint ")
          + path
          + " (completed "
          + completed
          + ")";
    }
  }

  /** The newest of the candidates (see the class comment), if any. Pure. */
  static Optional<Retained> choose(List<Retained> candidates) {
    return candidates.stream()
        .max(
            Comparator.comparing(Retained::completed)
                .thenComparing(r -> r.kind() == Kind.SAVEPOINT)
                .thenComparingInt(Retained::run)
                .thenComparingLong(Retained::checkpointId));
  }

  /**
   * The job's complete retained checkpoints (under the run ids recorded for it) and its savepoint
   * (the marker's, if there is a marker), as candidates for {@link #choose}.
   */
  static List<Retained> scan(Path checkpoints, String job, Path savepointMarker)
      throws IOException {
    List<Retained> found = new ArrayList<>();
    List<String> runs = runs(checkpoints, job);
    for (int run = 0; run < runs.size(); run++) {
      Path dir = checkpoints.resolve(runs.get(run));
      if (!Files.isDirectory(dir)) {
        continue;
      }
      try (Stream<Path> entries = Files.list(dir)) {
        for (Path chk : entries.toList()) {
          Matcher m = CHECKPOINT_DIR.matcher(chk.getFileName().toString());
          Optional<Instant> done = completed(chk);
          if (m.matches() && done.isPresent()) {
            found.add(
                new Retained(
                    Kind.CHECKPOINT,
                    chk.toAbsolutePath().toUri().toString(),
                    done.get(),
                    run,
                    Long.parseLong(m.group(1))));
          }
        }
      }
    }
    if (Files.exists(savepointMarker)) {
      String path = Files.readString(savepointMarker).strip();
      // A savepoint that vanished still counts (as of its marker): restoring it then fails loudly
      // instead of silently starting without the state it had.
      Instant done =
          completed(localPath(path)).orElse(Files.getLastModifiedTime(savepointMarker).toInstant());
      found.add(new Retained(Kind.SAVEPOINT, path, done, -1, -1));
    }
    return found;
  }

  /**
   * Deletes the checkpoints of the job's runs that {@code chosen} (the newest state, about to be
   * resumed from) made obsolete: every run's but the chosen checkpoint's own, which stays until the
   * next run has completed a checkpoint of its own (Flink does not claim a restored checkpoint).
   * The next resume only ever looks at newer states. Returns the deleted run directories.
   */
  static List<Path> prune(Path checkpoints, String job, Optional<Retained> chosen)
      throws IOException {
    List<String> runs = runs(checkpoints, job);
    int keep = chosen.filter(r -> r.kind() == Kind.CHECKPOINT).map(Retained::run).orElse(-1);
    if (chosen.isEmpty()) {
      return List.of(); // nothing was found: nothing to make obsolete
    }
    List<Path> deleted = new ArrayList<>();
    for (int run = 0; run < runs.size(); run++) {
      Path dir = checkpoints.resolve(runs.get(run));
      if (run != keep && Files.isDirectory(dir)) {
        deleteTree(dir);
        deleted.add(dir);
      }
    }
    Path file = runsFile(checkpoints, job);
    Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
    Files.writeString(tmp, keep >= 0 ? runs.get(keep) + "\n" : "");
    Files.move(
        tmp,
        file,
        java.nio.file.StandardCopyOption.REPLACE_EXISTING,
        java.nio.file.StandardCopyOption.ATOMIC_MOVE);
    return deleted;
  }

  private static void deleteTree(Path dir) throws IOException {
    try (Stream<Path> all = Files.walk(dir)) {
      for (Path p : all.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }

  /** The job ids recorded for {@code job}, oldest first. */
  static List<String> runs(Path checkpoints, String job) throws IOException {
    try {
      return Files.readAllLines(runsFile(checkpoints, job)).stream()
          .map(String::strip)
          .filter(l -> JOB_ID.matcher(l).matches()) // a line cut short by a crash is skipped
          .toList();
    } catch (NoSuchFileException e) {
      return List.of();
    }
  }

  /** Appends a run's job id (hex), on disk before its first checkpoint can complete. */
  static void recordRun(Path checkpoints, String job, String jobId) throws IOException {
    Files.createDirectories(checkpoints);
    try (FileChannel out =
        FileChannel.open(
            runsFile(checkpoints, job),
            StandardOpenOption.CREATE,
            StandardOpenOption.WRITE,
            StandardOpenOption.APPEND)) {
      out.write(java.nio.ByteBuffer.wrap(("\n" + jobId + "\n").getBytes(StandardCharsets.UTF_8)));
      out.force(true);
    }
  }

  private static Path runsFile(Path checkpoints, String job) {
    return checkpoints.resolve(job + ".runs");
  }

  private static Optional<Instant> completed(Path dir) throws IOException {
    Path metadata = dir.resolve(METADATA);
    if (!Files.isRegularFile(metadata)) {
      return Optional.empty();
    }
    return Optional.of(Files.getLastModifiedTime(metadata).toInstant());
  }

  private static Path localPath(String pathOrUri) {
    return pathOrUri.startsWith("file:") ? Path.of(URI.create(pathOrUri)) : Path.of(pathOrUri);
  }
}
