package net.cheetah.cli;

import java.time.Duration;
import java.util.Map;

/**
 * A running pipeline the demo's workload and truth check run on: the embedded {@link Stack}, or the
 * processes of {@code ./cheetah cluster} ({@link ClusterStack}).
 */
interface RunningStack {
  /** HOST:PORT,... of the Kafka brokers. */
  String bootstrap();

  /**
   * The Java client properties that make a client {@code principal} on these brokers (none without
   * Kafka security).
   */
  default Map<String, String> kafkaSecurity(String principal) {
    return Map.of();
  }

  /** librdkafka's configuration file for {@code principal}, when the brokers need one. */
  default java.util.Optional<java.nio.file.Path> librdkafkaConfig(String principal) {
    return java.util.Optional.empty();
  }

  /** The warehouse's HTTP URL. */
  String warehouseUrl();

  /** The UDP port goflow2 listens on for NetFlow/IPFIX. */
  int netflowPort();

  /** The UDP port goflow2 listens on for sFlow v5 (0: none known, a cluster started before it). */
  int sflowPort();

  /** goflow2's Prometheus endpoint (its counters: {@link CollectorMetrics}). */
  String collectorMetricsUrl();

  /** Until the warehouse consumed everything committed; the lag left (0 caught up, -1 unknown). */
  long awaitWarehouseCaughtUp(Duration timeout) throws InterruptedException;

  /** How often each job restarted, by name (the REST API's numRestarts). */
  Map<String, Long> jobRestarts();

  /** Throws, saying why, if a job has ended by itself (it would never deliver its results). */
  void requireJobsRunning();

  /** What happens once the demo has checked everything (the embedded stack stops cleanly). */
  void finish(Duration warehouseCatchUp) throws Exception;
}
