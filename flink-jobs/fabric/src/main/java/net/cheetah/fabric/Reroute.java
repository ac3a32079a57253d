package net.cheetah.fabric;

import java.io.Serializable;

/**
 * A decision of the rule: move {@code flow}, seen at {@code rateBps} on the congested link {@code
 * link}, from the path {@code from} to {@code to}; {@code reason} says why, in one line.
 */
public record Reroute(
    FabricFlow flow, FabricPath from, FabricPath to, String link, double rateBps, String reason)
    implements Serializable {}
