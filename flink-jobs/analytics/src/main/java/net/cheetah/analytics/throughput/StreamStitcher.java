package net.cheetah.analytics.throughput;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import net.cheetah.core.flow.Flow;
import net.cheetah.core.flow.FlowKey;

/**
 * Flow records into streams: the records of one flow key, in start order, are one stream while each
 * starts within {@code gapMs} of the end so far (a long flow cut into records by the exporter's
 * active timeout, as the cheetah detector stitches them: {@code detection.gap-ms}); a record
 * starting later begins a new stream (the same ports used again).
 */
public final class StreamStitcher {
  private StreamStitcher() {}

  /** The streams of {@code records}, by start. */
  public static List<FlowStream> stitch(List<Flow> records, long gapMs) {
    Map<FlowKey, List<Flow>> byKey = new HashMap<>();
    for (Flow f : records) {
      byKey.computeIfAbsent(f.key(), k -> new ArrayList<>()).add(f);
    }
    List<FlowStream> out = new ArrayList<>();
    for (List<Flow> list : byKey.values()) {
      list.sort(Comparator.comparingLong(Flow::startMs));
      FlowKey k = list.get(0).key();
      long start = list.get(0).startMs();
      long end = list.get(0).endMs();
      long bytes = 0;
      for (Flow f : list) {
        if (f.startMs() > end + gapMs) {
          out.add(new FlowStream(k.src().toString(), k.dst().toString(), start, end, bytes));
          start = f.startMs();
          end = f.endMs();
          bytes = 0;
        }
        end = Math.max(end, f.endMs());
        bytes += f.bytes();
      }
      out.add(new FlowStream(k.src().toString(), k.dst().toString(), start, end, bytes));
    }
    out.sort(
        Comparator.comparingLong(FlowStream::startMs)
            .thenComparing(FlowStream::src)
            .thenComparing(FlowStream::dst));
    return out;
  }
}
