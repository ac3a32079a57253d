package net.cheetah.jobs.throughput;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.base.IntSerializer;
import org.apache.flink.api.common.typeutils.base.StringSerializer;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.junit.jupiter.api.Test;

/**
 * The host-pair key serializer writes exactly StringSerializer's bytes (checked against
 * StringSerializer itself), so savepoints cross over both ways.
 */
class PairKeySerializerTest {
  private static byte[] bytes(TypeSerializer<String> s, String v) throws IOException {
    DataOutputSerializer out = new DataOutputSerializer(16);
    s.serialize(v, out);
    return out.getCopyOfBuffer();
  }

  @Test
  void theSameBytesAsStringSerializer() throws IOException {
    String[] keys = {
      "",
      "10.0.1.1\n10.0.2.1",
      "2001:db8:1::5\n2001:db8:ffff:ffff:ffff:ffff:ffff:fffe",
      "x".repeat(127), // length + 1 = 128: two groups
      "y".repeat(20_000), // three groups
      "é\u07ff\u0800\uffff\n\ud83d\ude00", // chars of one, two and three groups
    };
    for (String k : keys) {
      byte[] mine = bytes(PairKeySerializer.INSTANCE, k);
      assertThat(mine).as(k.length() + " chars").isEqualTo(bytes(StringSerializer.INSTANCE, k));
      DataInputDeserializer in = new DataInputDeserializer(mine);
      assertThat(PairKeySerializer.INSTANCE.deserialize(in)).isEqualTo(k);
      assertThat(in.available()).isZero();
    }
    // "10.0.1.1\n10.0.2.1": 17 chars, so 18, then the ASCII bytes.
    assertThat(bytes(PairKeySerializer.INSTANCE, "10.0.1.1\n10.0.2.1"))
        .startsWith(18, '1', '0', '.', '0', '.', '1', '.', '1', '\n')
        .hasSize(18);
  }

  @Test
  void takesStringSerializersSnapshotAsItIs() {
    var mine = PairKeySerializer.INSTANCE.snapshotConfiguration();
    assertThat(
            mine.resolveSchemaCompatibility(StringSerializer.INSTANCE.snapshotConfiguration())
                .isCompatibleAsIs())
        .isTrue();
    assertThat(mine.resolveSchemaCompatibility(mine).isCompatibleAsIs()).isTrue();
    @SuppressWarnings({"unchecked", "rawtypes"})
    var other =
        (org.apache.flink.api.common.typeutils.TypeSerializerSnapshot)
            IntSerializer.INSTANCE.snapshotConfiguration();
    @SuppressWarnings("unchecked")
    boolean incompatible = mine.resolveSchemaCompatibility(other).isIncompatible();
    assertThat(incompatible).isTrue();
  }
}
