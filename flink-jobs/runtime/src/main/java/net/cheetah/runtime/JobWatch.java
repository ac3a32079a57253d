package net.cheetah.runtime;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.JobStatus;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sees every restart and every unrequested end of an embedded cluster's jobs and hands each, with
 * its cause, to a {@link Listener}, which tells the user: a restart (the job threw, and Flink
 * restarted it) and a job that ended by itself (FAILED once its restart strategy gave up, or
 * cancelled from the web UI). Reads the REST API every {@code every} (restart counts reach it
 * within one metrics refresh). Jobs stopped on purpose are {@link #forget forgotten} first.
 */
public final class JobWatch implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(JobWatch.class);

  /** How long the REST API may lag behind a job (its execution graph is cached ~3 s). */
  private static final Duration CAUSE_WAIT = Duration.ofSeconds(6);

  /** What the owner of the jobs does about a restart or an end it did not ask for. */
  public interface Listener {
    void restarted(String job, long restarts, String cause);

    void ended(String job, JobStatus status, long restarts, String cause);
  }

  private static final class Watched {
    final JobID id;

    /** Restarts reported so far. */
    long restarts;

    /** Time of the newest failure reported (exception history timestamps). */
    long lastFailureMs = Long.MIN_VALUE;

    Watched(JobID id) {
      this.id = id;
    }
  }

  private final EmbeddedFlink flink;
  private final Duration every;
  private final Listener listener;
  private final Map<String, Watched> watched = new LinkedHashMap<>(); // guarded by this
  private Thread thread; // guarded by this
  private volatile boolean closed;

  /** Inert until {@link #start()}. */
  public JobWatch(EmbeddedFlink flink, Duration every, Listener listener) {
    this.flink = flink;
    this.every = every;
    this.listener = listener;
  }

  public synchronized void start() {
    if (thread != null) {
      throw new IllegalStateException("The job watch is already running");
    }
    thread = new Thread(this::run, "cheetah-job-watch");
    thread.setDaemon(true);
    thread.start();
  }

  /** Reports restarts of {@code id} and its end, under {@code name}. */
  public synchronized void watch(String name, JobID id) {
    watched.put(name, new Watched(id));
  }

  /** Before stopping a job on purpose: its end is then no failure. */
  public synchronized void forget(String name) {
    watched.remove(name);
  }

  @Override
  public void close() {
    Thread t;
    synchronized (this) {
      closed = true;
      t = thread;
      thread = null;
    }
    if (t != null) {
      t.interrupt();
      try {
        t.join(TimeUnit.SECONDS.toMillis(10));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  private void run() {
    while (!closed) {
      checkAll();
      try {
        Thread.sleep(every.toMillis());
      } catch (InterruptedException e) {
        return;
      }
    }
  }

  /** One look at every watched job (the poll thread; tests may call it directly). */
  void checkAll() {
    List<Map.Entry<String, Watched>> jobs;
    synchronized (this) {
      jobs = new ArrayList<>(watched.entrySet());
    }
    for (Map.Entry<String, Watched> job : jobs) {
      if (closed) {
        return;
      }
      try {
        check(job.getKey(), job.getValue());
      } catch (RuntimeException e) {
        // The cluster is stopping, or its REST API was slow: the next look tries again.
        LOG.debug("Could not check job {}: {}", job.getKey(), e.getMessage());
      }
    }
  }

  private void check(String name, Watched job) {
    JobStatus status = flink.status(job.id);
    if (status == JobStatus.FAILING) {
      // Its restart strategy gave up: the failure being handled ends the job, it is no restart,
      // but the restart count may already include it (seen under load: "FAILED after 3
      // restart(s)" with 2 allowed, and its cause missing). The next look sees FAILED.
      return;
    }
    boolean ended = status.isGloballyTerminalState();
    if (ended) {
      // The REST API caches a job for a few seconds: read it once it shows the end too.
      Wait.until(
          "the REST API to show job " + name + " ended",
          CAUSE_WAIT,
          Duration.ofMillis(250),
          () -> closed || FlinkRest.ENDED.contains(flink.shownState(job.id)));
    }
    boolean failed = status == JobStatus.FAILED;
    long counted = flink.restarts(job.id).orElse(0);
    // Each failure in the history since the last look restarted the job, except the newest of a
    // FAILED job: that one ended it. The count and the history are refreshed separately: when
    // the count is ahead, wait a little for the history to show the failures behind it.
    long wanted = counted - job.restarts + (failed ? 1 : 0);
    List<FlinkRest.Failure> fresh = wanted > 0 ? freshFailures(job, wanted) : new ArrayList<>();
    FlinkRest.Failure last = failed && !fresh.isEmpty() ? fresh.remove(fresh.size() - 1) : null;
    for (FlinkRest.Failure f : fresh) {
      job.restarts++;
      job.lastFailureMs = Math.max(job.lastFailureMs, f.timestampMs());
      listener.restarted(name, job.restarts, describe(f));
    }
    while (job.restarts < counted) { // older than the history keeps (16 failures)
      job.restarts++;
      listener.restarted(
          name, job.restarts, "(cause no longer in the exception history; see the Flink web UI)");
    }
    if (!ended) {
      return;
    }
    synchronized (this) {
      if (watched.remove(name) == null) {
        return; // forgotten meanwhile: stopped on purpose
      }
    }
    String cause =
        !failed
            ? "nobody in Cheetah asked for it (cancelled from the web UI or REST API?)"
            : last == null
                ? "(cause not reported; see the Flink web UI, " + flink.restUrl() + ")"
                : describe(last);
    listener.ended(name, status, job.restarts, cause);
  }

  /**
   * The job's failures newer than the last one reported, oldest first, once there are {@code
   * wanted} of them or {@link #CAUSE_WAIT} has passed.
   */
  private List<FlinkRest.Failure> freshFailures(Watched job, long wanted) {
    long deadline = System.nanoTime() + CAUSE_WAIT.toNanos();
    List<FlinkRest.Failure> fresh = newerThan(flink.failures(job.id), job.lastFailureMs);
    while (fresh.size() < Math.min(wanted, 16) && System.nanoTime() < deadline && !closed) {
      try {
        Thread.sleep(250);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
      fresh = newerThan(flink.failures(job.id), job.lastFailureMs);
    }
    return fresh;
  }

  private static List<FlinkRest.Failure> newerThan(List<FlinkRest.Failure> history, long ms) {
    List<FlinkRest.Failure> fresh = new ArrayList<>();
    for (FlinkRest.Failure f : history) { // newest first
      if (f.timestampMs() > ms) {
        fresh.add(0, f);
      }
    }
    return fresh;
  }

  private static String describe(FlinkRest.Failure failure) {
    return failure.cause() + (failure.task().isEmpty() ? "" : " (in " + failure.task() + ")");
  }
}
