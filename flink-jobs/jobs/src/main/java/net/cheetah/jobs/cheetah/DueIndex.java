package net.cheetah.jobs.cheetah;

import java.util.Arrays;
import java.util.Map;
import java.util.TreeMap;

/**
 * The cheetah operator's schedule: which key is due at which event time, in buckets of about a
 * second, instead of Flink's timer heap (a priority queue of one timer per key, re-sorted at every
 * insertion, removal and firing, and written out at every checkpoint; docs/BENCHMARKS.md,
 * "Bottlenecks seen" 1).
 *
 * <p>Adding is an append to a bucket. Nothing is ever removed before it is due: when a key's due
 * time moves, its old entry stays and the caller recognises it as stale when it is drained (the
 * key's state then says another time). Draining up to a watermark hands out the entries due at or
 * before it in due order, equal dues in the order they were added. The index is not checkpointed:
 * the operator rebuilds it from its keyed state on restore.
 */
final class DueIndex<K> {
  /** Receives one drained entry. */
  interface Sink<K> {
    void due(K key, long dueMs) throws Exception;
  }

  /** Bucket width: 2^10 ms. */
  private static final int SHIFT = 10;

  private static final long WIDTH = 1L << SHIFT;

  private static final class Bucket {
    Object[] keys = new Object[16];
    long[] dues = new long[16];
    int size;

    void add(Object key, long due) {
      if (size == dues.length) {
        keys = Arrays.copyOf(keys, 2 * size);
        dues = Arrays.copyOf(dues, 2 * size);
      }
      keys[size] = key;
      dues[size] = due;
      size++;
    }
  }

  private final TreeMap<Long, Bucket> buckets = new TreeMap<>();
  private long cachedId = Long.MIN_VALUE;
  private Bucket cached;
  private long entries;
  private long[] order = new long[16];

  void add(K key, long dueMs) {
    long id = Math.floorDiv(dueMs, WIDTH);
    if (id != cachedId || cached == null) {
      cached = buckets.computeIfAbsent(id, i -> new Bucket());
      cachedId = id;
    }
    cached.add(key, dueMs);
    entries++;
  }

  /** Entries held, stale ones included. */
  long size() {
    return entries;
  }

  /**
   * Hands every entry due at or before {@code watermark} to {@code sink}, in due order, and forgets
   * it. Entries the sink adds meanwhile must be due after {@code watermark}; they stay.
   */
  @SuppressWarnings("unchecked")
  void drain(long watermark, Sink<K> sink) throws Exception {
    long last = Math.floorDiv(watermark, WIDTH);
    while (!buckets.isEmpty()) {
      Map.Entry<Long, Bucket> first = buckets.firstEntry();
      long id = first.getKey();
      if (id > last) {
        return;
      }
      Bucket b = first.getValue();
      buckets.pollFirstEntry();
      if (id == cachedId) {
        cached = null;
      }
      entries -= b.size;
      // Sort by (due within the bucket, position): a due is < WIDTH past the bucket's start.
      long start = id * WIDTH;
      if (order.length < b.size) {
        order = new long[Math.max(b.size, 2 * order.length)];
      }
      long[] o = order;
      int n = b.size;
      for (int i = 0; i < n; i++) {
        o[i] = ((b.dues[i] - start) << 32) | i;
      }
      Arrays.sort(o, 0, n);
      // b is out of the map: what the sink adds goes to a new bucket, and only add() runs
      // meanwhile, so b and the order stay as they are for the entries kept after it.
      Object[] keys = b.keys;
      long[] dues = b.dues;
      int due = 0;
      while (due < n && dues[(int) o[due]] <= watermark) {
        sink.due((K) keys[(int) o[due]], dues[(int) o[due]]);
        due++;
      }
      for (int j = due; j < n; j++) {
        add((K) keys[(int) o[j]], dues[(int) o[j]]);
      }
      if (id == last) {
        return; // entries added to this bucket meanwhile are due after the watermark
      }
    }
  }
}
