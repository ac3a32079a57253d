package net.cheetah.analytics.throughput;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Groups streams into application instances and computes their passive throughput
 * (docs/ARCHITECTURE.md, "Transfer throughput").
 */
public final class AppInstances {
  private final long windowMs;
  private final double longFlowFactor;
  private final double controlFraction;

  public AppInstances(long windowMs, double longFlowFactor, double controlFraction) {
    this.windowMs = windowMs;
    this.longFlowFactor = longFlowFactor;
    this.controlFraction = controlFraction;
  }

  /** The instances of all {@code streams}, by host pair, then start. */
  public List<Instance> group(List<FlowStream> streams) {
    Map<HostPair, List<FlowStream>> byPair = new TreeMap<>();
    for (FlowStream s : streams) {
      byPair.computeIfAbsent(new HostPair(s.src(), s.dst()), p -> new ArrayList<>()).add(s);
    }
    List<Instance> out = new ArrayList<>();
    byPair.forEach(
        (pair, list) -> {
          for (List<FlowStream> members : members(list)) {
            out.add(instance(pair, members));
          }
        });
    return out;
  }

  /**
   * The flows of each instance of one host pair's {@code streams}, by start: anchored at the first
   * start, every two members start within the window of each other (control flows included; {@link
   * #instance} tells them apart). The streaming job keeps its open instances by this.
   */
  public List<List<FlowStream>> members(List<FlowStream> streams) {
    List<FlowStream> list = new ArrayList<>(streams);
    list.sort(Comparator.comparingLong(FlowStream::startMs));
    List<List<FlowStream>> out = new ArrayList<>();
    List<FlowStream> current = new ArrayList<>();
    for (FlowStream s : list) {
      if (!current.isEmpty() && s.startMs() - current.get(0).startMs() > windowMs) {
        out.add(current);
        current = new ArrayList<>();
      }
      current.add(s);
    }
    if (!current.isEmpty()) {
      out.add(current);
    }
    return out;
  }

  /** One instance of {@code flows} (one host pair). */
  public Instance instance(HostPair pair, List<FlowStream> flows) {
    long largest = 0;
    for (FlowStream f : flows) {
      largest = Math.max(largest, f.bytes());
    }
    List<FlowStream> streams = new ArrayList<>();
    for (FlowStream f : flows) {
      if (f.bytes() >= controlFraction * largest) {
        streams.add(f);
      }
    }
    int control = flows.size() - streams.size();
    long start = Long.MAX_VALUE;
    long end = Long.MIN_VALUE;
    long bytes = 0;
    double sumRates = 0;
    double sumSeconds = 0;
    double maxSeconds = 0;
    for (FlowStream s : streams) {
      start = Math.min(start, s.startMs());
      end = Math.max(end, s.endMs());
      bytes += s.bytes();
      double secs = s.durationMs() / 1000.0;
      if (secs > 0) {
        sumRates += s.bytes() * 8.0 / secs;
      }
      sumSeconds += secs;
      maxSeconds = Math.max(maxSeconds, secs);
    }
    double meanSeconds = sumSeconds / streams.size();
    boolean anyTime = maxSeconds > 0;
    return new Instance(
        pair,
        start,
        end,
        List.copyOf(streams),
        control,
        longFlows(streams),
        bytes,
        anyTime ? sumRates : Double.NaN,
        anyTime ? bytes * 8.0 / meanSeconds : Double.NaN,
        anyTime ? bytes * 8.0 / maxSeconds : Double.NaN);
  }

  /**
   * Streams lasting more than the factor times the median duration of the instance's other streams
   * (the other streams, so that one long stream of two is still found).
   */
  int longFlows(List<FlowStream> streams) {
    if (streams.size() < 2) {
      return 0;
    }
    int n = 0;
    for (int i = 0; i < streams.size(); i++) {
      double[] others = new double[streams.size() - 1];
      for (int j = 0, k = 0; j < streams.size(); j++) {
        if (j != i) {
          others[k++] = streams.get(j).durationMs();
        }
      }
      if (streams.get(i).durationMs() > longFlowFactor * Stats.median(others)) {
        n++;
      }
    }
    return n;
  }
}
