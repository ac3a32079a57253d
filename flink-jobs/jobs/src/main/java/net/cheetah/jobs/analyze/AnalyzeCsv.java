package net.cheetah.jobs.analyze;

import java.io.IOException;
import java.io.Writer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import net.cheetah.core.flow.CheetahEvent;
import net.cheetah.core.flow.Flowset;

/** The CSV files of `cheetah analyze` (epoch ms, bytes, bits/s), sorted for stable diffs. */
public final class AnalyzeCsv {
  public static final String CHEETAHS_HEADER =
      "src,dst,src_port,dst_port,proto,start_ms,end_ms,bytes,peak_interval_bytes";
  public static final String FLOWSETS_HEADER =
      "src,dst,n_flows,start_ms,end_ms,bytes,duration_s,rate_bps";

  private AnalyzeCsv() {}

  public static void writeCheetahs(Path file, List<CheetahEvent> ends) throws IOException {
    List<CheetahEvent> sorted =
        ends.stream()
            .sorted(
                Comparator.comparingLong(CheetahEvent::startMs)
                    .thenComparing(e -> e.key().src())
                    .thenComparing(e -> e.key().dst())
                    .thenComparingInt(e -> e.key().srcPort())
                    .thenComparingInt(e -> e.key().dstPort()))
            .toList();
    try (Writer w = Files.newBufferedWriter(file)) {
      w.write(CHEETAHS_HEADER + "\n");
      for (CheetahEvent e : sorted) {
        w.write(
            String.join(
                    ",",
                    e.key().src().toString(),
                    e.key().dst().toString(),
                    Integer.toString(e.key().srcPort()),
                    Integer.toString(e.key().dstPort()),
                    Integer.toString(e.key().proto()),
                    Long.toString(e.startMs()),
                    Long.toString(e.endMs()),
                    Long.toString(e.bytes()),
                    Long.toString(e.peakIntervalBytes()))
                + "\n");
      }
    }
  }

  public static void writeFlowsets(Path file, List<Flowset> sets) throws IOException {
    List<Flowset> sorted =
        sets.stream()
            .sorted(
                Comparator.comparingLong(Flowset::startMs)
                    .thenComparing(Flowset::src)
                    .thenComparing(Flowset::dst))
            .toList();
    try (Writer w = Files.newBufferedWriter(file)) {
      w.write(FLOWSETS_HEADER + "\n");
      for (Flowset s : sorted) {
        w.write(
            String.join(
                    ",",
                    s.src().toString(),
                    s.dst().toString(),
                    Integer.toString(s.nFlows()),
                    Long.toString(s.startMs()),
                    Long.toString(s.endMs()),
                    Long.toString(s.bytes()),
                    String.format(Locale.ROOT, "%.3f", s.durationS()),
                    String.format(Locale.ROOT, "%.0f", s.rateBps()))
                + "\n");
      }
    }
  }
}
