package net.cheetah.jobs.flink;

import java.io.IOException;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeutils.SimpleTypeSerializerSnapshot;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/**
 * The raw Kafka records a job reads ({@link KafkaIO#source}), written by hand. The point is the
 * copy: Flink copies a record between chained operators with its type's serializer, and the
 * reflective record serializer copied every goflow2 value's bytes on its way from the source to
 * normalize (6 % of the e2e benchmark's allocation, docs/BENCHMARKS.md section 2). Nothing changes
 * a record once read, so a copy is the record itself.
 */
public final class KafkaRecordSerializer extends HandSerializer.Immutable<KafkaRecord> {
  private static final long serialVersionUID = 1L;
  public static final KafkaRecordSerializer INSTANCE = new KafkaRecordSerializer();
  public static final TypeInformation<KafkaRecord> TYPE =
      new HandTypeInfo<>(KafkaRecord.class, INSTANCE, "KafkaRecord(hand-written serializer)");

  @Override
  public KafkaRecord createInstance() {
    return new KafkaRecord("", 0, 0, 0, new byte[0]);
  }

  @Override
  public void serialize(KafkaRecord r, DataOutputView to) throws IOException {
    to.writeUTF(r.topic());
    to.writeInt(r.partition());
    to.writeLong(r.offset());
    to.writeLong(r.timestampMs());
    byte[] v = r.value();
    to.writeInt(v == null ? -1 : v.length);
    if (v != null) {
      to.write(v);
    }
  }

  @Override
  public KafkaRecord deserialize(DataInputView in) throws IOException {
    String topic = in.readUTF();
    int partition = in.readInt();
    long offset = in.readLong();
    long timestampMs = in.readLong();
    int n = in.readInt();
    if (n < -1) {
      throw new IOException("malformed Kafka record: value length " + n);
    }
    byte[] v = null;
    if (n >= 0) {
      v = new byte[n];
      in.readFully(v);
    }
    return new KafkaRecord(topic, partition, offset, timestampMs, v);
  }

  @Override
  public TypeSerializerSnapshot<KafkaRecord> snapshotConfiguration() {
    return new Snapshot();
  }

  /** Written into checkpoints beside the state: restoring finds this serializer again. */
  public static final class Snapshot extends SimpleTypeSerializerSnapshot<KafkaRecord> {
    public Snapshot() {
      super(() -> INSTANCE);
    }
  }
}
