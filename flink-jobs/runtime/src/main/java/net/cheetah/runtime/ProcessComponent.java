package net.cheetah.runtime;

import java.util.concurrent.CompletableFuture;

/**
 * A {@link Component} that is one child process: {@link #start()} sets {@link #process} once the
 * program serves and calls {@link #watchExit}; it runs while that process is alive, and {@link
 * #stop()} ends it with SIGTERM (then SIGKILL after the process's grace period), so the program can
 * flush what it holds. An end that {@link #stop()} did not ask for completes {@link
 * #endedByItself()}: whoever runs the component must not carry on as if it still served.
 */
public abstract class ProcessComponent implements Component {
  /** The running program, or null before a start and after a stop. */
  protected ChildProcess process;

  private final CompletableFuture<String> endedByItself = new CompletableFuture<>();
  private volatile boolean stopping;

  @Override
  public boolean running() {
    return process != null && process.isAlive();
  }

  /**
   * Completes, saying what ended and where its log is, once the started process exits without
   * {@link #stop()} having asked it to (a crash, a SIGKILL, its own exit).
   */
  public CompletableFuture<String> endedByItself() {
    return endedByItself;
  }

  /**
   * Watches {@link #process}, just started, for an end nobody asked for ({@link #endedByItself}).
   */
  protected final void watchExit(String what) {
    ChildProcess started = process;
    long pid = started.pid();
    stopping = false;
    started
        .onExit()
        .thenAccept(
            code -> {
              if (!stopping) {
                endedByItself.complete(
                    what
                        + " (PID "
                        + pid
                        + ") exited by itself with code "
                        + code
                        + (code > 128 ? " (signal " + (code - 128) + ")" : "")
                        + "; its log: "
                        + started.config().stderrLog());
              }
            });
  }

  @Override
  public void stop() {
    stopping = true;
    if (process != null) {
      process.stop();
      process = null;
    }
  }
}
