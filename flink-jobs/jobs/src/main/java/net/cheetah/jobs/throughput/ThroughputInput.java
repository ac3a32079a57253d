package net.cheetah.jobs.throughput;

import java.nio.charset.StandardCharsets;
import net.cheetah.analytics.throughput.Transfer;
import net.cheetah.core.flow.Flow;

/**
 * One input of the throughput job's host-pair operator: a flows.v1 record or a transfers.v1 record
 * (the other field null). Both are records of plain fields, so Flink serialises it without Kryo.
 */
public record ThroughputInput(Flow flow, Transfer transfer) {
  public static ThroughputInput of(Flow f) {
    return new ThroughputInput(f, null);
  }

  public static ThroughputInput of(Transfer t) {
    return new ThroughputInput(null, t);
  }

  /** The host pair as the Kafka key of throughput.v1 and alerts.v1: sender, newline, receiver. */
  public String pairKey() {
    return flow != null
        ? pairKey(flow.key().src().toString(), flow.key().dst().toString())
        : pairKey(transfer.src(), transfer.dst());
  }

  /** Event time: the end (when an exporter or a tool could first report it). */
  public long eventMs() {
    return flow != null ? flow.endMs() : transfer.endMs();
  }

  public static String pairKey(String src, String dst) {
    return src + "\n" + dst;
  }

  public static byte[] keyBytes(String src, String dst) {
    return pairKey(src, dst).getBytes(StandardCharsets.UTF_8);
  }
}
