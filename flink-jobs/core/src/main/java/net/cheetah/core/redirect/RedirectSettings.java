package net.cheetah.core.redirect;

import java.io.Serializable;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import net.cheetah.core.flow.Address;

/**
 * What the redirect job may do (docs/ARCHITECTURE.md, "Redirect commands", "Prefix filters"): which
 * links are monitored and which device acts for each, the action, prefix filters, and the
 * guardrails checked before signing.
 *
 * @param linkDevices link id (or exporter address, for NetFlow cheetahs without a link) → device
 * @param monitoredLinks links whose cheetahs are isolated; empty = every link with a device
 * @param protectedPrefixes never matched by a rule, as source or destination
 * @param maxRulesPerDevice K: at most this many active rules per device
 * @param maxNewRulesPerMinute new rules per device per minute (a token bucket of that size)
 * @param ruleTtlMs every per-flow rule expires this long after it is issued
 * @param dryRun decide and record, publish nothing
 * @param dscp mark used with the DSCP action; 0 = move to the scavenger class instead
 * @param prefixFilterLength prefix filters from α flows: 0 = off, 24 = (src /24, dst /24) with IPv6
 *     /48, 32 = host pairs (IPv6 /128)
 * @param prefixFilterAgeMs a prefix filter ages out this long after its newest α flow
 */
public record RedirectSettings(
    Map<String, String> linkDevices,
    Set<String> monitoredLinks,
    List<Prefix> protectedPrefixes,
    int maxRulesPerDevice,
    int maxNewRulesPerMinute,
    long ruleTtlMs,
    boolean dryRun,
    int dscp,
    int prefixFilterLength,
    long prefixFilterAgeMs)
    implements Serializable {

  /**
   * Adapters rebuild their rules from redirects.commands.v1, kept 31 days (Topics.MIN_RETENTION): a
   * filter's add must stay in the topic for as long as the filter lives.
   */
  public static final long MAX_PREFIX_FILTER_AGE_MS = 30L * 24 * 3600 * 1000;

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
    if (prefixFilterLength != 0 && prefixFilterLength != 24 && prefixFilterLength != 32) {
      throw new IllegalArgumentException(
          "prefix-filter-length must be 0 (off), 24 or 32, got " + prefixFilterLength);
    }
    if (prefixFilterAgeMs < 1 || prefixFilterAgeMs > MAX_PREFIX_FILTER_AGE_MS) {
      throw new IllegalArgumentException(
          "prefix-filter-age-ms must be 1.."
              + MAX_PREFIX_FILTER_AGE_MS
              + " (30 days: adapters rebuild rules from redirects.commands.v1, kept 31 days), got "
              + prefixFilterAgeMs);
    }
  }

  /** The device acting for a link, if the link is monitored. */
  public Optional<String> deviceFor(String link) {
    if (!monitoredLinks.isEmpty() && !monitoredLinks.contains(link)) {
      return Optional.empty();
    }
    return Optional.ofNullable(linkDevices.get(link));
  }

  public boolean prefixFiltersOn() {
    return prefixFilterLength > 0;
  }

  /** The IPv6 length of a filter on {@code a}: IPv4 /24 → 120, IPv6 with 24 → 48, 32 → 128. */
  public int filterLengthFor(Address a) {
    if (a.isIpv4()) {
      return 96 + prefixFilterLength;
    }
    return prefixFilterLength == 24 ? 48 : 128;
  }
}
