package net.cheetah.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The checkpoint the chaos soak resumes a job from after a JobManager kill. */
class ClusterChaosCommandTest {
  @TempDir Path dir;

  @Test
  void newestCompleteCheckpointByNumberNotByName() throws Exception {
    Path job = dir.resolve("job1");
    for (String chk : new String[] {"chk-9", "chk-10", "chk-11"}) {
      Files.createDirectories(job.resolve(chk));
    }
    Files.writeString(job.resolve("chk-9/_metadata"), "x");
    Files.writeString(job.resolve("chk-10/_metadata"), "x");
    // chk-11 is in progress (no _metadata): a JobManager killed mid-checkpoint leaves one.
    Files.createDirectories(job.resolve("shared"));
    Files.createDirectories(job.resolve("taskowned"));
    assertEquals(
        Optional.of(job.resolve("chk-10").toUri().toString()),
        ClusterChaosCommand.latestCheckpoint(dir, "job1"));
  }

  @Test
  void noCheckpointYet() throws Exception {
    assertEquals(Optional.empty(), ClusterChaosCommand.latestCheckpoint(dir, "job2"));
    Files.createDirectories(dir.resolve("job3/chk-1"));
    assertEquals(Optional.empty(), ClusterChaosCommand.latestCheckpoint(dir, "job3"));
  }
}
