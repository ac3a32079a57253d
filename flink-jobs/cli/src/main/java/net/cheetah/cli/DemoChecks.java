package net.cheetah.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.math.BigInteger;
import java.net.InetAddress;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;

/**
 * The demo's checks beyond the cheetah and flowset rows (TruthCheck): the probe's cheetahs against
 * the trace generator's truth, and the guardrails' refusals against the workload's truth. Each
 * expectation comes from a truth file and the configuration, never from the code under test.
 */
final class DemoChecks {
  /** One line of the demo's check, and what differed when it failed. */
  record Check(String line, List<String> differences) {
    boolean ok() {
      return differences.isEmpty();
    }
  }

  private DemoChecks() {}

  /**
   * The probe's cheetahs on {@code link} (demo_probe_cheetahs.sql rows) against cheetah-tracegen's
   * truth.json, with the rules of the probe's own accuracy check (ingest/probe/tests/
   * check_accuracy.py): by 5-tuple, every injected flow above R found, none below R/2, no flow that
   * was not injected; between R/2 and R either is right (a flight's rate varies by ±1 % and the
   * first flights ramp up). R is every threshold the probe had in force on the link: those the
   * stored events were judged with and those its counter snapshots reported ({@code inForce}:
   * demo_probe_thresholds.sql rows; a threshold published during the replay raises R mid-trace, and
   * a flow that starts after it is judged with it though no stored event shows it). A flow between
   * the lowest R/2 and the highest R may go either way. Each detected flow must also have ended
   * (its last stored event is an END).
   */
  static Check probe(
      Path truthJson, List<String> stored, List<String> inForce, String link, double configuredR)
      throws IOException {
    JsonNode truth = new ObjectMapper().readTree(truthJson.toFile());
    Set<String> found = new TreeSet<>();
    TreeSet<Double> thresholds = new TreeSet<>();
    List<String> diffs = new ArrayList<>();
    for (String line : stored) {
      String[] f = line.split("\t", -1);
      if (f.length < 9 || !f[0].equals(link)) {
        continue;
      }
      String key = String.join(",", Arrays.copyOfRange(f, 1, 6));
      found.add(key);
      thresholds.add(Double.parseDouble(f[7]));
      if (!f[6].equals("end")) {
        diffs.add("flow " + key + " (" + f[8] + ") never ended: its last event is " + f[6]);
      }
    }
    for (String line : inForce) {
      String[] f = line.split("\t", -1);
      if (f.length == 2 && f[0].equals(link)) {
        thresholds.add(Double.parseDouble(f[1]));
      }
    }
    double minR = thresholds.isEmpty() ? configuredR : thresholds.first();
    double maxR = thresholds.isEmpty() ? configuredR : thresholds.last();
    int above = 0;
    int aboveFound = 0;
    int belowReported = 0;
    int between = 0;
    int betweenFound = 0;
    Set<String> injected = new HashSet<>();
    for (JsonNode c : truth.path("cheetahs")) {
      String key =
          String.join(
              ",",
              c.path("src").asText(),
              c.path("dst").asText(),
              c.path("src_port").asText(),
              c.path("dst_port").asText(),
              c.path("proto").asText());
      injected.add(key);
      double rate = c.path("rate_bps").asDouble();
      boolean got = found.contains(key);
      if (rate > maxR) {
        above++;
        if (got) {
          aboveFound++;
        } else {
          diffs.add(String.format(Locale.ROOT, "missed %s at %.1f Mb/s", key, rate / 1e6));
        }
      } else if (rate < minR / 2) {
        if (got) {
          belowReported++;
          diffs.add(
              String.format(Locale.ROOT, "reported %s at %.1f Mb/s, below R/2", key, rate / 1e6));
        }
      } else {
        between++;
        betweenFound += got ? 1 : 0;
      }
    }
    List<String> background = found.stream().filter(k -> !injected.contains(k)).toList();
    background.forEach(k -> diffs.add("reported a background flow " + k));
    if (above == 0) {
      diffs.add("the trace has no injected flow above R: nothing to find");
    }
    String line =
        String.format(
            Locale.ROOT,
            "probe cheetahs on %s: %d/%d injected flows above R = %s Mb/s found, %d below R/2"
                + " reported, %d background flows (%d/%d between R/2 and R found)",
            link,
            aboveFound,
            above,
            // R can change during the replay (a threshold published meanwhile): every R in force.
            thresholds.stream()
                .map(r -> String.format(Locale.ROOT, "%.0f", r / 1e6))
                .distinct()
                .reduce((a, b) -> a + "/" + b)
                .orElse(String.format(Locale.ROOT, "%.0f", configuredR / 1e6)),
            belowReported,
            background.size(),
            betweenFound,
            between);
    return new Check(line, diffs);
  }

  /** A stored redirect decision (demo_redirect_decisions.sql). */
  record Decision(
      String device,
      String outcome,
      String refusal,
      String action,
      Net src,
      Net dst,
      String srcPort,
      String dstPort,
      String proto,
      long issuedMs,
      String commandId,
      String replaces,
      long startMs) {
    static Decision parse(String line) throws IOException {
      String[] f = line.split("\t", -1);
      return new Decision(
          f[0],
          f[1],
          f[2],
          f[3],
          Net.of(f[4], Integer.parseInt(f[5])),
          Net.of(f[6], Integer.parseInt(f[7])),
          f[8],
          f[9],
          f[10],
          Long.parseLong(f[11]),
          f[12],
          f[13],
          Long.parseLong(f[14]));
    }

    boolean perFlow() {
      return src.length == 128 && dst.length == 128;
    }
  }

  /** An IPv6 prefix (IPv4 as IPv4-mapped, lengths + 96), for containment and overlap. */
  record Net(BigInteger network, int length, String text) {
    static Net of(String address, int length) throws IOException {
      byte[] b = InetAddress.getByName(address).getAddress();
      if (b.length == 4) { // Java maps ::ffff:a.b.c.d to IPv4 too
        byte[] m = new byte[16];
        m[10] = (byte) 0xff;
        m[11] = (byte) 0xff;
        System.arraycopy(b, 0, m, 12, 4);
        b = m;
        length = length <= 32 && !address.contains(":") ? length + 96 : length;
      }
      return new Net(new BigInteger(1, b), length, address + "/" + length);
    }

    /** "198.18.6.0/24" or "2001:db8::/48". */
    static Net parse(String cidr) throws IOException {
      String[] p = cidr.trim().split("/");
      return of(p[0], Integer.parseInt(p[1]));
    }

    boolean overlaps(Net o) {
      int l = Math.min(length, o.length);
      return network.shiftRight(128 - l).equals(o.network.shiftRight(128 - l));
    }
  }

  /**
   * The guardrails at {@code device} (demo_redirect_decisions.sql rows), against the generator's
   * truth cheetahs (the device's α flows, all exported by the demo's one exporter):
   *
   * <ul>
   *   <li>every truth cheetah touching a protected prefix has its per-flow rule refused as
   *       protected, and nothing else is refused so: matched by 5-tuple and start;
   *   <li>the (src, dst) /24 pairs of those cheetahs are exactly the pairs whose prefix filter was
   *       refused as protected (prefix filters on, /24);
   *   <li>no published rule touches a protected prefix;
   *   <li>K: at least one refusal names the K limit, and replaying the published adds and removes
   *       in issue order never has more than K rules in force.
   * </ul>
   *
   * Which flows hit K depends on when their events reach the job (processing time): the count is
   * reported, not predicted.
   */
  static Check guardrails(
      List<String> truthCheetahsCsv,
      List<String> decisionRows,
      String device,
      String protectedPrefixes,
      int k,
      int filterLength)
      throws IOException {
    List<Net> shielded = new ArrayList<>();
    for (String p : protectedPrefixes.split(",")) {
      if (!p.isBlank()) {
        shielded.add(Net.parse(p));
      }
    }
    List<String> diffs = new ArrayList<>();
    Set<String> expectFlows = new TreeSet<>();
    Set<String> expectPairs = new TreeSet<>();
    Set<String> otherPairs = new TreeSet<>();
    for (String line : truthCheetahsCsv) {
      if (line.isBlank() || line.startsWith("src,")) {
        continue;
      }
      String[] f = line.split(",");
      Net src = Net.of(f[0], f[0].contains(":") ? 128 : 32);
      Net dst = Net.of(f[1], f[1].contains(":") ? 128 : 32);
      if (shielded.stream().anyMatch(p -> p.overlaps(src) || p.overlaps(dst))) {
        expectFlows.add(String.join(",", f[0], f[1], f[2], f[3], f[4], f[5]));
        if (filterLength == 24 && !f[0].contains(":") && !f[1].contains(":")) {
          expectPairs.add(slash24(f[0]) + "→" + slash24(f[1]));
        }
      } else if (filterLength == 24 && !f[0].contains(":") && !f[1].contains(":")) {
        otherPairs.add(slash24(f[0]) + "→" + slash24(f[1]));
      }
    }
    if (expectFlows.isEmpty()) {
      diffs.add("no truth cheetah touches " + protectedPrefixes + ": nothing to refuse");
    }
    Set<String> refusedFlows = new TreeSet<>();
    Set<String> refusedPairs = new TreeSet<>();
    int kRefusals = 0;
    int rateRefusals = 0;
    List<Decision> decisions = new ArrayList<>();
    for (String row : decisionRows) {
      Decision d = Decision.parse(row);
      if (!d.device().equals(device)) {
        continue;
      }
      decisions.add(d);
      boolean touches = shielded.stream().anyMatch(p -> p.overlaps(d.src()) || p.overlaps(d.dst()));
      if (d.outcome().equals("refused") && d.refusal().startsWith("protected prefix ")) {
        if (!touches) {
          diffs.add("refused as protected but touches none: " + describe(d));
        }
        if (d.perFlow()) {
          refusedFlows.add(
              String.join(
                  ",",
                  plain(d.src()),
                  plain(d.dst()),
                  d.srcPort(),
                  d.dstPort(),
                  d.proto(),
                  Long.toString(d.startMs())));
        } else {
          refusedPairs.add(plain(d.src()) + "/24→" + plain(d.dst()) + "/24");
        }
      } else if (d.outcome().equals("refused") && d.refusal().contains(" has K = ")) {
        kRefusals++;
      } else if (d.outcome().equals("refused")) {
        rateRefusals++;
      }
      if (d.outcome().equals("published") && !d.action().equals("remove") && touches) {
        diffs.add("published a rule touching a protected prefix: " + describe(d));
      }
    }
    diff("per-flow rule refused as protected", expectFlows, refusedFlows, diffs);
    diff("prefix filter refused as protected", expectPairs, refusedPairs, diffs);
    // Filters live 30 days, so they only accumulate: with more unprotected pairs than K, some
    // pair's filter must meet K (unless the new-rule rate refused it first). Below that, whether
    // per-flow rules fill K depends on when events reach the job: reported, not required.
    if (kRefusals == 0 && rateRefusals == 0 && otherPairs.size() > k) {
      diffs.add(
          "no refusal at K = "
              + k
              + " although the truth has "
              + otherPairs.size()
              + " unprotected prefix pairs, each a filter that stays");
    }
    // Rules in force, replayed in issue order. Decisions of one millisecond (a flow that starts
    // and ends in one batch) have no order here: each millisecond is applied whole and the count
    // checked after it, which never exceeds the true peak (a peak inside one ms goes unseen).
    java.util.TreeMap<Long, List<Decision>> byMs = new java.util.TreeMap<>();
    decisions.stream()
        .filter(d -> d.outcome().equals("published"))
        .forEach(d -> byMs.computeIfAbsent(d.issuedMs(), x -> new ArrayList<>()).add(d));
    Set<String> inForce = new HashSet<>();
    int most = 0;
    for (List<Decision> same : byMs.values()) {
      same.stream()
          .filter(d -> !d.action().equals("remove"))
          .forEach(d -> inForce.add(d.commandId()));
      for (Decision d : same) {
        if (d.action().equals("remove") && !inForce.remove(d.replaces())) {
          diffs.add("removes a rule not in force: " + describe(d));
        }
      }
      if (inForce.size() > k && most <= k) {
        diffs.add(
            inForce.size() + " rules in force (K = " + k + ") after " + describe(same.get(0)));
      }
      most = Math.max(most, inForce.size());
    }
    String line =
        String.format(
            Locale.ROOT,
            "guardrails at %s: %d cheetahs and %d prefix filters touching %s refused as protected,"
                + " none published; %d refused at K = %d, at most %d rules in force (%d refused by the"
                + " new-rule rate)",
            device,
            refusedFlows.size(),
            refusedPairs.size(),
            protectedPrefixes,
            kRefusals,
            k,
            most,
            rateRefusals);
    return new Check(line, diffs);
  }

  private static void diff(String what, Set<String> expected, Set<String> got, List<String> out) {
    expected.stream()
        .filter(e -> !got.contains(e))
        .forEach(e -> out.add("missing " + what + ": " + e));
    got.stream()
        .filter(g -> !expected.contains(g))
        .forEach(g -> out.add("unexpected " + what + ": " + g));
  }

  private static String slash24(String ipv4) {
    return ipv4.substring(0, ipv4.lastIndexOf('.')) + ".0/24";
  }

  /** The address of a stored prefix as the truth writes it (IPv4 dotted). */
  private static String plain(Net n) {
    String a = n.text().substring(0, n.text().indexOf('/'));
    return a.startsWith("::ffff:") ? a.substring(7) : a;
  }

  private static String describe(Decision d) {
    return d.outcome()
        + " "
        + d.action()
        + " "
        + d.src().text()
        + " → "
        + d.dst().text()
        + " "
        + d.srcPort()
        + ">"
        + d.dstPort()
        + "/"
        + d.proto()
        + (d.refusal().isEmpty() ? "" : " (" + d.refusal() + ")")
        + " "
        + d.commandId();
  }
}
