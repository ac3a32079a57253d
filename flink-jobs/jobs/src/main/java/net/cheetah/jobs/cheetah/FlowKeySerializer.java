package net.cheetah.jobs.cheetah;

import java.io.IOException;
import net.cheetah.core.flow.Address;
import net.cheetah.core.flow.FlowKey;
import net.cheetah.jobs.flink.HandSerializer;
import net.cheetah.jobs.flink.HandTypeInfo;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeutils.SimpleTypeSerializerSnapshot;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/**
 * The cheetah operator's key, written by hand: Flink writes the key of every state entry and of
 * every timer into each checkpoint, and its record (POJO) serializer spends 76 bytes and a
 * reflective field walk on a 5-tuple that fits in about 20. An IPv4-mapped address is written as
 * its 4 bytes (a flag bit says which), ports and protocol as varints.
 *
 * <p>Key groups (rescaling) come from {@link FlowKey#hashCode()}, not from these bytes, so they are
 * what they were with the POJO serializer.
 */
public final class FlowKeySerializer extends HandSerializer.Immutable<FlowKey> {
  public static final FlowKeySerializer INSTANCE = new FlowKeySerializer();

  /** For {@code keyBy}: the key type of the cheetah operator. */
  public static final TypeInformation<FlowKey> TYPE =
      new HandTypeInfo<>(FlowKey.class, INSTANCE, "FlowKey(hand-written serializer)");

  private static final long V4_MAPPED_LO_PREFIX = 0x0000_FFFF_0000_0000L;

  @Override
  public FlowKey createInstance() {
    Address zero = new Address(0, 0);
    return new FlowKey(zero, zero, zero, 0, 0, 0);
  }

  @Override
  public void serialize(FlowKey k, DataOutputView to) throws IOException {
    Varints.Buffer out = Varints.Buffer.local();
    int v4 = (isV4(k.exporter()) ? 1 : 0) | (isV4(k.src()) ? 2 : 0) | (isV4(k.dst()) ? 4 : 0);
    out.writeByte(v4);
    writeAddress(k.exporter(), (v4 & 1) != 0, out);
    writeAddress(k.src(), (v4 & 2) != 0, out);
    writeAddress(k.dst(), (v4 & 4) != 0, out);
    out.writeSigned(k.srcPort());
    out.writeSigned(k.dstPort());
    out.writeSigned(k.proto());
    out.writeTo(to);
  }

  @Override
  public FlowKey deserialize(DataInputView in) throws IOException {
    int v4 = in.readUnsignedByte();
    if ((v4 & ~7) != 0) {
      throw new IOException("malformed flow key: flags " + v4);
    }
    Address exporter = readAddress((v4 & 1) != 0, in);
    Address src = readAddress((v4 & 2) != 0, in);
    Address dst = readAddress((v4 & 4) != 0, in);
    return new FlowKey(
        exporter,
        src,
        dst,
        Varints.readSignedInt(in),
        Varints.readSignedInt(in),
        Varints.readSignedInt(in));
  }

  @Override
  public TypeSerializerSnapshot<FlowKey> snapshotConfiguration() {
    return new Snapshot();
  }

  private static boolean isV4(Address a) {
    return a.hi() == 0 && (a.lo() & 0xFFFF_FFFF_0000_0000L) == V4_MAPPED_LO_PREFIX;
  }

  private static void writeAddress(Address a, boolean v4, Varints.Buffer out) {
    if (v4) {
      out.writeInt((int) a.lo());
    } else {
      out.writeLong(a.hi());
      out.writeLong(a.lo());
    }
  }

  private static Address readAddress(boolean v4, DataInputView in) throws IOException {
    if (v4) {
      return new Address(0, V4_MAPPED_LO_PREFIX | (in.readInt() & 0xFFFF_FFFFL));
    }
    return new Address(in.readLong(), in.readLong());
  }

  /** Written into checkpoints beside the state: restoring finds this serializer again. */
  public static final class Snapshot extends SimpleTypeSerializerSnapshot<FlowKey> {
    public Snapshot() {
      super(() -> INSTANCE);
    }
  }
}
