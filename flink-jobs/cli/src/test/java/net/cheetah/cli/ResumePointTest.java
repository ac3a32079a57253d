package net.cheetah.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import net.cheetah.cli.ResumePoint.Kind;
import net.cheetah.cli.ResumePoint.Retained;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The resume decision after a clean stop or a crash: the newest complete state wins, a checkpoint
 * cut short (no _metadata) never counts, and only the job's own runs are looked at.
 */
class ResumePointTest {
  static final String JOB = "cheetah-normalize";
  static final String RUN_A = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
  static final String RUN_B = "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb";
  static final String OTHER = "cccccccccccccccccccccccccccccccc";
  static final Instant T = Instant.parse("2026-11-25T12:00:00Z");

  @TempDir Path dir;

  static Retained chk(int run, long id, long second) {
    return new Retained(Kind.CHECKPOINT, "chk-" + id, T.plusSeconds(second), run, id);
  }

  static Retained sp(long second) {
    return new Retained(Kind.SAVEPOINT, "sp", T.plusSeconds(second), -1, -1);
  }

  @Test
  void nothingLeftStartsFresh() {
    assertThat(ResumePoint.choose(List.of())).isEmpty();
  }

  @Test
  void aCheckpointNewerThanTheSavepointWins() {
    // Stopped cleanly (savepoint at 100), restarted from it, checkpointed at 130, then killed.
    Retained newer = chk(1, 7, 130);
    assertThat(ResumePoint.choose(List.of(sp(100), newer))).contains(newer);
  }

  @Test
  void aSavepointNewerThanTheCheckpointsWins() {
    // A run that crashed left chk-3 (50); the next run stopped cleanly with a savepoint (200).
    Retained savepoint = sp(200);
    assertThat(ResumePoint.choose(List.of(chk(0, 3, 50), savepoint))).contains(savepoint);
  }

  @Test
  void theNewestAcrossRunsWinsNotTheHighestNumber() {
    // Restored from a savepoint, a run counts its checkpoints from the savepoint's number: a later
    // run may well have lower numbers than an earlier one.
    Retained later = chk(1, 2, 300);
    assertThat(ResumePoint.choose(List.of(chk(0, 40, 200), later))).contains(later);
  }

  @Test
  void tiesGoToTheSavepointThenTheLaterRunThenTheHigherNumber() {
    Retained savepoint = sp(10);
    assertThat(ResumePoint.choose(List.of(chk(3, 9, 10), savepoint))).contains(savepoint);
    Retained laterRun = chk(2, 1, 10);
    assertThat(ResumePoint.choose(List.of(chk(1, 5, 10), laterRun))).contains(laterRun);
    Retained higher = chk(1, 6, 10);
    assertThat(ResumePoint.choose(List.of(chk(1, 5, 10), higher))).contains(higher);
  }

  @Test
  void scanFindsCompleteCheckpointsOfTheJobsRunsOnly() throws Exception {
    Path cps = dir.resolve("checkpoints");
    ResumePoint.recordRun(cps, JOB, RUN_A);
    ResumePoint.recordRun(cps, JOB, RUN_B);
    Path a4 = complete(cps.resolve(RUN_A).resolve("chk-4"), 100);
    complete(cps.resolve(RUN_B).resolve("chk-2"), 200);
    Path b3 = cps.resolve(RUN_B).resolve("chk-3"); // cut short by the kill: no _metadata
    Files.createDirectories(b3);
    Files.writeString(b3.resolve("some-state"), "x");
    complete(cps.resolve(RUN_B).resolve("shared"), 900); // not a chk-N
    complete(cps.resolve(OTHER).resolve("chk-99"), 999); // another job's run
    Files.writeString(
        cps.resolve(JOB + ".runs"), "bbbbbbb", java.nio.file.StandardOpenOption.APPEND);

    List<Retained> found = ResumePoint.scan(cps, JOB, dir.resolve("none.latest"));

    assertThat(found)
        .extracting(Retained::kind, Retained::run, Retained::checkpointId, Retained::completed)
        .containsExactlyInAnyOrder(
            org.assertj.core.groups.Tuple.tuple(Kind.CHECKPOINT, 0, 4L, T.plusSeconds(100)),
            org.assertj.core.groups.Tuple.tuple(Kind.CHECKPOINT, 1, 2L, T.plusSeconds(200)));
    Optional<Retained> chosen = ResumePoint.choose(found);
    assertThat(chosen)
        .map(Retained::path)
        .contains(cps.resolve(RUN_B).resolve("chk-2").toAbsolutePath().toUri().toString());
    assertThat(a4).exists();
  }

  @Test
  void scanReadsTheSavepointMarkerAndItsCompletionTime() throws Exception {
    Path cps = dir.resolve("checkpoints");
    ResumePoint.recordRun(cps, JOB, RUN_A);
    complete(cps.resolve(RUN_A).resolve("chk-8"), 100);
    Path savepoint = complete(dir.resolve("savepoints").resolve("savepoint-aaaaaa-1"), 150);
    Path marker = dir.resolve("savepoints").resolve(JOB + ".latest");
    Files.writeString(marker, savepoint.toUri() + "\n");

    Optional<Retained> chosen = ResumePoint.choose(ResumePoint.scan(cps, JOB, marker));

    assertThat(chosen).map(Retained::kind).contains(Kind.SAVEPOINT);
    assertThat(chosen).map(Retained::path).contains(savepoint.toUri().toString());
    assertThat(chosen).map(Retained::completed).contains(T.plusSeconds(150));
  }

  @Test
  void noRunsRecordedMeansNoCheckpoints() throws Exception {
    Path cps = dir.resolve("checkpoints");
    complete(cps.resolve(RUN_A).resolve("chk-8"), 100);
    assertThat(ResumePoint.scan(cps, JOB, dir.resolve("none.latest"))).isEmpty();
  }

  @Test
  void pruningKeepsOnlyTheChosenCheckpointsRun() throws Exception {
    Path cps = dir.resolve("checkpoints");
    ResumePoint.recordRun(cps, JOB, RUN_A);
    ResumePoint.recordRun(cps, JOB, RUN_B);
    ResumePoint.recordRun(cps, "other-job", OTHER);
    complete(cps.resolve(RUN_A).resolve("chk-4"), 100);
    complete(cps.resolve(RUN_B).resolve("chk-2"), 200);
    complete(cps.resolve(OTHER).resolve("chk-9"), 50);
    Optional<Retained> chosen =
        ResumePoint.choose(ResumePoint.scan(cps, JOB, dir.resolve("none.latest")));

    assertThat(ResumePoint.prune(cps, JOB, chosen)).containsExactly(cps.resolve(RUN_A));

    assertThat(cps.resolve(RUN_A)).doesNotExist();
    assertThat(cps.resolve(RUN_B).resolve("chk-2").resolve(ResumePoint.METADATA)).exists();
    assertThat(cps.resolve(OTHER)).as("another job's run").exists();
    assertThat(ResumePoint.runs(cps, JOB)).containsExactly(RUN_B);
    assertThat(
            ResumePoint.choose(ResumePoint.scan(cps, JOB, dir.resolve("none.latest")))
                .map(Retained::path))
        .as("the same choice after pruning")
        .isEqualTo(chosen.map(Retained::path));
  }

  @Test
  void pruningAfterChoosingTheSavepointDropsEveryRun() throws Exception {
    Path cps = dir.resolve("checkpoints");
    ResumePoint.recordRun(cps, JOB, RUN_A);
    complete(cps.resolve(RUN_A).resolve("chk-4"), 100);
    Path savepoint = complete(dir.resolve("savepoints").resolve("savepoint-bbbbbb-1"), 200);
    Path marker = dir.resolve("savepoints").resolve(JOB + ".latest");
    Files.writeString(marker, savepoint + "\n");
    Optional<Retained> chosen = ResumePoint.choose(ResumePoint.scan(cps, JOB, marker));

    assertThat(ResumePoint.prune(cps, JOB, chosen)).containsExactly(cps.resolve(RUN_A));
    assertThat(ResumePoint.runs(cps, JOB)).isEmpty();
    assertThat(savepoint).exists();
  }

  @Test
  void nothingChosenPrunesNothing() throws Exception {
    Path cps = dir.resolve("checkpoints");
    ResumePoint.recordRun(cps, JOB, RUN_A);
    Files.createDirectories(cps.resolve(RUN_A).resolve("chk-1")); // incomplete
    assertThat(ResumePoint.prune(cps, JOB, Optional.empty())).isEmpty();
    assertThat(ResumePoint.runs(cps, JOB)).containsExactly(RUN_A);
  }

  /** A checkpoint directory with its _metadata written at T + second. */
  private static Path complete(Path chk, long second) throws Exception {
    Files.createDirectories(chk);
    Path metadata = chk.resolve(ResumePoint.METADATA);
    Files.writeString(metadata, "m");
    Files.setLastModifiedTime(metadata, FileTime.from(T.plusSeconds(second)));
    return chk;
  }
}
