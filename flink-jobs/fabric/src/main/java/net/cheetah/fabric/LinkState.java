package net.cheetah.fabric;

import java.util.HashMap;
import java.util.Map;

/**
 * What one round of the rule sees (docs/FABRIC.md, "The rule"): each link's utilisation and each
 * flow's rate on each link where it is seen, in bit/s, links by id ({@code e1:3>a1:1}). Rates are
 * of every flow seen; the rule picks the elephants itself.
 */
public record LinkState(
    Map<String, Double> utilisationBps, Map<String, Map<FabricFlow, Double>> flowRatesBps) {
  public LinkState {
    utilisationBps = Map.copyOf(utilisationBps);
    Map<String, Map<FabricFlow, Double>> rates = new HashMap<>();
    flowRatesBps.forEach((link, flows) -> rates.put(link, Map.copyOf(flows)));
    flowRatesBps = Map.copyOf(rates);
  }
}
