package net.cheetah.jobs.cheetah;

import java.io.IOException;
import net.cheetah.core.flow.StitchedFlow;
import net.cheetah.jobs.flink.HandSerializer;
import org.apache.flink.api.common.typeutils.SimpleTypeSerializerSnapshot;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/**
 * Writes a {@link CheetahKeyState} by hand, instead of Flink's POJO serializer on a StitchedFlow
 * plus a list of Flow records each carrying the 5-tuple again. Times are written once in full and
 * then as differences, counts as varints; the flow id (16 hex digits from {@code Ids.flowId}) as
 * its 8 bytes. Every field of the flow and of each pending record is kept exactly.
 *
 * <p>Layout: varint pending count, per record {start, end − start, bytes, packets, srcAs, dstAs};
 * then a flags byte (bit 0 a flow follows, bit 1 its id is not 16 hex digits and is written as UTF,
 * bit 2 it is a cheetah) and the flow's fields.
 */
public final class CheetahKeyStateSerializer extends HandSerializer<CheetahKeyState> {
  public static final CheetahKeyStateSerializer INSTANCE = new CheetahKeyStateSerializer();

  private static final int HAS_FLOW = 1;
  private static final int TEXT_ID = 2;
  private static final int CHEETAH = 4;
  private static final char[] HEX = "0123456789abcdef".toCharArray();

  @Override
  public boolean isImmutableType() {
    return false;
  }

  @Override
  public CheetahKeyState createInstance() {
    return new CheetahKeyState();
  }

  @Override
  public CheetahKeyState copy(CheetahKeyState from) {
    CheetahKeyState s = new CheetahKeyState();
    s.pending = from.pending.length == 0 ? from.pending : from.pending.clone();
    s.pendingCount = from.pendingCount;
    s.flow = from.flow == null ? null : copy(from.flow);
    return s;
  }

  static StitchedFlow copy(StitchedFlow f) {
    StitchedFlow c = new StitchedFlow();
    c.flowId = f.flowId;
    c.key = f.key;
    c.startMs = f.startMs;
    c.endMs = f.endMs;
    c.bytes = f.bytes;
    c.packets = f.packets;
    c.records = f.records;
    c.srcAs = f.srcAs;
    c.dstAs = f.dstAs;
    c.windowFirst = f.windowFirst;
    c.window = f.window.clone();
    c.peakBytes = f.peakBytes;
    c.peakIndex = f.peakIndex;
    c.cheetah = f.cheetah;
    c.seq = f.seq;
    return c;
  }

  @Override
  public void serialize(CheetahKeyState s, DataOutputView to) throws IOException {
    Varints.Buffer out = Varints.Buffer.local();
    out.writeUnsigned(s.pendingCount);
    long[] p = s.pending;
    for (int i = 0; i < s.pendingCount; i++) {
      int o = i * CheetahKeyState.FIELDS;
      out.writeLong(p[o]);
      out.writeSigned(p[o + 1] - p[o]);
      out.writeSigned(p[o + 2]);
      out.writeSigned(p[o + 3]);
      out.writeSigned(p[o + 4]);
      out.writeSigned(p[o + 5]);
    }
    StitchedFlow f = s.flow;
    if (f == null) {
      out.writeByte(0);
      out.writeTo(to);
      return;
    }
    boolean hexId = isHexId(f.flowId);
    out.writeByte(HAS_FLOW | (hexId ? 0 : TEXT_ID) | (f.cheetah ? CHEETAH : 0));
    if (hexId) {
      out.writeLong(Long.parseUnsignedLong(f.flowId, 16));
    } else {
      out.writeTo(to);
      to.writeUTF(f.flowId);
    }
    out.writeLong(f.startMs);
    out.writeSigned(f.endMs - f.startMs);
    out.writeSigned(f.bytes);
    out.writeSigned(f.packets);
    out.writeSigned(f.records);
    out.writeSigned(f.srcAs);
    out.writeSigned(f.dstAs);
    out.writeSigned(f.windowFirst);
    out.writeUnsigned(f.window.length);
    for (long b : f.window) {
      out.writeSigned(b);
    }
    out.writeSigned(f.peakBytes);
    out.writeSigned(f.peakIndex - f.windowFirst);
    out.writeSigned(f.seq);
    out.writeTo(to);
  }

  @Override
  public CheetahKeyState deserialize(DataInputView in) throws IOException {
    CheetahKeyState s = new CheetahKeyState();
    long n = Varints.readUnsigned(in);
    if (n > Integer.MAX_VALUE / CheetahKeyState.FIELDS) {
      throw new IOException("malformed cheetah state: " + n + " pending records");
    }
    s.pendingCount = (int) n;
    if (n > 0) {
      long[] p = new long[(int) n * CheetahKeyState.FIELDS];
      for (int i = 0; i < n; i++) {
        int o = i * CheetahKeyState.FIELDS;
        p[o] = in.readLong();
        p[o + 1] = p[o] + Varints.readSigned(in);
        p[o + 2] = Varints.readSigned(in);
        p[o + 3] = Varints.readSigned(in);
        p[o + 4] = Varints.readSignedInt(in);
        p[o + 5] = Varints.readSignedInt(in);
      }
      s.pending = p;
    }
    int flags = in.readUnsignedByte();
    if ((flags & ~(HAS_FLOW | TEXT_ID | CHEETAH)) != 0 || (flags & HAS_FLOW) == 0 && flags != 0) {
      throw new IOException("malformed cheetah state: flags " + flags);
    }
    if ((flags & HAS_FLOW) == 0) {
      return s;
    }
    StitchedFlow f = new StitchedFlow();
    f.flowId = (flags & TEXT_ID) != 0 ? in.readUTF() : hex(in.readLong());
    f.cheetah = (flags & CHEETAH) != 0;
    f.startMs = in.readLong();
    f.endMs = f.startMs + Varints.readSigned(in);
    f.bytes = Varints.readSigned(in);
    f.packets = Varints.readSigned(in);
    f.records = Varints.readSignedInt(in);
    f.srcAs = Varints.readSignedInt(in);
    f.dstAs = Varints.readSignedInt(in);
    f.windowFirst = Varints.readSigned(in);
    long w = Varints.readUnsigned(in);
    if (w > Integer.MAX_VALUE) {
      throw new IOException("malformed cheetah state: a window of " + w + " intervals");
    }
    f.window = new long[(int) w];
    for (int i = 0; i < w; i++) {
      f.window[i] = Varints.readSigned(in);
    }
    f.peakBytes = Varints.readSigned(in);
    f.peakIndex = f.windowFirst + Varints.readSigned(in);
    f.seq = Varints.readSigned(in);
    s.flow = f;
    return s;
  }

  @Override
  public TypeSerializerSnapshot<CheetahKeyState> snapshotConfiguration() {
    return new Snapshot();
  }

  /** What {@code Ids.flowId} makes: exactly 16 lower-case hex digits. */
  static boolean isHexId(String id) {
    if (id == null || id.length() != 16) {
      return false;
    }
    for (int i = 0; i < 16; i++) {
      char c = id.charAt(i);
      if (!(c >= '0' && c <= '9' || c >= 'a' && c <= 'f')) {
        return false;
      }
    }
    return true;
  }

  static String hex(long v) {
    char[] c = new char[16];
    for (int i = 15; i >= 0; i--) {
      c[i] = HEX[(int) (v & 0xF)];
      v >>>= 4;
    }
    return new String(c);
  }

  /** Written into checkpoints beside the state: restoring finds this serializer again. */
  public static final class Snapshot extends SimpleTypeSerializerSnapshot<CheetahKeyState> {
    public Snapshot() {
      super(() -> INSTANCE);
    }
  }
}
