package net.cheetah.jobs.throughput;

import java.io.IOException;
import net.cheetah.jobs.cheetah.Varints;
import net.cheetah.jobs.flink.HandSerializer;
import org.apache.flink.api.common.typeutils.SimpleTypeSerializerSnapshot;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/**
 * A series of the throughput job's state, written by hand. Every host pair with an observation
 * keeps one for throughput.pair-ttl-days, so at a site with many pairs this is most of the job's
 * checkpoint, written in full at each checkpoint (the heap backend). Flink's record serializer
 * spends 126 bytes on a series of one observation; this 36: start times as varint steps, rates and
 * the EWMA as the doubles' bits, fit hours as varints, and each fit value as a tag byte (NaN, zero,
 * or eight bytes follow). Every double comes back with the bits it had.
 */
public final class SeriesStateSerializer extends HandSerializer<SeriesState> {
  public static final SeriesStateSerializer INSTANCE = new SeriesStateSerializer();

  /** More than any series holds (throughput.history): a larger length is a corrupt state. */
  static final int MAX_LENGTH = 1 << 20;

  private static final long NAN = Double.doubleToRawLongBits(Double.NaN);
  private static final int TAG_NAN = 0;
  private static final int TAG_ZERO = 1;
  private static final int TAG_BITS = 2;

  @Override
  public boolean isImmutableType() {
    return false; // arrays
  }

  @Override
  public SeriesState createInstance() {
    return SeriesState.empty();
  }

  @Override
  public SeriesState copy(SeriesState from) {
    return new SeriesState(
        from.ms().clone(),
        from.values().clone(),
        from.ewma(),
        from.fitHour().clone(),
        from.fit().clone());
  }

  @Override
  public void serialize(SeriesState s, DataOutputView to) throws IOException {
    Varints.Buffer out = Varints.Buffer.local();
    long[] ms = s.ms();
    out.writeUnsigned(ms.length);
    long previous = 0;
    for (long m : ms) {
      out.writeSigned(m - previous);
      previous = m;
    }
    double[] values = s.values();
    out.writeUnsigned(values.length);
    for (double v : values) {
      out.writeLong(Double.doubleToRawLongBits(v));
    }
    out.writeLong(Double.doubleToRawLongBits(s.ewma()));
    long[] hours = s.fitHour();
    out.writeUnsigned(hours.length);
    for (long h : hours) {
      out.writeSigned(h);
    }
    double[] fit = s.fit();
    out.writeUnsigned(fit.length);
    for (double v : fit) {
      long bits = Double.doubleToRawLongBits(v);
      if (bits == NAN) {
        out.writeByte(TAG_NAN);
      } else if (bits == 0L) {
        out.writeByte(TAG_ZERO);
      } else {
        out.writeByte(TAG_BITS);
        out.writeLong(bits);
      }
    }
    out.writeTo(to);
  }

  @Override
  public SeriesState deserialize(DataInputView in) throws IOException {
    long[] ms = new long[length(in)];
    long previous = 0;
    for (int i = 0; i < ms.length; i++) {
      previous += Varints.readSigned(in);
      ms[i] = previous;
    }
    double[] values = new double[length(in)];
    for (int i = 0; i < values.length; i++) {
      values[i] = Double.longBitsToDouble(in.readLong());
    }
    double ewma = Double.longBitsToDouble(in.readLong());
    long[] hours = new long[length(in)];
    for (int i = 0; i < hours.length; i++) {
      hours[i] = Varints.readSigned(in);
    }
    double[] fit = new double[length(in)];
    for (int i = 0; i < fit.length; i++) {
      int tag = in.readUnsignedByte();
      fit[i] =
          switch (tag) {
            case TAG_NAN -> Double.NaN;
            case TAG_ZERO -> 0.0;
            case TAG_BITS -> Double.longBitsToDouble(in.readLong());
            default -> throw new IOException("malformed series state: fit tag " + tag);
          };
    }
    return new SeriesState(ms, values, ewma, hours, fit);
  }

  private static int length(DataInputView in) throws IOException {
    long n = Varints.readUnsigned(in);
    if (n < 0 || n > MAX_LENGTH) {
      throw new IOException("malformed series state: length " + n);
    }
    return (int) n;
  }

  @Override
  public TypeSerializerSnapshot<SeriesState> snapshotConfiguration() {
    return new Snapshot();
  }

  /** Written into checkpoints beside the state: restoring finds this serializer again. */
  public static final class Snapshot extends SimpleTypeSerializerSnapshot<SeriesState> {
    public Snapshot() {
      super(() -> INSTANCE);
    }
  }
}
