package net.cheetah.jobs.cheetah;

import java.io.IOException;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/**
 * LEB128 varints (zig-zag for signed values) for the cheetah operator's state: most of its numbers
 * (ports, record counts, byte counts of mice, spans in ms) fit in one to three bytes.
 */
final class Varints {
  private Varints() {}

  static void writeUnsigned(DataOutputView out, long v) throws IOException {
    while ((v & ~0x7FL) != 0) {
      out.writeByte((int) ((v & 0x7F) | 0x80));
      v >>>= 7;
    }
    out.writeByte((int) v);
  }

  static long readUnsigned(DataInputView in) throws IOException {
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

  static void writeSigned(DataOutputView out, long v) throws IOException {
    writeUnsigned(out, (v << 1) ^ (v >> 63));
  }

  static long readSigned(DataInputView in) throws IOException {
    long u = readUnsigned(in);
    return (u >>> 1) ^ -(u & 1);
  }

  static int readSignedInt(DataInputView in) throws IOException {
    long v = readSigned(in);
    if (v != (int) v) {
      throw new IOException("malformed state: " + v + " does not fit an int");
    }
    return (int) v;
  }
}
