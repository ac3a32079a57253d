package net.cheetah.core.fabric;

/**
 * Which elephant of a congested fabric link EFM tries to move first (docs/FABRIC.md, "The rule";
 * {@code fabric.policy}): the one with the highest rate on that link, or the lowest.
 */
public enum ReroutePolicy {
  BIGGEST,
  SMALLEST
}
