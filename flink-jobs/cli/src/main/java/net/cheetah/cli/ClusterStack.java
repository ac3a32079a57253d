package net.cheetah.cli;

import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import net.cheetah.runtime.FlinkRest;

/**
 * The demo's view of a running {@code ./cheetah cluster} with its jobs submitted: addresses from
 * the cluster's state, job states and restart counts from the JobManager's REST API. The cluster
 * keeps running after the demo ({@code ./cheetah cluster down} stops it).
 */
final class ClusterStack implements RunningStack {
  private final ClusterState state;
  // Replaced when the jobs are submitted again (the chaos soak's JobManager recovery).
  private volatile Map<String, String> jobs;
  private final FlinkRest rest;

  ClusterStack(ClusterState state, Map<String, String> jobs) {
    this.state = state;
    this.jobs = Map.copyOf(jobs);
    this.rest = new FlinkRest(state.data().restUrl());
  }

  /** The jobs now run under these ids (submitted again after the JobManager was lost). */
  void resubmitted(Map<String, String> jobs) {
    this.jobs = Map.copyOf(jobs);
  }

  /** The current job ids, by name. */
  Map<String, String> jobs() {
    return jobs;
  }

  @Override
  public String bootstrap() {
    return state.data().bootstrap();
  }

  @Override
  public Map<String, String> kafkaSecurity(String principal) {
    return state.data().clientSecurity(principal);
  }

  @Override
  public java.util.Optional<java.nio.file.Path> librdkafkaConfig(String principal) {
    if (state.data().kafkaSecurity().isEmpty()) {
      return java.util.Optional.empty();
    }
    return java.util.Optional.of(
        new ClusterSecurity(Cluster.securityDir(state)).librdkafka(principal));
  }

  @Override
  public String warehouseUrl() {
    return state.data().warehouseUrl();
  }

  @Override
  public int netflowPort() {
    return state.data().netflowPort();
  }

  @Override
  public int sflowPort() {
    return state.process("goflow2").map(p -> p.ports().getOrDefault("sflow-udp", 0)).orElse(0);
  }

  @Override
  public String collectorMetricsUrl() {
    int port =
        state
            .process("goflow2")
            .map(p -> p.ports().getOrDefault("metrics", 0))
            .filter(p -> p > 0)
            .orElseThrow(
                () -> new IllegalStateException("the cluster's state has no goflow2 metrics port"));
    return "http://127.0.0.1:" + port + "/metrics";
  }

  @Override
  public long awaitWarehouseCaughtUp(Duration timeout) throws InterruptedException {
    return Warehouse.awaitCaughtUp(bootstrap(), kafkaSecurity(KafkaPrincipals.ADMIN), timeout);
  }

  /** Each job's numRestarts (its exception history once it ended); fails while one is unknown. */
  @Override
  public Map<String, Long> jobRestarts() {
    Map<String, Long> restarts = new TreeMap<>();
    jobs.forEach(
        (name, id) ->
            restarts.put(
                name,
                rest.restarts(id)
                    .orElseThrow(
                        () ->
                            new IllegalStateException(
                                "the Flink REST API reports no restart count (numRestarts) for job "
                                    + name
                                    + " ("
                                    + id
                                    + ") yet"))));
    return restarts;
  }

  /** A job that FAILED (its restart attempts used up) or was cancelled never delivers. */
  @Override
  public void requireJobsRunning() {
    jobs.forEach(
        (name, id) -> {
          String s = rest.state(id);
          if (FlinkRest.ENDED.contains(s)) {
            throw new IllegalStateException(
                "Flink job " + name + " ended " + s + ": " + rest.failures(id));
          }
        });
  }

  /** The state of each job (RUNNING while healthy), by name. */
  Map<String, String> jobStates() {
    Map<String, String> states = new TreeMap<>();
    jobs.forEach((name, id) -> states.put(name, rest.state(id)));
    return states;
  }

  @Override
  public void finish(Duration warehouseCatchUp) {
    DemoCommand.say("the cluster keeps running: ./cheetah cluster status; ./cheetah cluster down");
  }
}
