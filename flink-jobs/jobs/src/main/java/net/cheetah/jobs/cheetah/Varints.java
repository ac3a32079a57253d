package net.cheetah.jobs.cheetah;

import java.io.IOException;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/**
 * LEB128 varints (zig-zag for signed values) for the state written by hand (the cheetah operator's,
 * the throughput job's): most of its numbers (ports, record counts, byte counts of mice, spans in
 * ms) fit in one to three bytes.
 */
public final class Varints {
  private Varints() {}

  public static long readUnsigned(DataInputView in) throws IOException {
    long v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      int b = in.readUnsignedByte();
      v |= (long) (b & 0x7F) << shift;
      if ((b & 0x80) == 0) {
        return v;
      }
    }
    throw new IOException("malformed varint: more than 10 bytes");
  }

  public static long readSigned(DataInputView in) throws IOException {
    long u = readUnsigned(in);
    return (u >>> 1) ^ -(u & 1);
  }

  public static int readSignedInt(DataInputView in) throws IOException {
    long v = readSigned(in);
    if (v != (int) v) {
      throw new IOException("malformed state: " + v + " does not fit an int");
    }
    return (int) v;
  }

  /**
   * Bytes of one value gathered in an array and handed to the output in one write: a checkpoint
   * stream's {@code writeByte} is several calls deep per byte, and the operator's snapshots write
   * every key and state entry this way (docs/BENCHMARKS.md, "Bottlenecks seen" 1).
   */
  public static final class Buffer {
    private static final ThreadLocal<Buffer> LOCAL = ThreadLocal.withInitial(Buffer::new);

    private byte[] b = new byte[128];
    private int n;

    /**
     * The calling thread's buffer, empty: a serializer called per record (a flow on the keyed
     * exchange, each state entry in a snapshot) allocated a new one every time, 9 % of the e2e
     * benchmark's allocation. Not reentrant: write it out ({@link #writeTo}) before anything else
     * on the thread takes it.
     */
    public static Buffer local() {
      Buffer x = LOCAL.get();
      x.n = 0;
      if (x.b.length > 1 << 16) {
        x.b = new byte[128]; // do not keep what one large value grew it to
      }
      return x;
    }

    private void room(int more) {
      if (n + more > b.length) {
        b = java.util.Arrays.copyOf(b, Math.max(2 * b.length, n + more));
      }
    }

    public void writeByte(int v) {
      room(1);
      b[n++] = (byte) v;
    }

    public void writeInt(int v) {
      room(4);
      for (int s = 24; s >= 0; s -= 8) {
        b[n++] = (byte) (v >>> s);
      }
    }

    /** Big-endian, as {@link DataOutputView#writeLong}. */
    public void writeLong(long v) {
      room(8);
      for (int s = 56; s >= 0; s -= 8) {
        b[n++] = (byte) (v >>> s);
      }
    }

    public void writeUnsigned(long v) {
      room(10);
      while ((v & ~0x7FL) != 0) {
        b[n++] = (byte) ((v & 0x7F) | 0x80);
        v >>>= 7;
      }
      b[n++] = (byte) v;
    }

    public void writeSigned(long v) {
      writeUnsigned((v << 1) ^ (v >> 63));
    }

    public void writeTo(DataOutputView out) throws IOException {
      out.write(b, 0, n);
      n = 0;
    }
  }
}
