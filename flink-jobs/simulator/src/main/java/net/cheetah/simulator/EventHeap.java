package net.cheetah.simulator;

/**
 * The simulator's future-event list: a binary min-heap on time over primitive arrays, so the hot
 * path allocates nothing and boxes nothing. Each event is a time plus one int holding a kind (top 4
 * bits) and an argument (low 28 bits).
 */
final class EventHeap {
  static final int ARG_BITS = 28;
  static final int MAX_ARG = (1 << ARG_BITS) - 1;

  private double[] times;
  private int[] events;
  private int size;

  EventHeap(int initialCapacity) {
    times = new double[Math.max(16, initialCapacity)];
    events = new int[times.length];
  }

  boolean isEmpty() {
    return size == 0;
  }

  int size() {
    return size;
  }

  void push(double time, int kind, int arg) {
    if (arg < 0 || arg > MAX_ARG) {
      throw new IllegalStateException(
          "event argument " + arg + " does not fit in " + ARG_BITS + " bits; shorten the run");
    }
    if (size == times.length) {
      times = java.util.Arrays.copyOf(times, size * 2);
      events = java.util.Arrays.copyOf(events, size * 2);
    }
    int event = (kind << ARG_BITS) | arg;
    int i = size++;
    while (i > 0) {
      int parent = (i - 1) >>> 1;
      if (times[parent] <= time) {
        break;
      }
      times[i] = times[parent];
      events[i] = events[parent];
      i = parent;
    }
    times[i] = time;
    events[i] = event;
  }

  double topTime() {
    return times[0];
  }

  int topKind() {
    return events[0] >>> ARG_BITS;
  }

  int topArg() {
    return events[0] & MAX_ARG;
  }

  void pop() {
    int last = --size;
    if (last == 0) {
      return;
    }
    double time = times[last];
    int event = events[last];
    int i = 0;
    int half = last >>> 1;
    while (i < half) {
      int child = 2 * i + 1;
      int right = child + 1;
      if (right < last && times[right] < times[child]) {
        child = right;
      }
      if (time <= times[child]) {
        break;
      }
      times[i] = times[child];
      events[i] = events[child];
      i = child;
    }
    times[i] = time;
    events[i] = event;
  }
}
