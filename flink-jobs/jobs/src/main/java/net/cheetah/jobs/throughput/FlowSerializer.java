package net.cheetah.jobs.throughput;

import java.io.IOException;
import net.cheetah.core.flow.Flow;
import net.cheetah.jobs.cheetah.FlowKeySerializer;
import net.cheetah.jobs.cheetah.Varints;
import net.cheetah.jobs.flink.HandSerializer;
import net.cheetah.jobs.flink.HandTypeInfo;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeutils.SimpleTypeSerializerSnapshot;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/**
 * A flow record written by hand: the key as the cheetah operator writes it ({@link
 * FlowKeySerializer}), then start, duration, bytes, packets and the two AS numbers as varints.
 * Flink's record (POJO) serializer spends 124 bytes and a reflective field walk on an IPv4 record;
 * this 41, in two writes. It writes the throughput job's state, and the flows.v1 records the
 * cheetah job sends across its keyed exchange ({@link #TYPE}); records are immutable, so chained
 * operators pass them on without a copy.
 */
public final class FlowSerializer extends HandSerializer.Immutable<Flow> {
  public static final FlowSerializer INSTANCE = new FlowSerializer();

  /** The type of a stream of flow records. */
  public static final TypeInformation<Flow> TYPE =
      new HandTypeInfo<>(Flow.class, INSTANCE, "Flow(hand-written serializer)");

  @Override
  public Flow createInstance() {
    return new Flow(FlowKeySerializer.INSTANCE.createInstance(), 0, 0, 0, 0, 0, 0);
  }

  @Override
  public void serialize(Flow f, DataOutputView to) throws IOException {
    FlowKeySerializer.INSTANCE.serialize(f.key(), to);
    Varints.Buffer out = Varints.Buffer.local();
    out.writeSigned(f.startMs());
    out.writeUnsigned(f.endMs() - f.startMs()); // a Flow never ends before it starts
    out.writeSigned(f.bytes());
    out.writeSigned(f.packets());
    out.writeSigned(f.srcAs());
    out.writeSigned(f.dstAs());
    out.writeTo(to);
  }

  @Override
  public Flow deserialize(DataInputView in) throws IOException {
    var key = FlowKeySerializer.INSTANCE.deserialize(in);
    long start = Varints.readSigned(in);
    long duration = Varints.readUnsigned(in);
    if (duration < 0) {
      throw new IOException("malformed flow record: duration " + duration);
    }
    return new Flow(
        key,
        start,
        start + duration,
        Varints.readSigned(in),
        Varints.readSigned(in),
        Varints.readSignedInt(in),
        Varints.readSignedInt(in));
  }

  @Override
  public TypeSerializerSnapshot<Flow> snapshotConfiguration() {
    return new Snapshot();
  }

  /** Written into checkpoints beside the state: restoring finds this serializer again. */
  public static final class Snapshot extends SimpleTypeSerializerSnapshot<Flow> {
    public Snapshot() {
      super(() -> INSTANCE);
    }
  }
}
