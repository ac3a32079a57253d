package net.cheetah.fabric;

import java.util.Locale;

/** A switch's tier in the fabric; hosts attach to edge switches only. */
public enum Layer {
  EDGE,
  AGGREGATION,
  CORE;

  /** How the layer is written in the topology file. */
  public String written() {
    return name().toLowerCase(Locale.ROOT);
  }
}
