package net.cheetah.runtime;

/**
 * A {@link Component} that is one child process: {@link #start()} sets {@link #process} once the
 * program serves; it runs while that process is alive, and {@link #stop()} ends it with SIGTERM
 * (then SIGKILL after the process's grace period), so the program can flush what it holds.
 */
public abstract class ProcessComponent implements Component {
  /** The running program, or null before a start and after a stop. */
  protected ChildProcess process;

  @Override
  public boolean running() {
    return process != null && process.isAlive();
  }

  @Override
  public void stop() {
    if (process != null) {
      process.stop();
      process = null;
    }
  }
}
