package net.cheetah.runtime;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.function.BiConsumer;

/**
 * Starts components in dependency order and stops them in reverse: the ones started so far are
 * stopped when a later one fails to start, and every one is stopped even when an earlier {@code
 * stop} throws (each failure goes to the reporter, none hides the others).
 */
public final class Components implements AutoCloseable {
  private final List<NamedComponent> order;
  private final BiConsumer<String, Exception> onStopFailure;
  private final Deque<NamedComponent> started = new ArrayDeque<>(); // guarded by this

  /** A component and the name failures are reported under. */
  public record NamedComponent(String name, Component component) {}

  /**
   * @param order the components, each after the ones it depends on
   * @param onStopFailure told about each {@code stop} that throws (name, exception)
   */
  public Components(List<NamedComponent> order, BiConsumer<String, Exception> onStopFailure) {
    this.order = List.copyOf(order);
    this.onStopFailure = onStopFailure;
  }

  public static NamedComponent named(String name, Component component) {
    return new NamedComponent(name, component);
  }

  /**
   * Starts each component in order. If one throws, the ones already started are stopped (in
   * reverse) and its exception is rethrown.
   */
  public void start() throws Exception {
    for (NamedComponent c : order) {
      try {
        c.component().start();
      } catch (Exception e) {
        try {
          c.component().stop(); // a half-started component releases what it took
        } catch (Exception stopFailure) {
          e.addSuppressed(stopFailure);
        }
        stop();
        throw e;
      }
      synchronized (this) {
        started.push(c);
      }
    }
  }

  /** Whether every component is started and running. */
  public synchronized boolean running() {
    return started.size() == order.size()
        && started.stream().allMatch(c -> c.component().running());
  }

  /** Stops the started components in reverse order, each even if another's stop threw. */
  public void stop() {
    while (true) {
      NamedComponent c;
      synchronized (this) {
        c = started.poll();
      }
      if (c == null) {
        return;
      }
      try {
        c.component().stop();
      } catch (Exception e) {
        onStopFailure.accept(c.name(), e);
      }
    }
  }

  @Override
  public void close() {
    stop();
  }
}
