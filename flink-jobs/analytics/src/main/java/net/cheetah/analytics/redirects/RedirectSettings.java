package net.cheetah.analytics.redirects;

import java.io.Serializable;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * What the redirect job may do (ARCHITECTURE.md, "Redirect commands"): which links are monitored
 * and which device acts for each, the action, and the guardrails checked before signing.
 *
 * @param linkDevices link id (or exporter address, for NetFlow cheetahs without a link) → device
 * @param monitoredLinks links whose cheetahs are isolated; empty = every link with a device
 * @param protectedPrefixes never matched by a rule, as source or destination
 * @param maxRulesPerDevice K: at most this many active rules per device
 * @param maxNewRulesPerMinute new rules per device per minute (a token bucket of that size)
 * @param ruleTtlMs every rule expires this long after it is issued
 * @param dryRun decide and record, publish nothing
 * @param dscp mark used with the DSCP action; 0 = move to the scavenger class instead
 */
public record RedirectSettings(
    Map<String, String> linkDevices,
    Set<String> monitoredLinks,
    List<Prefix> protectedPrefixes,
    int maxRulesPerDevice,
    int maxNewRulesPerMinute,
    long ruleTtlMs,
    boolean dryRun,
    int dscp)
    implements Serializable {

  public RedirectSettings {
    linkDevices = Map.copyOf(linkDevices);
    monitoredLinks = Set.copyOf(monitoredLinks);
    protectedPrefixes = List.copyOf(protectedPrefixes);
    if (maxRulesPerDevice < 1 || maxNewRulesPerMinute < 1 || ruleTtlMs < 1) {
      throw new IllegalArgumentException("K, the rule rate and the rule TTL must be >= 1");
    }
    if (dscp < 0 || dscp > 63) {
      throw new IllegalArgumentException("DSCP must be 0..63, got " + dscp);
    }
  }

  /** The device acting for a link, if the link is monitored. */
  public Optional<String> deviceFor(String link) {
    if (!monitoredLinks.isEmpty() && !monitoredLinks.contains(link)) {
      return Optional.empty();
    }
    return Optional.ofNullable(linkDevices.get(link));
  }
}
