package net.cheetah.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ChildProcessTest {

  @TempDir Path logs;

  private ChildProcess.Config shell(String name, String script) {
    return ChildProcess.Config.of(name, logs, List.of("/bin/sh", "-c", script));
  }

  @Test
  void waitsForReadinessLogsBothStreamsAndStopsTheWholeTree() throws Exception {
    List<String> stdoutLines = new CopyOnWriteArrayList<>();
    List<String> stderrLines = new CopyOnWriteArrayList<>();
    try (ChildProcess child =
        new ChildProcess(
            shell(
                "warehouse",
                "echo starting; echo 'READY http://127.0.0.1:8123'; echo 'a warning' >&2;"
                    + " sleep 30; echo never"),
            stdoutLines::add,
            stderrLines::add)) {
      child.start();
      String ready = child.awaitLine(line -> line.startsWith("READY "), Duration.ofSeconds(10));
      assertThat(ready).isEqualTo("READY http://127.0.0.1:8123");
      child.awaitStderrLine("a warning"::equals, Duration.ofSeconds(10));

      ProcessHandle shell = ProcessHandle.of(child.pid()).orElseThrow();
      List<ProcessHandle> sleepers =
          Wait.forValue(
              "the shell to start sleep",
              Duration.ofSeconds(10),
              () -> {
                List<ProcessHandle> descendants = shell.descendants().toList();
                return descendants.isEmpty()
                    ? java.util.Optional.empty()
                    : java.util.Optional.of(descendants);
              });

      long begin = System.nanoTime();
      child.stop();
      assertThat(Duration.ofNanos(System.nanoTime() - begin))
          .as("SIGTERM suffices, no need to wait for the stop timeout")
          .isLessThan(ChildProcess.Config.DEFAULT_STOP_TIMEOUT);
      assertThat(shell.isAlive()).isFalse();
      assertThat(sleepers).as("sleep, started by the shell").allMatch(ChildProcessTest::exited);
      assertThat(child.isAlive()).isFalse();
      child.checkAlive(); // stopped on purpose: no error

      assertThat(stdoutLines).containsExactly("starting", "READY http://127.0.0.1:8123");
      assertThat(stderrLines).containsExactly("a warning");
      assertThat(Files.readAllLines(logs.resolve("warehouse.stdout.log")))
          .endsWith("starting", "READY http://127.0.0.1:8123");
      assertThat(Files.readAllLines(logs.resolve("warehouse.stderr.log"))).endsWith("a warning");
    }
  }

  /** Gone, or a zombie waiting for init to reap it (the JDK counts zombies as alive). */
  private static boolean exited(ProcessHandle handle) {
    if (!handle.isAlive()) {
      return true;
    }
    try {
      String stat = Files.readString(Path.of("/proc/" + handle.pid() + "/stat"));
      return stat.substring(stat.lastIndexOf(')') + 2).startsWith("Z");
    } catch (java.io.IOException e) {
      return true;
    }
  }

  /**
   * cat ends at the end of its input: without a lifeline at once, with one only once stopped (or
   * once this JVM dies: then the kernel closes the pipe; CrashRecoveryTest kills a JVM for that).
   */
  @Test
  void aLifelineKeepsTheChildsStdinOpenUntilItIsStopped() {
    try (ChildProcess plain = new ChildProcess(shell("plain", "cat; echo eof"))) {
      plain.start();
      plain.awaitLine("eof"::equals, Duration.ofSeconds(10));
    }
    try (ChildProcess tied =
        new ChildProcess(shell("tied", "echo READY; cat; echo eof").withLifeline())) {
      tied.start();
      tied.awaitLine("READY"::equals, Duration.ofSeconds(10));
      assertThatThrownBy(() -> tied.awaitLine("eof"::equals, Duration.ofSeconds(2)))
          .isInstanceOf(ChildProcessException.class)
          .hasMessageContaining("printed no matching");
      assertThat(tied.isAlive()).isTrue();
      tied.stop();
      assertThat(tied.isAlive()).isFalse();
    }
  }

  @Test
  void killsAProgramThatIgnoresSigterm() {
    try (ChildProcess child =
        new ChildProcess(
            shell("stubborn", "trap '' TERM; echo READY; while :; do sleep 0.1; done")
                .withStopTimeout(Duration.ofMillis(300)))) {
      child.start();
      child.awaitLine("READY"::equals, Duration.ofSeconds(10));
      ProcessHandle shell = ProcessHandle.of(child.pid()).orElseThrow();
      child.stop();
      assertThat(shell.isAlive()).isFalse();
      assertThat(child.exitCode()).contains(128 + 9);
    }
  }

  @Test
  void reportsAnUnexpectedExitWithItsCodeAndStderrTail() {
    try (ChildProcess child =
        new ChildProcess(
            shell(
                "goflow2",
                "echo 'listening on :2055' >&2; echo 'bind: permission denied' >&2;"
                    + " exit 3"))) {
      child.start();
      assertThatThrownBy(
              () -> child.awaitLine(line -> line.contains("READY"), Duration.ofSeconds(10)))
          .isInstanceOf(ChildProcessException.class)
          .hasMessageContaining("goflow2")
          .hasMessageContaining("exited unexpectedly with code 3")
          .hasMessageContaining("bind: permission denied")
          .hasMessageContaining(logs.resolve("goflow2.stderr.log").toString());
      assertThatThrownBy(child::checkAlive)
          .isInstanceOf(ChildProcessException.class)
          .hasMessageContaining("code 3")
          .hasMessageContaining("listening on :2055");
      assertThat(child.exitCode()).contains(3);
    }
  }

  @Test
  void timesOutWaitingForALineThatNeverComes() {
    try (ChildProcess child =
        new ChildProcess(shell("slow", "echo 'loading' ; echo 'still loading' >&2; sleep 30"))) {
      child.start();
      assertThatThrownBy(() -> child.awaitLine("READY"::equals, Duration.ofMillis(300)))
          .isInstanceOf(ChildProcessException.class)
          .hasMessageContaining("printed no matching stdout line within 300 ms")
          .hasMessageContaining("still loading");
      assertThat(child.isAlive()).isTrue();
    }
  }

  @Test
  void passesEnvironmentAndWorkingDirectory() throws Exception {
    Path work = Files.createDirectories(logs.resolve("work"));
    try (ChildProcess child =
        new ChildProcess(
            shell("env", "echo \"$CHEETAH_TEST_VALUE $(pwd)\"")
                .withEnvironment(Map.of("CHEETAH_TEST_VALUE", "42"))
                .withWorkingDirectory(work))) {
      child.start();
      assertThat(child.awaitExit(Duration.ofSeconds(10))).isZero();
      assertThat(child.stdoutTail()).containsExactly("42 " + work.toRealPath());
      // a line printed before awaitLine is called still counts
      assertThat(child.awaitLine(line -> line.startsWith("42"), Duration.ofSeconds(1)))
          .startsWith("42 ");
    }
  }

  @Test
  void explainsAProgramThatCannotBeStarted() {
    ChildProcess child =
        new ChildProcess(
            ChildProcess.Config.of("missing", logs, List.of("/nonexistent/cheetah-x")));
    assertThatThrownBy(child::start)
        .isInstanceOf(ChildProcessException.class)
        .hasMessageContaining("/nonexistent/cheetah-x")
        .hasMessageContaining("installed");
    child.stop(); // harmless
  }

  @Test
  void rejectsNamesThatWouldEscapeTheLogDirectory() {
    assertThatThrownBy(() -> ChildProcess.Config.of("../x", logs, List.of("true")))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> ChildProcess.Config.of("x", logs, List.of()))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
