package net.cheetah.analytics;

import net.cheetah.config.CheetahConfig.Detection;
import net.cheetah.core.flow.Address;
import net.cheetah.core.flow.Flow;
import net.cheetah.core.flow.FlowKey;

final class Fixtures {
  private Fixtures() {}

  static final Address EXPORTER = Address.parse("192.0.2.1");
  static final Address SRC = Address.parse("198.18.1.10");
  static final Address DST = Address.parse("198.18.2.20");

  /** H = 1000 B, I = 60 s, G = 30 s, τ = 10 s, lateness 60 s, active timeout 20 s. */
  static Detection detection() {
    return new Detection(1000, 60_000, 30_000, 10_000, 60_000, 5_000, 0, 20_000, 0);
  }

  static FlowKey key(int srcPort) {
    return new FlowKey(EXPORTER, SRC, DST, srcPort, 2811, 6);
  }

  static Flow rec(int srcPort, long start, long end, long bytes) {
    return new Flow(key(srcPort), start, end, bytes, Math.max(1, bytes / 1000), 64500, 64501);
  }
}
