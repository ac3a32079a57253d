package net.cheetah.core.redirect;

import net.cheetah.core.flow.Address;

/**
 * A cheetahs.v1 event as the redirect job needs it (from NetFlow or the probe).
 *
 * @param link the link id, or the exporter's address when the event has none
 * @param alpha true for a NetFlow cheetah (an α flow, docs/ARCHITECTURE.md, "Prefix filters"): only
 *     these build prefix filters; probe cheetahs never do
 * @param eventMs the event's time (cheetahs.v1 event_ms): an α flow's time for the filter's ageing
 */
public record CheetahSighting(
    String flowId,
    Kind kind,
    String link,
    Address src,
    Address dst,
    int srcPort,
    int dstPort,
    int proto,
    double rateBps,
    long thresholdVersion,
    boolean alpha,
    long eventMs) {

  public enum Kind {
    START,
    UPDATE,
    END
  }
}
