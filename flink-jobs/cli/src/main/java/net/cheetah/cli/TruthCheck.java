package net.cheetah.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Compares results in the CSV shape of `cheetah analyze` against ground truth (the generator's own
 * files): same rows by key, and every other column exact, the peak interval included (the generator
 * apportions the exported records by the same definition, in whole bytes). A key present twice, in
 * the truth or in the results, is a difference: a result stored twice must not pass as one.
 */
final class TruthCheck {
  /** Matched rows, and one line per difference. */
  record Outcome(int expected, int actual, int matched, List<String> differences) {
    boolean ok() {
      return differences.isEmpty() && expected == matched && actual == matched;
    }

    String summary(String what) {
      return matched
          + "/"
          + expected
          + " "
          + what
          + " match the ground truth"
          + (actual != expected ? " (" + actual + " stored)" : "");
    }
  }

  private TruthCheck() {}

  static Outcome cheetahs(List<String> truthCsv, List<String> actualCsv) {
    // key: src,dst,src_port,dst_port,proto,start_ms; exact: end_ms, bytes, peak
    return compare(truthCsv, actualCsv, 6, new int[] {6, 7, 8});
  }

  static Outcome flowsets(List<String> truthCsv, List<String> actualCsv) {
    // key: src,dst,start_ms (n_flows is compared exactly); exact: n_flows, end_ms, bytes
    return compare(truthCsv, actualCsv, -1, new int[] {2, 4, 5});
  }

  /**
   * Flowset membership (flowset_members.csv: src,dst,flowset_start_ms,src_port,dst_port,proto,
   * start_ms, one row per member flow): a flowset matches when its members are exactly the truth's.
   * Counts are flowsets, differences are per member.
   */
  static Outcome members(List<String> truthCsv, List<String> actualCsv) {
    List<String> diffs = new ArrayList<>();
    Map<String, List<String>> t = groups(truthCsv, "truth", diffs);
    Map<String, List<String>> a = groups(actualCsv, "stored", diffs);
    diffs.addAll(repeated(t, "truth"));
    diffs.addAll(repeated(a, "stored rows"));
    int matched = 0;
    for (Map.Entry<String, List<String>> e : t.entrySet()) {
      List<String> want = e.getValue();
      List<String> got = a.getOrDefault(e.getKey(), List.of());
      if (got.isEmpty()) {
        diffs.add("missing flowset " + e.getKey() + " with members " + want);
        continue;
      }
      List<String> lost = new ArrayList<>(want);
      got.forEach(lost::remove);
      List<String> extra = new ArrayList<>(got);
      want.forEach(extra::remove);
      if (lost.isEmpty() && extra.isEmpty()) {
        matched++;
      } else {
        diffs.add(
            "flowset "
                + e.getKey()
                + ": members missing "
                + lost
                + ", members not in the truth "
                + extra);
      }
    }
    for (String k : a.keySet()) {
      if (!t.containsKey(k)) {
        diffs.add("unexpected flowset " + k + " with members " + a.get(k));
      }
    }
    return new Outcome(t.size(), a.size(), matched, diffs);
  }

  static List<String> read(Path csv) throws IOException {
    return Files.readAllLines(csv);
  }

  private static Outcome compare(
      List<String> truth, List<String> actual, int keyFields, int[] exact) {
    int width = Math.max(keyFields, Arrays.stream(exact).max().orElse(0) + 1);
    width = Math.max(width, 4); // the flowset key reads columns 0, 1 and 3
    List<String> diffs = new ArrayList<>();
    Map<String, List<String[]>> t = index(truth, keyFields, width, "truth", diffs);
    Map<String, List<String[]>> a = index(actual, keyFields, width, "stored", diffs);
    diffs.addAll(repeatedRows(t, "truth"));
    diffs.addAll(repeatedRows(a, "stored rows"));
    int matched = 0;
    for (Map.Entry<String, List<String[]>> e : t.entrySet()) {
      String[] want = e.getValue().get(0);
      List<String[]> found = a.get(e.getKey());
      if (found == null) {
        diffs.add("missing: " + String.join(",", want));
        continue;
      }
      String[] got = found.get(0);
      boolean same = e.getValue().size() == 1 && found.size() == 1;
      for (int i : exact) {
        if (!num(want[i]).equals(num(got[i]))) {
          same = false;
        }
      }
      if (same) {
        matched++;
      } else if (e.getValue().size() == 1 && found.size() == 1) {
        diffs.add("differs: expected " + String.join(",", want) + " got " + String.join(",", got));
      }
    }
    int rows = 0;
    for (Map.Entry<String, List<String[]>> e : a.entrySet()) {
      rows += e.getValue().size();
      if (!t.containsKey(e.getKey())) {
        e.getValue().forEach(r -> diffs.add("unexpected: " + String.join(",", r)));
      }
    }
    return new Outcome(t.size(), rows, matched, diffs);
  }

  /**
   * Rows by key: the first {@code keyFields} columns, or src,dst,start_ms (columns 0,1,3) if -1.
   * Header and blank lines are skipped; a row with fewer than {@code width} columns is a
   * difference.
   */
  private static Map<String, List<String[]>> index(
      List<String> csv, int keyFields, int width, String side, List<String> diffs) {
    Map<String, List<String[]>> m = new LinkedHashMap<>();
    for (String line : csv) {
      if (line.isBlank() || line.startsWith("src,")) {
        continue;
      }
      String[] f = line.replace("\"", "").split(",", -1);
      if (f.length < width) {
        diffs.add("malformed " + side + " row (" + f.length + " columns): " + line);
        continue;
      }
      String key =
          keyFields > 0
              ? String.join(",", Arrays.stream(f, 0, keyFields).map(TruthCheck::num).toList())
              : f[0] + "," + f[1] + "," + num(f[3]);
      m.computeIfAbsent(key, k -> new ArrayList<>()).add(f);
    }
    return m;
  }

  private static List<String> repeatedRows(Map<String, List<String[]>> m, String side) {
    List<String> out = new ArrayList<>();
    m.forEach(
        (k, rows) -> {
          if (rows.size() > 1) {
            out.add(
                "repeated key in the "
                    + side
                    + " ("
                    + rows.size()
                    + " rows): "
                    + String.join(" | ", rows.stream().map(r -> String.join(",", r)).toList()));
          }
        });
    return out;
  }

  /** Members by flowset (src,dst,flowset_start_ms), each as src_port,dst_port,proto,start_ms. */
  private static Map<String, List<String>> groups(
      List<String> csv, String side, List<String> diffs) {
    Map<String, List<String>> m = new TreeMap<>();
    for (String line : csv) {
      if (line.isBlank() || line.startsWith("src,")) {
        continue;
      }
      String[] f = line.replace("\"", "").split(",", -1);
      if (f.length < 7) {
        diffs.add("malformed " + side + " row (" + f.length + " columns): " + line);
        continue;
      }
      String set = f[0] + "," + f[1] + "," + num(f[2]);
      String member = num(f[3]) + "," + num(f[4]) + "," + num(f[5]) + "," + num(f[6]);
      m.computeIfAbsent(set, k -> new ArrayList<>()).add(member);
    }
    m.values().forEach(l -> l.sort(null));
    return m;
  }

  private static List<String> repeated(Map<String, List<String>> m, String side) {
    List<String> out = new ArrayList<>();
    m.forEach(
        (set, members) -> {
          for (int i = 1; i < members.size(); i++) {
            if (members.get(i).equals(members.get(i - 1))) {
              out.add("repeated member in the " + side + ": flowset " + set + " " + members.get(i));
            }
          }
        });
    return out;
  }

  /** A number in one plain form (1e9, 1000000000.0 and 1000000000 alike); other text as is. */
  private static String num(String s) {
    try {
      return new java.math.BigDecimal(s.trim()).stripTrailingZeros().toPlainString();
    } catch (NumberFormatException e) {
      return s.trim();
    }
  }
}
