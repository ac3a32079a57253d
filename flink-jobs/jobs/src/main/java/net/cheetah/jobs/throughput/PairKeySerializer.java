package net.cheetah.jobs.throughput;

import java.io.IOException;
import net.cheetah.jobs.flink.HandSerializer;
import net.cheetah.jobs.flink.HandTypeInfo;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.TypeSerializerSchemaCompatibility;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.api.common.typeutils.base.StringSerializer;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;
import org.apache.flink.types.StringValue;

/**
 * The throughput job's key (sender, newline, receiver), in the very bytes Flink's {@link
 * StringSerializer} writes (the length plus one, then each char, as 7-bit groups), but handed to
 * the output in one write. The heap backend writes the key of every state entry and of every timer
 * at each checkpoint, and StringSerializer does it one call per byte down a checkpoint stream: in a
 * profile of the whole stack, 18 % of its JVM's samples were in StringSerializer.serialize. Same
 * bytes, so a savepoint written with StringSerializer restores as it is, and key groups come from
 * {@link String#hashCode()} as before.
 */
public final class PairKeySerializer extends HandSerializer.Immutable<String> {
  public static final PairKeySerializer INSTANCE = new PairKeySerializer();

  /** For {@code keyBy}: the key type of the host-pair operator. */
  public static final TypeInformation<String> TYPE =
      new HandTypeInfo<>(String.class, INSTANCE, "String(host-pair key, one write)");

  private static final int HIGH_BIT = 0x80;

  @Override
  public String createInstance() {
    return "";
  }

  @Override
  public void serialize(String s, DataOutputView to) throws IOException {
    if (s == null) {
      throw new IllegalArgumentException("a null key"); // Flink refuses null keys before this
    }
    int n = s.length();
    int size = groups(n + 1);
    for (int i = 0; i < n; i++) {
      size += groups(s.charAt(i));
    }
    byte[] b = new byte[size];
    int at = put(b, 0, n + 1);
    for (int i = 0; i < n; i++) {
      at = put(b, at, s.charAt(i));
    }
    to.write(b, 0, at);
  }

  private static int groups(int v) {
    int g = 1;
    while (v >= HIGH_BIT) {
      v >>>= 7;
      g++;
    }
    return g;
  }

  private static int put(byte[] b, int at, int v) {
    while (v >= HIGH_BIT) {
      b[at++] = (byte) (v | HIGH_BIT);
      v >>>= 7;
    }
    b[at++] = (byte) v;
    return at;
  }

  @Override
  public String deserialize(DataInputView in) throws IOException {
    String s = StringValue.readString(in);
    if (s == null) {
      throw new IOException("malformed host-pair key: null");
    }
    return s;
  }

  @Override
  public void copy(DataInputView in, DataOutputView out) throws IOException {
    StringValue.copyString(in, out);
  }

  @Override
  public TypeSerializerSnapshot<String> snapshotConfiguration() {
    return new Snapshot();
  }

  /**
   * Written into checkpoints: restores this serializer, and takes StringSerializer's bytes as is.
   */
  public static final class Snapshot implements TypeSerializerSnapshot<String> {
    @Override
    public int getCurrentVersion() {
      return 1;
    }

    @Override
    public void writeSnapshot(DataOutputView out) {}

    @Override
    public void readSnapshot(int readVersion, DataInputView in, ClassLoader classLoader) {}

    @Override
    public TypeSerializer<String> restoreSerializer() {
      return INSTANCE;
    }

    @Override
    public TypeSerializerSchemaCompatibility<String> resolveSchemaCompatibility(
        TypeSerializerSnapshot<String> old) {
      return old instanceof Snapshot || old instanceof StringSerializer.StringSerializerSnapshot
          ? TypeSerializerSchemaCompatibility.compatibleAsIs()
          : TypeSerializerSchemaCompatibility.incompatible();
    }
  }
}
