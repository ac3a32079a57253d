package net.cheetah.simulator;

/**
 * A tail-drop FIFO with a byte buffer, as a ring of primitive arrays. A packet is accepted when the
 * bytes already waiting plus its own fit in the buffer; the packet being transmitted no longer
 * counts (it has left the buffer for the wire).
 */
final class PacketQueue {
  private final long bufferBytes;
  private long bytes;
  private int head;
  private int count;
  private double[] arrivals;
  private int[] sizes;
  private int[] tags;

  PacketQueue(long bufferBytes) {
    this.bufferBytes = bufferBytes;
    arrivals = new double[1024];
    sizes = new int[1024];
    tags = new int[1024];
  }

  /** Appends a packet, or returns false (a tail drop) when the buffer cannot hold it. */
  boolean offer(double arrival, int size, int tag) {
    if (bytes + size > bufferBytes) {
      return false;
    }
    if (count == arrivals.length) {
      grow();
    }
    int slot = (head + count) & (arrivals.length - 1);
    arrivals[slot] = arrival;
    sizes[slot] = size;
    tags[slot] = tag;
    count++;
    bytes += size;
    return true;
  }

  boolean isEmpty() {
    return count == 0;
  }

  long bytes() {
    return bytes;
  }

  double headArrival() {
    return arrivals[head];
  }

  int headSize() {
    return sizes[head];
  }

  int headTag() {
    return tags[head];
  }

  void removeHead() {
    bytes -= sizes[head];
    head = (head + 1) & (arrivals.length - 1);
    count--;
  }

  private void grow() {
    int n = arrivals.length;
    double[] a = new double[n * 2];
    int[] s = new int[n * 2];
    int[] t = new int[n * 2];
    for (int i = 0; i < count; i++) {
      int from = (head + i) & (n - 1);
      a[i] = arrivals[from];
      s[i] = sizes[from];
      t[i] = tags[from];
    }
    arrivals = a;
    sizes = s;
    tags = t;
    head = 0;
  }
}
