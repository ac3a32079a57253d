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

  /**
   * Every rule on these settings lives here and only here. Each message starts with the name of the
   * setting as configured under {@code redirects.} (CheetahConfig.Redirects prefixes it), so an
   * error names the key to fix.
   */
  public RedirectSettings {
    linkDevices = Map.copyOf(linkDevices);
    monitoredLinks = Set.copyOf(monitoredLinks);
    protectedPrefixes = List.copyOf(protectedPrefixes);
    require(maxRulesPerDevice >= 1, "max-rules-per-device must be >= 1", maxRulesPerDevice);
    require(
        maxNewRulesPerMinute >= 1, "max-new-rules-per-minute must be >= 1", maxNewRulesPerMinute);
    require(ruleTtlMs >= 1, "rule-ttl-ms must be >= 1", ruleTtlMs);
    require(
        dscp >= 0 && dscp <= 63,
        "dscp must be 0 (move to the scavenger class) or a DSCP in 1..63",
        dscp);
    require(
        prefixFilterLength == 0 || prefixFilterLength == 24 || prefixFilterLength == 32,
        "prefix-filter-length must be 0 (off), 24 (IPv4 /24, IPv6 /48) or 32 (host pairs)",
        prefixFilterLength);
    require(
        prefixFilterAgeMs >= 1 && prefixFilterAgeMs <= MAX_PREFIX_FILTER_AGE_MS,
        "prefix-filter-age-ms must be 1.."
            + MAX_PREFIX_FILTER_AGE_MS
            + " (30 days: adapters rebuild their rules from redirects.commands.v1, kept 31 days)",
        prefixFilterAgeMs);
  }

  private static void require(boolean ok, String rule, long got) {
    if (!ok) {
      throw new IllegalArgumentException(rule + ", got " + got);
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
