package net.cheetah.analytics.redirects;

import net.cheetah.analytics.Address;

/**
 * A cheetahs.v1 event as the redirect job needs it (from NetFlow or the probe).
 *
 * @param link the link id, or the exporter's address when the event has none
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
    long thresholdVersion) {

  public enum Kind {
    START,
    UPDATE,
    END
  }
}
