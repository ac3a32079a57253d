package net.cheetah.simulator;

import java.util.ArrayList;
import java.util.List;

/**
 * Parses the CLI's numbers: SI suffixes (k, M, G, T: powers of 1000; KiB, MiB, GiB: powers of 1024;
 * a trailing B or bps is ignored), comma lists ("50M,100M") and ranges ("50M..900M:50M",
 * start..end:step, end included).
 */
public final class Quantities {
  private Quantities() {}

  /** One number with an optional suffix; {@code what} names the option in errors. */
  public static double parse(String text, String what) {
    String s = text.trim();
    if (s.isEmpty()) {
      throw new IllegalArgumentException(what + ": empty value; give a number such as 700M");
    }
    String lower = s.toLowerCase(java.util.Locale.ROOT);
    if (lower.endsWith("bps")) {
      lower = lower.substring(0, lower.length() - 3);
    } else if (lower.endsWith("b") && !lower.endsWith("ib")) {
      lower = lower.substring(0, lower.length() - 1);
    }
    double factor = 1;
    String[][] suffixes = {
      {"kib", "1024"},
      {"mib", "1048576"},
      {"gib", "1073741824"},
      {"k", "1e3"},
      {"m", "1e6"},
      {"g", "1e9"},
      {"t", "1e12"}
    };
    for (String[] suffix : suffixes) {
      if (lower.endsWith(suffix[0])) {
        factor = Double.parseDouble(suffix[1]);
        lower = lower.substring(0, lower.length() - suffix[0].length());
        break;
      }
    }
    try {
      double v = Double.parseDouble(lower) * factor;
      if (Double.isNaN(v) || Double.isInfinite(v)) {
        throw new NumberFormatException();
      }
      return v;
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          what
              + ": '"
              + text
              + "' is not a number; use e.g. 700M, 1G, 5MB, 64MiB, 0.5 or a list/range such as"
              + " 50M..900M:50M");
    }
  }

  /** A comma list of values and ranges, in the order given. */
  public static List<Double> parseList(String text, String what) {
    List<Double> out = new ArrayList<>();
    for (String part : text.split(",")) {
      String p = part.trim();
      int dots = p.indexOf("..");
      if (dots < 0) {
        out.add(parse(p, what));
        continue;
      }
      int colon = p.indexOf(':', dots);
      if (colon < 0) {
        throw new IllegalArgumentException(
            what + ": range '" + p + "' needs a step, as in 50M..900M:50M (start..end:step)");
      }
      double start = parse(p.substring(0, dots), what);
      double end = parse(p.substring(dots + 2, colon), what);
      double step = parse(p.substring(colon + 1), what);
      if (!(step > 0) || end < start) {
        throw new IllegalArgumentException(
            what + ": range '" + p + "' needs start <= end and a step > 0");
      }
      long n = (long) Math.floor((end - start) / step + 1e-9) + 1;
      if (n > 10_000) {
        throw new IllegalArgumentException(
            what + ": range '" + p + "' has " + n + " values; use a larger step");
      }
      for (long i = 0; i < n; i++) {
        out.add(start + i * step);
      }
    }
    return out;
  }
}
