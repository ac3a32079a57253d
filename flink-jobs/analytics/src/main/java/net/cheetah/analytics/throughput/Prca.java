package net.cheetah.analytics.throughput;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Pattern;
import net.cheetah.core.flow.Address;

/**
 * Peer transfer pairs and Performance Root Cause Analysis (docs/ARCHITECTURE.md, "Transfer
 * throughput"). Host pairs between the same two sites are peers. Each pair's transfers are
 * clustered by their static settings; the cluster with the highest median throughput in a peer
 * group is its reference. Two kinds of report:
 *
 * <ul>
 *   <li>a cluster whose median is below {@code slowFraction} of the reference's: its cause is a
 *       host resource saturated during its transfers (sender or receiver CPU, disk or NIC), else
 *       the static settings that differ from the reference, else "host" (the reference's settings
 *       on a slower pair, and no sample shows why);
 *   <li>a transfer below {@code slowFraction} of its own cluster's median while every transfer of
 *       the other peer pairs within {@code peerWindowMs} (at least one) was slow against its own
 *       cluster too: "network", all peers slow together.
 * </ul>
 */
public final class Prca {
  private static final Pattern IPV4 = Pattern.compile("\\d{1,3}(\\.\\d{1,3}){3}");

  private final double slowFraction;
  private final double saturatedPercent;
  private final long peerWindowMs;
  private final int sitePrefixV4;

  public Prca(double slowFraction, double saturatedPercent, long peerWindowMs, int sitePrefixV4) {
    this.slowFraction = slowFraction;
    this.saturatedPercent = saturatedPercent;
    this.peerWindowMs = peerWindowMs;
    this.sitePrefixV4 = sitePrefixV4;
  }

  /** The static settings transfers are clustered by; NIC rates 0 when unknown. */
  public record Settings(
      String tool, int streams, long bufferBytes, double srcNicBps, double dstNicBps) {
    /** What differs from {@code best}, e.g. "streams 1 (best 4)"; empty when nothing does. */
    public String differences(Settings best) {
      List<String> d = new ArrayList<>();
      if (!tool.equals(best.tool)) {
        d.add("tool " + tool + " (best " + best.tool + ")");
      }
      if (streams != best.streams) {
        d.add("streams " + streams + " (best " + best.streams + ")");
      }
      if (bufferBytes != best.bufferBytes) {
        d.add("buffer " + bufferBytes + " (best " + best.bufferBytes + ")");
      }
      if (srcNicBps != best.srcNicBps) {
        d.add(
            String.format(
                java.util.Locale.ROOT,
                "sender NIC %.0f bit/s (best %.0f)",
                srcNicBps,
                best.srcNicBps));
      }
      if (dstNicBps != best.dstNicBps) {
        d.add(
            String.format(
                java.util.Locale.ROOT,
                "receiver NIC %.0f bit/s (best %.0f)",
                dstNicBps,
                best.dstNicBps));
      }
      return String.join("; ", d);
    }
  }

  /** A host pair's transfers with one combination of static settings, and their median rate. */
  public record Cluster(
      HostPair pair, Settings settings, List<Transfer> transfers, double medianBps) {}

  /** Why a cluster or a transfer was slow. */
  public enum Cause {
    RESOURCE,
    STATIC,
    HOST,
    NETWORK
  }

  /** A slow cluster (its transfers together) or one slow transfer (network). */
  public enum Scope {
    CLUSTER,
    TRANSFER
  }

  /**
   * One report: the pair and settings, the time span and number of the transfers it covers, their
   * throughput (a cluster's median, or the transfer's rate), the cluster's median, what the pair
   * can achieve (its best cluster's median), the reference cluster of its peers, the cause and its
   * detail.
   */
  public record Report(
      Scope scope,
      Cluster cluster,
      long startMs,
      long endMs,
      int transfers,
      double bps,
      double pairAchievableBps,
      Cluster reference,
      Cause cause,
      String detail) {}

  /** The site of a host: its IPv4 /prefix (IPv6 /2·prefix), or a host name's domain. */
  public String site(String host) {
    if (IPV4.matcher(host).matches() || host.contains(":")) {
      Address a = Address.parse(host);
      int bits = a.isIpv4() ? 96 + sitePrefixV4 : 2 * sitePrefixV4;
      long hi = bits >= 64 ? a.hi() : bits == 0 ? 0 : a.hi() & (-1L << (64 - bits));
      long lo = bits >= 128 ? a.lo() : bits <= 64 ? 0 : a.lo() & (-1L << (128 - bits));
      return new Address(hi, lo) + "/" + (a.isIpv4() ? sitePrefixV4 : 2 * sitePrefixV4);
    }
    int dot = host.indexOf('.');
    return dot >= 0 ? host.substring(dot + 1) : host;
  }

  /** The clusters of {@code transfers}, by pair then settings. */
  public List<Cluster> clusters(List<Transfer> transfers, List<HostSample> samples) {
    Map<String, Double> nic = nicRates(samples);
    Map<HostPair, Map<Settings, List<Transfer>>> by = new TreeMap<>();
    for (Transfer t : transfers) {
      if (!Double.isFinite(t.activeBps())) {
        continue;
      }
      by.computeIfAbsent(t.pair(), p -> new LinkedHashMap<>())
          .computeIfAbsent(settings(t, nic), s -> new ArrayList<>())
          .add(t);
    }
    List<Cluster> out = new ArrayList<>();
    by.forEach(
        (pair, m) ->
            m.forEach(
                (s, list) ->
                    out.add(
                        new Cluster(
                            pair,
                            s,
                            List.copyOf(list),
                            Stats.median(
                                list.stream().mapToDouble(Transfer::activeBps).toArray())))));
    return out;
  }

  /** Reports for every slow cluster and every transfer slow with all its peers, by start. */
  public List<Report> analyse(List<Transfer> transfers, List<HostSample> samples) {
    List<Cluster> clusters = clusters(transfers, samples);
    Map<List<String>, List<Cluster>> groups = new TreeMap<>(Comparator.comparing(Object::toString));
    for (Cluster c : clusters) {
      groups.computeIfAbsent(peerGroup(c.pair()), g -> new ArrayList<>()).add(c);
    }
    Map<HostPair, Double> achievable = new TreeMap<>();
    for (Cluster c : clusters) {
      achievable.merge(c.pair(), c.medianBps(), Math::max);
    }
    List<Report> out = new ArrayList<>();
    for (List<Cluster> group : groups.values()) {
      Cluster ref =
          group.stream().max(Comparator.comparingDouble(Cluster::medianBps)).orElseThrow();
      for (Cluster c : group) {
        double pairBest = achievable.get(c.pair());
        if (c.medianBps() < slowFraction * ref.medianBps()) {
          out.add(clusterReport(c, ref, samples, pairBest));
        }
        for (Transfer t : c.transfers()) {
          if (t.activeBps() < slowFraction * c.medianBps()) {
            networkReport(t, c, ref, group, pairBest).ifPresent(out::add);
          }
        }
      }
    }
    out.sort(
        Comparator.comparingLong(Report::startMs)
            .thenComparing(r -> r.cluster().pair())
            .thenComparing(Report::scope));
    return out;
  }

  private Report clusterReport(Cluster c, Cluster ref, List<HostSample> samples, double pairBest) {
    long start = c.transfers().stream().mapToLong(Transfer::startMs).min().orElseThrow();
    long end = c.transfers().stream().mapToLong(Transfer::endMs).max().orElseThrow();
    int n = c.transfers().size();
    String resource = saturated(c.transfers(), samples);
    if (!resource.isEmpty()) {
      return new Report(
          Scope.CLUSTER, c, start, end, n, c.medianBps(), pairBest, ref, Cause.RESOURCE, resource);
    }
    String diff = c.settings().differences(ref.settings());
    if (!diff.isEmpty()) {
      return new Report(
          Scope.CLUSTER, c, start, end, n, c.medianBps(), pairBest, ref, Cause.STATIC, diff);
    }
    return new Report(
        Scope.CLUSTER,
        c,
        start,
        end,
        n,
        c.medianBps(),
        pairBest,
        ref,
        Cause.HOST,
        "same settings as "
            + ref.pair()
            + ", which is faster; no sample shows a saturated resource");
  }

  private java.util.Optional<Report> networkReport(
      Transfer t, Cluster c, Cluster ref, List<Cluster> group, double pairBest) {
    int near = 0;
    int slow = 0;
    for (Cluster other : group) {
      if (other.pair().equals(c.pair())) {
        continue;
      }
      for (Transfer o : other.transfers()) {
        if (Math.abs(o.startMs() - t.startMs()) <= peerWindowMs) {
          near++;
          if (o.activeBps() < slowFraction * other.medianBps()) {
            slow++;
          }
        }
      }
    }
    if (near == 0 || slow < near) {
      return java.util.Optional.empty();
    }
    return java.util.Optional.of(
        new Report(
            Scope.TRANSFER,
            c,
            t.startMs(),
            t.endMs(),
            1,
            t.activeBps(),
            pairBest,
            ref,
            Cause.NETWORK,
            "all "
                + near
                + " transfer(s) of peer pairs within "
                + peerWindowMs / 1000
                + " s were slow too"));
  }

  /**
   * The most used resource of the sender or receiver during {@code transfers} (the mean of the
   * samples within any of them) when it reached the saturation level, e.g. "receiver disk 97%";
   * empty otherwise.
   */
  String saturated(List<Transfer> transfers, List<HostSample> samples) {
    String worst = "";
    double worstUse = -1;
    String[] names = {"cpu", "disk", "nic"};
    for (String role : List.of("sender", "receiver")) {
      double[] sum = new double[3];
      int[] n = new int[3];
      for (HostSample s : samples) {
        boolean during = false;
        for (Transfer t : transfers) {
          String host = role.equals("sender") ? t.src() : t.dst();
          if (s.host().equals(host) && s.ms() >= t.startMs() && s.ms() <= t.endMs()) {
            during = true;
            break;
          }
        }
        if (!during) {
          continue;
        }
        double[] use = {s.cpuPercent(), s.diskPercent(), s.nicPercent()};
        for (int k = 0; k < 3; k++) {
          if (Double.isFinite(use[k])) {
            sum[k] += use[k];
            n[k]++;
          }
        }
      }
      for (int k = 0; k < 3; k++) {
        if (n[k] > 0) {
          double mean = sum[k] / n[k];
          if (mean >= saturatedPercent && mean > worstUse) {
            worstUse = mean;
            worst = String.format(java.util.Locale.ROOT, "%s %s %.0f%%", role, names[k], mean);
          }
        }
      }
    }
    return worst;
  }

  private List<String> peerGroup(HostPair p) {
    return List.of(site(p.src()), site(p.dst()));
  }

  private static Settings settings(Transfer t, Map<String, Double> nic) {
    return new Settings(
        t.tool(),
        t.streams(),
        t.bufferBytes(),
        nic.getOrDefault(t.src(), 0.0),
        nic.getOrDefault(t.dst(), 0.0));
  }

  /** Each host's NIC rate: its latest sample that knows it. */
  private static Map<String, Double> nicRates(List<HostSample> samples) {
    Map<String, HostSample> latest = new TreeMap<>();
    for (HostSample s : samples) {
      if (s.nicBps() > 0) {
        latest.merge(s.host(), s, (a, b) -> b.ms() >= a.ms() ? b : a);
      }
    }
    Map<String, Double> out = new TreeMap<>();
    latest.forEach((h, s) -> out.put(h, s.nicBps()));
    return out;
  }
}
