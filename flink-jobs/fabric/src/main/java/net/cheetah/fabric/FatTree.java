package net.cheetah.fabric;

import java.util.ArrayList;
import java.util.List;
import net.cheetah.core.flow.Address;

/**
 * A k-ary fat-tree (Al-Fares et al., SIGCOMM 2008), the fabric of the EFM study and its experiment
 * (docs/FABRIC.md, "The k-ary fat-tree"): k pods of k/2 edge and k/2 aggregation switches, (k/2)²
 * core switches, k/2 hosts per edge switch, every switch with k ports and every cable {@code
 * capacityBps}.
 *
 * <p>Names and ports: cores {@code c1..c(k/2)²}, aggregation switches {@code a1..a(k²/2)} and edge
 * switches {@code e1..e(k²/2)} numbered pod by pod, hosts {@code h1..h(k³/4)} edge by edge. An edge
 * switch's ports 1..k/2 go to its hosts and k/2+1..k to its pod's aggregation switches (the i-th
 * upper port to the i-th); an aggregation switch's ports 1..k/2 go to its pod's edge switches and
 * k/2+1..k to cores; core j (from 0) is on the (j div k/2)-th aggregation switch of every pod, at
 * that switch's port k/2+1+(j mod k/2), and on its own port p+1 for pod p. Host h of edge switch e
 * of pod p (all from 0) has address 10.p.e.(h+2).
 */
public final class FatTree {
  private FatTree() {}

  public static Fabric of(int k, double capacityBps) {
    if (k < 2 || k % 2 != 0 || k > 254) {
      throw new IllegalArgumentException("a fat-tree needs an even k in 2..254, got " + k);
    }
    int half = k / 2;
    String where = "fat-tree k=" + k;
    Fabric.Builder b = new Fabric.Builder("fat-tree-k" + k);
    List<Integer> ports = new ArrayList<>();
    for (int p = 1; p <= k; p++) {
      ports.add(p);
    }
    for (int j = 0; j < half * half; j++) {
      b.addSwitch(where, core(j), Layer.CORE, ports);
    }
    for (int pod = 0; pod < k; pod++) {
      for (int i = 0; i < half; i++) {
        b.addSwitch(where, aggregation(pod, i, half), Layer.AGGREGATION, ports);
      }
      for (int i = 0; i < half; i++) {
        b.addSwitch(where, edge(pod, i, half), Layer.EDGE, ports);
      }
    }
    for (int pod = 0; pod < k; pod++) {
      for (int e = 0; e < half; e++) {
        for (int a = 0; a < half; a++) {
          b.addLink(
              where,
              new Port(edge(pod, e, half), half + 1 + a),
              new Port(aggregation(pod, a, half), 1 + e),
              capacityBps);
        }
      }
      for (int j = 0; j < half * half; j++) {
        b.addLink(
            where,
            new Port(aggregation(pod, j / half, half), half + 1 + j % half),
            new Port(core(j), pod + 1),
            capacityBps);
      }
    }
    int n = 0;
    for (int pod = 0; pod < k; pod++) {
      for (int e = 0; e < half; e++) {
        for (int h = 0; h < half; h++) {
          b.addHost(
              where,
              "h" + ++n,
              Address.ofIpv4((10 << 24) | (pod << 16) | (e << 8) | (h + 2)),
              new Port(edge(pod, e, half), 1 + h),
              capacityBps);
        }
      }
    }
    return b.build();
  }

  private static String core(int j) {
    return "c" + (j + 1);
  }

  private static String aggregation(int pod, int i, int half) {
    return "a" + (pod * half + i + 1);
  }

  private static String edge(int pod, int i, int half) {
    return "e" + (pod * half + i + 1);
  }
}
