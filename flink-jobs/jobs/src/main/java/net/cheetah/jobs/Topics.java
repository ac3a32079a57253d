package net.cheetah.jobs;

/**
 * Kafka topic names as schemas/topics.yaml lists them (docs/ARCHITECTURE.md, "Kafka topics"). The
 * runtime's topic list (partitions, retention) refers to these.
 */
public final class Topics {
  private Topics() {}

  public static final String GOFLOW2 = "flows.goflow2.v1";
  public static final String FLOWS = "flows.v1";
  public static final String REJECTED = "flows.rejected.v1";
  public static final String PROBE_FLIGHTS = "probe.flights.v1";
  public static final String PROBE_BINS = "probe.bins.v1";
  public static final String PROBE_PACKETS = "probe.packets.v1";

  /** The probe's live counters (health), for the NOC. */
  public static final String PROBE_COUNTERS = "probe.counters.v1";

  public static final String SNMP_COUNTERS = "snmp.counters.v1";
  public static final String TRANSFERS = "transfers.v1";
  public static final String CHEETAHS = "cheetahs.v1";
  public static final String FLOWSETS = "flowsets.v1";
  public static final String LINKS_STATS = "links.stats.v1";
  public static final String THRESHOLDS = "thresholds.v1";
  public static final String REDIRECTS_COMMANDS = "redirects.commands.v1";
  public static final String REDIRECTS_DECISIONS = "redirects.decisions.v1";
  public static final String REDIRECTS_ACKS = "redirects.acks.v1";
  public static final String THROUGHPUT = "throughput.v1";
  public static final String ALERTS = "alerts.v1";
}
