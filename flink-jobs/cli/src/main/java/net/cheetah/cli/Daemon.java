package net.cheetah.cli;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Predicate;

/**
 * A process of {@code ./cheetah cluster} that outlives the command that started it: its own session
 * ({@code setsid}), stdin from /dev/null, stdout and stderr appended to one log file. It is found
 * again by PID and start time (so a reused PID is never mistaken for it) and signalled by PID only.
 */
final class Daemon {
  private Daemon() {}

  /** A started process: its PID and its start time as the kernel reports it. */
  record Handle(long pid, String started) {
    /** The process is still the one started (same PID and start time) and has not exited. */
    boolean alive() {
      return process().isPresent();
    }

    Optional<ProcessHandle> process() {
      return ProcessHandle.of(pid)
          .filter(ProcessHandle::isAlive)
          .filter(p -> started.equals(startTime(p)));
    }

    /** SIGTERM, then SIGKILL once {@code timeout} passed; true if it had to be killed. */
    boolean stop(Duration timeout) {
      Optional<ProcessHandle> p = process();
      if (p.isEmpty()) {
        return false;
      }
      p.get().destroy();
      if (awaitExit(timeout)) {
        return false;
      }
      kill();
      awaitExit(Duration.ofSeconds(10));
      return true;
    }

    /** SIGKILL, as a crash would end it. */
    void kill() {
      process().ifPresent(ProcessHandle::destroyForcibly);
    }

    boolean awaitExit(Duration timeout) {
      long deadline = System.nanoTime() + timeout.toNanos();
      while (alive()) {
        if (System.nanoTime() > deadline) {
          return false;
        }
        sleep(100);
      }
      return true;
    }
  }

  /**
   * Starts {@code command} detached, appending its output to {@code log}; returns once it runs.
   * {@code setsid} gives it its own session, so neither the end of this JVM nor a Ctrl-C in the
   * terminal that ran {@code cluster up} reaches it.
   */
  static Handle start(List<String> command, Map<String, String> env, Path log) throws IOException {
    Files.createDirectories(log.getParent());
    List<String> cmd = new ArrayList<>();
    cmd.add("setsid");
    cmd.addAll(command);
    ProcessBuilder pb =
        new ProcessBuilder(cmd)
            .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
            .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
            .redirectErrorStream(true);
    pb.environment().putAll(env);
    Process p = pb.start();
    // setsid execs in place (a child of this JVM is no process group leader): same PID. Returned
    // only once it leads its own session: until setsid ran, a Ctrl-C would still reach it.
    String started = startTime(p.toHandle());
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (p.isAlive() && sessionId(p.pid()) != p.pid()) {
      if (System.nanoTime() > deadline) {
        p.destroyForcibly();
        throw new IOException("setsid did not give " + command.get(0) + " its own session in 10 s");
      }
      sleep(5);
    }
    return new Handle(p.pid(), started);
  }

  /** The session a process belongs to (field 6 of /proc/PID/stat), or -1 if it is gone. */
  static long sessionId(long pid) {
    try {
      String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
      // The command name (field 2) is in parentheses and may hold spaces: count after it.
      String[] after = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
      return Long.parseLong(after[3]);
    } catch (IOException | RuntimeException e) {
      return -1;
    }
  }

  /** The start time of a process, as text ("" if the kernel does not say). */
  static String startTime(ProcessHandle p) {
    return p.info().startInstant().map(Instant::toString).orElse("");
  }

  /** Size of a log now: what a process writes after this offset is new. */
  static long logSize(Path log) {
    try {
      return Files.exists(log) ? Files.size(log) : 0;
    } catch (IOException e) {
      return 0;
    }
  }

  /** The first line written to {@code log} after {@code offset} that matches, if any yet. */
  static Optional<String> lineAfter(Path log, long offset, Predicate<String> matcher) {
    try {
      if (!Files.exists(log)) {
        return Optional.empty();
      }
      byte[] all = Files.readAllBytes(log);
      if (all.length <= offset) {
        return Optional.empty();
      }
      String text =
          new String(all, (int) offset, all.length - (int) offset, StandardCharsets.UTF_8);
      return text.lines().filter(matcher).findFirst();
    } catch (IOException e) {
      return Optional.empty();
    }
  }

  /** The last {@code n} lines of a log, for error messages. */
  static String tail(Path log, int n) {
    try {
      List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
      return String.join("\n", lines.subList(Math.max(0, lines.size() - n), lines.size()));
    } catch (IOException e) {
      return "(no log at " + log + ")";
    }
  }

  static void sleep(long ms) {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }
}
