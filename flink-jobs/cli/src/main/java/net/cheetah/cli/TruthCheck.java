package net.cheetah.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Compares results in the CSV shape of `cheetah analyze` against ground truth (the generator's own
 * files): same rows by key, exact bytes and times, the peak interval within a tolerance (the
 * platform apportions each record uniformly, the generator knows the true rate).
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
    // key: src,dst,src_port,dst_port,proto,start_ms; exact: end_ms, bytes; approx: peak
    return compare(truthCsv, actualCsv, 6, new int[] {6, 7}, 8, 0);
  }

  static Outcome flowsets(List<String> truthCsv, List<String> actualCsv) {
    // key: src,dst,start_ms (n_flows is compared exactly); exact: n_flows, end_ms, bytes
    return compare(truthCsv, actualCsv, -1, new int[] {2, 4, 5}, -1, 0);
  }

  static List<String> read(Path csv) throws IOException {
    return Files.readAllLines(csv);
  }

  private static Outcome compare(
      List<String> truth,
      List<String> actual,
      int keyFields,
      int[] exact,
      int approx,
      double tolerance) {
    Map<String, String[]> t = index(truth, keyFields);
    Map<String, String[]> a = index(actual, keyFields);
    List<String> diffs = new ArrayList<>();
    int matched = 0;
    for (Map.Entry<String, String[]> e : t.entrySet()) {
      String[] got = a.get(e.getKey());
      if (got == null) {
        diffs.add("missing: " + String.join(",", e.getValue()));
        continue;
      }
      boolean same = true;
      for (int i : exact) {
        if (!num(e.getValue()[i]).equals(num(got[i]))) {
          same = false;
        }
      }
      if (approx >= 0) {
        double x = Double.parseDouble(e.getValue()[approx]);
        double y = Double.parseDouble(got[approx]);
        if (Math.abs(x - y) > tolerance * Math.max(1, x)) {
          same = false;
        }
      }
      if (same) {
        matched++;
      } else {
        diffs.add(
            "differs: expected "
                + String.join(",", e.getValue())
                + " got "
                + String.join(",", got));
      }
    }
    for (String k : a.keySet()) {
      if (!t.containsKey(k)) {
        diffs.add("unexpected: " + String.join(",", a.get(k)));
      }
    }
    return new Outcome(t.size(), a.size(), matched, diffs);
  }

  /** Keys are the first {@code keyFields} columns, or src,dst,start_ms (columns 0,1,3) if -1. */
  private static Map<String, String[]> index(List<String> csv, int keyFields) {
    Map<String, String[]> m = new LinkedHashMap<>();
    for (String line : csv) {
      if (line.isBlank() || line.startsWith("src,")) {
        continue;
      }
      String[] f = line.replace("\"", "").split(",");
      String key =
          keyFields > 0
              ? String.join(",", java.util.Arrays.copyOf(f, keyFields))
              : f[0] + "," + f[1] + "," + f[3];
      m.put(key, f);
    }
    return m;
  }

  private static String num(String s) {
    return new java.math.BigDecimal(s.trim()).stripTrailingZeros().toPlainString();
  }
}
