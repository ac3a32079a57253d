package net.cheetah.cli;

import java.io.PrintStream;
import java.util.Locale;

/**
 * A progress bar on stderr: redrawn in place on a terminal, a line per 10 % otherwise (CI logs).
 */
final class Progress implements AutoCloseable {
  private final String label;
  private final long total;
  private final String unit;
  private final PrintStream err = System.err;
  private final boolean tty = System.console() != null;
  private final long started = System.nanoTime();
  private long done;
  private int lastDecile = -1;
  private long lastDrawNs;

  Progress(String label, long total, String unit) {
    this.label = label;
    this.total = Math.max(1, total);
    this.unit = unit;
  }

  synchronized void advance(long n) {
    done += n;
    draw(false);
  }

  synchronized void set(long value) {
    done = value;
    draw(false);
  }

  private void draw(boolean last) {
    double frac = Math.min(1.0, done / (double) total);
    long now = System.nanoTime();
    if (tty) {
      if (!last && now - lastDrawNs < 100_000_000L) {
        return;
      }
      lastDrawNs = now;
      int width = 30;
      int filled = (int) Math.round(frac * width);
      err.printf(
          Locale.ROOT,
          "\r%s [%s%s] %3.0f%%  %,d/%,d %s  %s",
          label,
          "#".repeat(filled),
          " ".repeat(width - filled),
          frac * 100,
          done,
          total,
          unit,
          elapsed());
      if (last) {
        err.println();
      }
    } else {
      int decile = (int) (frac * 10);
      if (decile != lastDecile || (last && decile != 10)) {
        lastDecile = decile;
        err.printf(
            Locale.ROOT,
            "%s %3.0f%% (%,d/%,d %s, %s)%n",
            label,
            frac * 100,
            done,
            total,
            unit,
            elapsed());
      }
    }
  }

  private String elapsed() {
    return String.format(Locale.ROOT, "%.1fs", (System.nanoTime() - started) / 1e9);
  }

  @Override
  public synchronized void close() {
    draw(true);
  }
}
