package net.cheetah.jobs.cheetah;

import java.util.Arrays;
import net.cheetah.core.flow.Flow;
import net.cheetah.core.flow.FlowKey;
import net.cheetah.core.flow.StitchedFlow;

/**
 * Everything the cheetah operator keeps for one 5-tuple, in one state entry: the records not fed to
 * the detector yet (their key is the state key, so only their numbers are kept, in arrival order)
 * and the flow being stitched, without its key. Written by {@link CheetahKeyStateSerializer}.
 *
 * <p>Nothing is summarised away: a flow whose records so far are far below H keeps its start, its
 * first record's start (its id) and the bytes of every interval a later record can still reach,
 * because a later fast record can still make it a cheetah that starts at its first slow record
 * (docs/ARCHITECTURE.md, "NetFlow cheetah"). What makes the entry small is the encoding.
 */
public final class CheetahKeyState {
  /** Longs per pending record: start, end, bytes, packets, source AS, destination AS. */
  static final int FIELDS = 6;

  private static final long[] NONE = new long[0];

  /** Pending records, {@link #FIELDS} longs each, in arrival order. */
  long[] pending = NONE;

  int pendingCount;

  /** The flow being stitched, or null; its {@code key} is null here (it is the state key). */
  StitchedFlow flow;

  boolean isEmpty() {
    return pendingCount == 0 && flow == null;
  }

  void addPending(Flow r) {
    if ((pendingCount + 1) * FIELDS > pending.length) {
      pending = Arrays.copyOf(pending, Math.max(2 * pending.length, FIELDS));
    }
    int i = pendingCount * FIELDS;
    pending[i] = r.startMs();
    pending[i + 1] = r.endMs();
    pending[i + 2] = r.bytes();
    pending[i + 3] = r.packets();
    pending[i + 4] = r.srcAs();
    pending[i + 5] = r.dstAs();
    pendingCount++;
  }

  long pendingEnd(int i) {
    return pending[i * FIELDS + 1];
  }

  Flow pendingFlow(FlowKey key, int i) {
    int o = i * FIELDS;
    return new Flow(
        key,
        pending[o],
        pending[o + 1],
        pending[o + 2],
        pending[o + 3],
        (int) pending[o + 4],
        (int) pending[o + 5]);
  }

  /** Keeps only the pending records whose index {@code keep} accepts, in their order. */
  void retainPending(java.util.function.IntPredicate keep) {
    int n = 0;
    for (int i = 0; i < pendingCount; i++) {
      if (keep.test(i)) {
        if (n != i) {
          System.arraycopy(pending, i * FIELDS, pending, n * FIELDS, FIELDS);
        }
        n++;
      }
    }
    pendingCount = n;
    if (n == 0) {
      pending = NONE;
    }
  }

  /** The earliest end among pending records, or {@code Long.MAX_VALUE} if there is none. */
  long earliestPendingEnd() {
    long m = Long.MAX_VALUE;
    for (int i = 0; i < pendingCount; i++) {
      m = Math.min(m, pendingEnd(i));
    }
    return m;
  }
}
