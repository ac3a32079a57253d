package net.cheetah.runtime;

import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import java.util.function.Predicate;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An external program run by the embedded supervisor (goflow2, the probe, the warehouse). Stdout
 * and stderr are each drained by a thread into {@code <logDirectory>/<name>.stdout.log} and {@code
 * <name>.stderr.log} (appended, so restarts keep history) and handed line by line to optional
 * listeners. {@link #stop()} signals this process and the processes it started, by PID only.
 */
public final class ChildProcess implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(ChildProcess.class);
  private static final Pattern SAFE_NAME = Pattern.compile("[A-Za-z0-9._-]+");
  private static final int TAIL_IN_MESSAGES = 20;
  private static final long EXIT_POLL_NANOS = TimeUnit.MILLISECONDS.toNanos(20);

  /**
   * What to run.
   *
   * @param name short name used in log file names and messages ({@code [A-Za-z0-9._-]+})
   * @param command program and arguments, no shell involved
   * @param environment variables added to (or replacing those of) this JVM's environment
   * @param workingDirectory the child's working directory; this JVM's when empty
   * @param logDirectory where {@code <name>.stdout.log} and {@code <name>.stderr.log} go
   * @param stopTimeout how long {@link #stop()} waits after SIGTERM before SIGKILL
   * @param tailLines how many recent lines of each stream are kept for {@link #awaitLine} and error
   *     messages
   * @param lifeline keep the child's stdin open instead of closing it at start: nothing is written
   *     to it, but the kernel closes it when this JVM dies in any way (kill -9 included), so a
   *     program that exits at end of input never outlives this JVM and the ports it holds
   */
  public record Config(
      String name,
      List<String> command,
      Map<String, String> environment,
      Optional<Path> workingDirectory,
      Path logDirectory,
      Duration stopTimeout,
      int tailLines,
      boolean lifeline) {

    public static final Duration DEFAULT_STOP_TIMEOUT = Duration.ofSeconds(10);
    public static final int DEFAULT_TAIL_LINES = 200;

    public Config {
      if (name == null || !SAFE_NAME.matcher(name).matches()) {
        throw new IllegalArgumentException(
            "Child process name '" + name + "' must match " + SAFE_NAME + " (it names log files)");
      }
      if (command == null || command.isEmpty()) {
        throw new IllegalArgumentException("Child process " + name + " has an empty command");
      }
      command = List.copyOf(command);
      environment = Map.copyOf(environment);
      if (stopTimeout.isNegative()) {
        throw new IllegalArgumentException("Child process " + name + ": stopTimeout < 0");
      }
      if (tailLines < 1) {
        throw new IllegalArgumentException("Child process " + name + ": tailLines must be >= 1");
      }
    }

    /** Defaults: no extra environment, this JVM's working directory, 10 s stop timeout. */
    public static Config of(String name, Path logDirectory, List<String> command) {
      return new Config(
          name,
          command,
          Map.of(),
          Optional.empty(),
          logDirectory,
          DEFAULT_STOP_TIMEOUT,
          DEFAULT_TAIL_LINES,
          false);
    }

    public Config withEnvironment(Map<String, String> additions) {
      return new Config(
          name,
          command,
          additions,
          workingDirectory,
          logDirectory,
          stopTimeout,
          tailLines,
          lifeline);
    }

    public Config withWorkingDirectory(Path directory) {
      return new Config(
          name,
          command,
          environment,
          Optional.of(directory),
          logDirectory,
          stopTimeout,
          tailLines,
          lifeline);
    }

    public Config withStopTimeout(Duration timeout) {
      return new Config(
          name, command, environment, workingDirectory, logDirectory, timeout, tailLines, lifeline);
    }

    public Config withTailLines(int lines) {
      return new Config(
          name, command, environment, workingDirectory, logDirectory, stopTimeout, lines, lifeline);
    }

    /** See {@code lifeline}: the child's stdin stays open until this JVM stops it or dies. */
    public Config withLifeline() {
      return new Config(
          name, command, environment, workingDirectory, logDirectory, stopTimeout, tailLines, true);
    }

    public Path stdoutLog() {
      return logDirectory.resolve(name + ".stdout.log");
    }

    public Path stderrLog() {
      return logDirectory.resolve(name + ".stderr.log");
    }
  }

  private final Config config;
  private final Drain stdout;
  private final Drain stderr;
  private Process process; // guarded by this
  private volatile boolean stopRequested;

  /** Inert: nothing runs until {@link #start()}. */
  public ChildProcess(Config config) {
    this(config, line -> {}, line -> {});
  }

  /**
   * Inert: nothing runs until {@link #start()}. The listeners run on the drain threads, one line at
   * a time, without the line terminator; an exception thrown by a listener is logged and the line
   * is still written to the log file.
   */
  public ChildProcess(Config config, Consumer<String> onStdoutLine, Consumer<String> onStderrLine) {
    this.config = config;
    this.stdout = new Drain(config.name(), "stdout", config.tailLines(), onStdoutLine);
    this.stderr = new Drain(config.name(), "stderr", config.tailLines(), onStderrLine);
  }

  public Config config() {
    return config;
  }

  /** Starts the program. Fails with the command and the OS error when it cannot be executed. */
  public synchronized void start() {
    if (process != null) {
      throw new IllegalStateException(config.name() + " was already started (pid " + pid() + ")");
    }
    Writer outLog;
    Writer errLog;
    try {
      Files.createDirectories(config.logDirectory());
      outLog = openLog(config.stdoutLog());
      errLog = openLog(config.stderrLog());
    } catch (IOException e) {
      throw new ChildProcessException(
          "Cannot write the logs of "
              + config.name()
              + " under "
              + config.logDirectory()
              + ": "
              + e.getMessage()
              + ". Check that the data directory exists and is writable.",
          e);
    }
    ProcessBuilder builder = new ProcessBuilder(config.command());
    builder.environment().putAll(config.environment());
    config.workingDirectory().ifPresent(dir -> builder.directory(dir.toFile()));
    try {
      process = builder.start();
    } catch (IOException e) {
      closeQuietly(outLog);
      closeQuietly(errLog);
      throw new ChildProcessException(
          "Cannot start "
              + config.name()
              + " "
              + config.command()
              + config.workingDirectory().map(dir -> " in " + dir).orElse("")
              + ": "
              + e.getMessage()
              + ". Check that the program is installed and the path is right.",
          e);
    }
    if (!config.lifeline()) {
      try {
        process.getOutputStream().close(); // the children read nothing from us
      } catch (IOException e) {
        LOG.debug("Closing stdin of {} failed", config.name(), e);
      }
    }
    String header =
        "---- " + Instant.now() + " started pid " + process.pid() + ": " + config.command();
    stdout.start(process.getInputStream(), outLog, header);
    stderr.start(process.getErrorStream(), errLog, header);
    LOG.info("Started {} (pid {}): {}", config.name(), process.pid(), config.command());
  }

  /** The PID; the program must have been started. */
  public synchronized long pid() {
    return started().pid();
  }

  public synchronized boolean isAlive() {
    return process != null && process.isAlive();
  }

  /** The exit code once the program has exited. */
  public synchronized Optional<Integer> exitCode() {
    if (process == null || process.isAlive()) {
      return Optional.empty();
    }
    return Optional.of(process.exitValue());
  }

  /** Completes with the exit code when the program exits. */
  public synchronized CompletableFuture<Integer> onExit() {
    return started().onExit().thenApply(Process::exitValue);
  }

  /** The most recent stdout lines, oldest first. */
  public List<String> stdoutTail() {
    return stdout.tail();
  }

  /** The most recent stderr lines, oldest first. */
  public List<String> stderrTail() {
    return stderr.tail();
  }

  /**
   * Waits until the program prints a stdout line matching {@code matcher} and returns it. Lines
   * printed before this call count too, as long as they are among the last {@link
   * Config#tailLines()} lines. Fails if the program exits or closes stdout first, or on timeout,
   * with the last stderr lines in the message.
   */
  public String awaitLine(Predicate<String> matcher, Duration timeout) {
    return awaitLine(stdout, matcher, timeout);
  }

  /** Like {@link #awaitLine} for stderr lines. */
  public String awaitStderrLine(Predicate<String> matcher, Duration timeout) {
    return awaitLine(stderr, matcher, timeout);
  }

  private String awaitLine(Drain drain, Predicate<String> matcher, Duration timeout) {
    Process running = startedProcess();
    CompletableFuture<String> line = drain.await(matcher);
    try {
      return line.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
    } catch (TimeoutException e) {
      line.cancel(false);
      throw new ChildProcessException(
          config.name()
              + " (pid "
              + running.pid()
              + ") printed no matching "
              + drain.stream
              + " line within "
              + Durations.describe(timeout)
              + "."
              + tailMessage());
    } catch (ExecutionException e) {
      // The stream ended: the program exited or closed it. Give the exit a moment to register.
      try {
        running.waitFor(2, TimeUnit.SECONDS);
      } catch (InterruptedException interrupted) {
        Thread.currentThread().interrupt();
      }
      if (!running.isAlive()) {
        throw new ChildProcessException(
            "Waiting for a "
                + drain.stream
                + " line: "
                + exitDescription(running.exitValue())
                + tailMessage());
      }
      throw new ChildProcessException(
          config.name()
              + " (pid "
              + running.pid()
              + ") closed its "
              + drain.stream
              + " before printing a matching line."
              + tailMessage());
    } catch (InterruptedException e) {
      line.cancel(false);
      Thread.currentThread().interrupt();
      throw new ChildProcessException("Interrupted waiting for " + config.name(), e);
    }
  }

  /**
   * Waits up to {@code timeout} for the program to exit by itself and returns its exit code, or
   * throws if it is still running.
   */
  public int awaitExit(Duration timeout) {
    Process running = startedProcess();
    try {
      if (!running.waitFor(timeout.toNanos(), TimeUnit.NANOSECONDS)) {
        throw new ChildProcessException(
            config.name()
                + " (pid "
                + running.pid()
                + ") is still running after "
                + Durations.describe(timeout));
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new ChildProcessException("Interrupted waiting for " + config.name() + " to exit", e);
    }
    stdout.awaitEnd(Duration.ofSeconds(2));
    stderr.awaitEnd(Duration.ofSeconds(2));
    return running.exitValue();
  }

  /**
   * Throws a {@link ChildProcessException} with the exit code and the last stderr lines if the
   * program has exited without {@link #stop()} being called. For supervisors polling their
   * children.
   */
  public void checkAlive() {
    Process running = startedProcess();
    if (!running.isAlive() && !stopRequested) {
      stderr.awaitEnd(Duration.ofSeconds(2));
      throw new ChildProcessException(exitDescription(running.exitValue()) + tailMessage());
    }
  }

  /**
   * Stops the program: SIGTERM to it, then, once it has exited or {@link Config#stopTimeout()} has
   * passed, SIGTERM to the processes it started that are still alive, then SIGKILL to whatever
   * remains after the timeout. Only PIDs in this process's tree are signalled. Safe to call more
   * than once, and before {@link #start()}.
   */
  public synchronized void stop() {
    if (process == null || (stopRequested && !process.isAlive())) {
      return;
    }
    stopRequested = true;
    ProcessHandle root = process.toHandle();
    boolean wasAlive = process.isAlive();
    // Descendants must be listed before the root exits: orphans are re-parented and lost.
    Set<ProcessHandle> descendants = new LinkedHashSet<>(root.descendants().toList());
    if (wasAlive) {
      LOG.info("Stopping {} (pid {}) with SIGTERM", config.name(), root.pid());
      root.destroy();
    }
    long deadline = System.nanoTime() + config.stopTimeout().toNanos();
    awaitRootExit(deadline);
    descendants.addAll(root.descendants().toList()); // if the root is still alive
    for (ProcessHandle child : descendants) {
      if (isRunning(child)) {
        child.destroy();
      }
    }
    for (ProcessHandle child : descendants) {
      awaitExit(child, deadline);
    }
    List<ProcessHandle> survivors = new ArrayList<>();
    if (process.isAlive()) {
      survivors.add(root);
    }
    descendants.stream().filter(ChildProcess::isRunning).forEach(survivors::add);
    for (ProcessHandle survivor : survivors) {
      LOG.warn(
          "{}: pid {} did not exit within {} of SIGTERM; sending SIGKILL",
          config.name(),
          survivor.pid(),
          Durations.describe(config.stopTimeout()));
      survivor.destroyForcibly();
    }
    long killDeadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    awaitRootExit(killDeadline);
    for (ProcessHandle survivor : survivors) {
      awaitExit(survivor, killDeadline);
    }
    stdout.awaitEnd(Duration.ofSeconds(2));
    stderr.awaitEnd(Duration.ofSeconds(2));
    if (config.lifeline()) {
      try {
        process.getOutputStream().close(); // the lifeline, once its program has gone
      } catch (IOException e) {
        LOG.debug("Closing stdin of {} failed", config.name(), e);
      }
    }
    if (wasAlive && !process.isAlive()) {
      LOG.info("{} (pid {}) stopped, exit code {}", config.name(), root.pid(), process.exitValue());
    }
  }

  /** Waits for our direct child, which the JDK reaps, so its exit code is known afterwards. */
  private void awaitRootExit(long deadlineNanos) {
    try {
      process.waitFor(Math.max(0, deadlineNanos - System.nanoTime()), TimeUnit.NANOSECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Override
  public void close() {
    stop();
  }

  /**
   * Waits for a descendant to exit (or turn zombie) until the deadline. Polls, because the JDK's
   * onExit() of a process that is not our direct child polls too, at 300 ms and more.
   */
  private static void awaitExit(ProcessHandle handle, long deadlineNanos) {
    while (isRunning(handle)) {
      long remaining = deadlineNanos - System.nanoTime();
      if (remaining <= 0) {
        return; // still alive; the caller escalates
      }
      try {
        handle.onExit().get(Math.min(remaining, EXIT_POLL_NANOS), TimeUnit.NANOSECONDS);
      } catch (TimeoutException | ExecutionException e) {
        // poll again
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }

  /**
   * Alive and not a zombie. An orphaned descendant that exited stays a zombie until init reaps it
   * (seconds on some systems), and the JDK counts zombies as alive; a zombie holds no resources.
   */
  private static boolean isRunning(ProcessHandle handle) {
    if (!handle.isAlive()) {
      return false;
    }
    try {
      String stat = Files.readString(Path.of("/proc", String.valueOf(handle.pid()), "stat"));
      int afterName = stat.lastIndexOf(')');
      return afterName < 0 || afterName + 2 >= stat.length() || stat.charAt(afterName + 2) != 'Z';
    } catch (IOException | UncheckedIOException e) {
      return handle.isAlive(); // no /proc (not Linux), or the process is gone
    }
  }

  private String exitDescription(int code) {
    String how =
        code > 128 ? "code " + code + " (killed by signal " + (code - 128) + ")" : "code " + code;
    return config.name() + " " + config.command() + " exited unexpectedly with " + how + ".";
  }

  private String tailMessage() {
    List<String> tail = stderr.tail();
    List<String> last = tail.subList(Math.max(0, tail.size() - TAIL_IN_MESSAGES), tail.size());
    StringBuilder message = new StringBuilder();
    if (last.isEmpty()) {
      message.append(" It printed nothing on stderr");
    } else {
      message.append(" Last stderr lines:");
      for (String line : last) {
        message.append("\n  ").append(line);
      }
      message.append("\n");
    }
    message
        .append(" (logs: ")
        .append(config.stderrLog())
        .append(", ")
        .append(config.stdoutLog())
        .append(")");
    return message.toString();
  }

  private Process started() {
    if (process == null) {
      throw new IllegalStateException(config.name() + " has not been started: call start()");
    }
    return process;
  }

  private synchronized Process startedProcess() {
    return started();
  }

  private static Writer openLog(Path path) throws IOException {
    return new BufferedWriter(
        new java.io.OutputStreamWriter(
            Files.newOutputStream(path, StandardOpenOption.CREATE, StandardOpenOption.APPEND),
            StandardCharsets.UTF_8));
  }

  private static void closeQuietly(Writer writer) {
    try {
      writer.close();
    } catch (IOException e) {
      LOG.debug("Closing a log file failed", e);
    }
  }

  /** One output stream: a thread copying lines to the log, the listener and the tail buffer. */
  private static final class Drain {
    private final String name;
    private final String stream;
    private final int capacity;
    private final Consumer<String> listener;
    private final Deque<String> tail = new ArrayDeque<>(); // guarded by this
    private final List<Waiter> waiters = new ArrayList<>(); // guarded by this
    private boolean ended; // guarded by this
    private Thread thread;

    private record Waiter(Predicate<String> matcher, CompletableFuture<String> result) {}

    Drain(String name, String stream, int capacity, Consumer<String> listener) {
      this.name = name;
      this.stream = stream;
      this.capacity = capacity;
      this.listener = listener;
    }

    void start(InputStream input, Writer log, String header) {
      thread = new Thread(() -> run(input, log, header), "child-" + name + "-" + stream);
      thread.setDaemon(true);
      thread.start();
    }

    private void run(InputStream input, Writer log, String header) {
      try (log;
          BufferedReader reader =
              new BufferedReader(new InputStreamReader(input, StandardCharsets.UTF_8))) {
        log.write(header);
        log.write('\n');
        log.flush();
        String line;
        while ((line = reader.readLine()) != null) {
          log.write(line);
          log.write('\n');
          if (!reader.ready()) {
            log.flush(); // flush when caught up, not per line
          }
          try {
            listener.accept(line);
          } catch (RuntimeException e) {
            LOG.warn("The {} listener of {} failed on line: {}", stream, name, line, e);
          }
          accept(line);
        }
      } catch (IOException e) {
        LOG.debug("Reading {} of {} ended: {}", stream, name, e.toString());
      } catch (UncheckedIOException e) {
        LOG.warn("Reading {} of {} failed", stream, name, e);
      } finally {
        end();
      }
    }

    private synchronized void accept(String line) {
      if (tail.size() == capacity) {
        tail.removeFirst();
      }
      tail.addLast(line);
      for (Iterator<Waiter> it = waiters.iterator(); it.hasNext(); ) {
        Waiter waiter = it.next();
        if (waiter.result().isDone()) {
          it.remove();
        } else if (waiter.matcher().test(line)) {
          waiter.result().complete(line);
          it.remove();
        }
      }
    }

    private synchronized void end() {
      ended = true;
      for (Waiter waiter : waiters) {
        waiter.result().completeExceptionally(new IllegalStateException(stream + " ended"));
      }
      waiters.clear();
      notifyAll();
    }

    synchronized CompletableFuture<String> await(Predicate<String> matcher) {
      CompletableFuture<String> result = new CompletableFuture<>();
      for (String line : tail) {
        if (matcher.test(line)) {
          result.complete(line);
          return result;
        }
      }
      if (ended) {
        result.completeExceptionally(new IllegalStateException(stream + " ended"));
      } else {
        waiters.add(new Waiter(matcher, result));
      }
      return result;
    }

    synchronized List<String> tail() {
      return List.copyOf(tail);
    }

    /** Waits until the stream has been read to its end (all lines are in the tail and log). */
    synchronized void awaitEnd(Duration timeout) {
      long deadline = System.nanoTime() + timeout.toNanos();
      while (!ended && thread != null) {
        long remaining = deadline - System.nanoTime();
        if (remaining <= 0) {
          return; // a grandchild may still hold the pipe open
        }
        try {
          TimeUnit.NANOSECONDS.timedWait(this, remaining);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return;
        }
      }
    }
  }
}
