package net.cheetah.analytics;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.OptionalLong;
import net.cheetah.core.flow.Address;
import net.cheetah.core.flow.Flowset;
import net.cheetah.core.flow.FlowsetMember;
import net.cheetah.core.flow.Ids;

/**
 * Parallel flowset grouping (docs/ARCHITECTURE.md, "Parallel flowset"): the cheetah flows of one
 * (src, dst), sorted by start, form a new set whenever a flow starts more than τ after the previous
 * one. Sets are cut by that rule alone (never at midnight or any window edge).
 *
 * <p>In a stream a set is final when every member has ended and event time has passed its last
 * start by τ plus the lateness allowed for a new member to be recognised as a cheetah. A member
 * that arrives after its set was closed is late: the caller counts it and sends it aside.
 */
public final class FlowsetGrouper {
  private final long tauMs;
  private final long latenessMs;

  public FlowsetGrouper(long tauMs, long latenessMs) {
    this.tauMs = tauMs;
    this.latenessMs = latenessMs;
  }

  /** Groups members by the τ rule, each group sorted by start (ties by flow id). */
  public List<List<FlowsetMember>> group(Collection<FlowsetMember> members) {
    List<FlowsetMember> sorted = new ArrayList<>(members);
    sorted.sort(
        Comparator.comparingLong(FlowsetMember::startMs).thenComparing(FlowsetMember::flowId));
    List<List<FlowsetMember>> groups = new ArrayList<>();
    List<FlowsetMember> cur = new ArrayList<>();
    long prevStart = Long.MIN_VALUE;
    for (FlowsetMember m : sorted) {
      if (!cur.isEmpty() && m.startMs() - prevStart > tauMs) {
        groups.add(cur);
        cur = new ArrayList<>();
      }
      cur.add(m);
      prevStart = m.startMs();
    }
    if (!cur.isEmpty()) {
      groups.add(cur);
    }
    return groups;
  }

  /** Event time from which no new member can join a group whose last start is {@code lastStart}. */
  public long closeTime(long lastStartMs) {
    return lastStartMs + tauMs + latenessMs;
  }

  /** Whether a member starting at {@code startMs} would have joined a set already closed. */
  public boolean isLate(long startMs, OptionalLong closedUpToStartMs) {
    return closedUpToStartMs.isPresent() && startMs <= closedUpToStartMs.getAsLong() + tauMs;
  }

  /** The groups of {@code open} that are final at {@code watermarkMs}. */
  public List<List<FlowsetMember>> closable(Collection<FlowsetMember> open, long watermarkMs) {
    List<List<FlowsetMember>> ready = new ArrayList<>();
    for (List<FlowsetMember> g : group(open)) {
      long lastStart = g.get(g.size() - 1).startMs();
      if (watermarkMs >= closeTime(lastStart) && g.stream().allMatch(FlowsetMember::ended)) {
        ready.add(g);
      }
    }
    return ready;
  }

  /** The earliest event time at which some group of {@code open} may become closable. */
  public OptionalLong nextCheck(Collection<FlowsetMember> open) {
    return closeTimes(open).stream().mapToLong(Long::longValue).min();
  }

  /** For every group of {@code open}, the event time from which it may be closed. */
  public List<Long> closeTimes(Collection<FlowsetMember> open) {
    return group(open).stream().map(g -> closeTime(g.get(g.size() - 1).startMs())).toList();
  }

  public static Flowset toFlowset(Address src, Address dst, List<FlowsetMember> g, long closedMs) {
    long start = Long.MAX_VALUE;
    long end = Long.MIN_VALUE;
    long bytes = 0;
    int srcAs = 0;
    int dstAs = 0;
    List<String> ids = new ArrayList<>(g.size());
    for (FlowsetMember m : g) {
      start = Math.min(start, m.startMs());
      end = Math.max(end, m.endMs());
      bytes += m.bytes();
      srcAs = srcAs != 0 ? srcAs : m.srcAs();
      dstAs = dstAs != 0 ? dstAs : m.dstAs();
      ids.add(m.flowId());
    }
    return new Flowset(
        Ids.flowsetId(src, dst, ids.get(0)),
        src,
        dst,
        srcAs,
        dstAs,
        start,
        end,
        bytes,
        ids,
        closedMs);
  }
}
