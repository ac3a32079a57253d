package net.cheetah.runtime;

/**
 * A part of a running system (a broker, a cluster, a child process), shaped like Akvorado's
 * components: its configuration comes in through an inert constructor (nothing starts, nothing is
 * opened), {@link #start()} brings it up or throws, {@link #stop()} takes it down and may be called
 * at any point, twice, or after a failed start. {@link Components} starts several in order and
 * stops them in reverse.
 */
public interface Component extends AutoCloseable {
  /** Starts the component; returns once it serves, or throws and leaves nothing running. */
  void start() throws Exception;

  /** Whether it is up (started and not stopped, and its process or server alive). */
  boolean running();

  /** Stops it and releases what it holds; a no-op when it is not running. */
  void stop() throws Exception;

  @Override
  default void close() throws Exception {
    stop();
  }
}
