package net.cheetah.jobs.links;

/**
 * Operator state of one link: the bin ring's arrays and the schedule's two cursors (next aligned
 * and next sliding window end). Plain arrays, so Flink serialises it without Kryo.
 */
public record RingState(
    long[] starts,
    long[] bytes,
    long[] cheetahBytes,
    long newestStartMs,
    long nextTumblingEnd,
    long nextSlidingEnd) {}
