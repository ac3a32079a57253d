package net.cheetah.simulator;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Reads a link's recorded bins for replay: one bin per line, "bytes" or "bytes,cheetah_bytes"
 * (background as BinBackground defines it, from the probe.bins.v1 fields). Blank lines and lines
 * starting with # are skipped, and so is a header line whose first field is not a number.
 */
public final class RecordedBinsFile {
  private RecordedBinsFile() {}

  public static RecordedBins read(Path file, double binSeconds, int packetBytes)
      throws IOException {
    List<String> lines;
    try {
      lines = Files.readAllLines(file);
    } catch (java.nio.file.NoSuchFileException e) {
      throw new IllegalArgumentException(
          file + ": no such file; --bg-bins needs a file of recorded bins (one per line)");
    } catch (IOException e) {
      throw new IOException(file + ": cannot read recorded bins: " + e.getMessage(), e);
    }
    double[] bins = new double[lines.size()];
    int n = 0;
    boolean first = true;
    for (int i = 0; i < lines.size(); i++) {
      String line = lines.get(i).trim();
      if (line.isEmpty() || line.startsWith("#")) {
        continue;
      }
      String[] fields = line.split("[,;\\s]+");
      if (first && !fields[0].matches("[-+0-9.eE]+")) {
        first = false;
        continue;
      }
      first = false;
      double bytes = field(file, i, fields[0]);
      double cheetah = fields.length > 1 ? field(file, i, fields[1]) : 0;
      if (bytes < 0 || cheetah < 0) {
        throw new IllegalArgumentException(
            file
                + " line "
                + (i + 1)
                + ": bytes "
                + fields[0]
                + (fields.length > 1 ? " and cheetah bytes " + fields[1] : "")
                + " must be >= 0");
      }
      // Cheetah bytes above the bin's leave a background of 0, as in the link-statistics job.
      bins[n++] = net.cheetah.core.link.BinBackground.bytes(bytes, cheetah, 0);
    }
    if (n == 0) {
      throw new IllegalArgumentException(
          file + ": no bins found; write one 'bytes' or 'bytes,cheetah_bytes' line per bin");
    }
    return new RecordedBins(java.util.Arrays.copyOf(bins, n), binSeconds, packetBytes);
  }

  private static double field(Path file, int line, String text) {
    try {
      return Double.parseDouble(text);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          file + " line " + (line + 1) + ": '" + text + "' is not a byte count");
    }
  }
}
