package net.cheetah.jobs.cheetah;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import net.cheetah.core.flow.Address;
import net.cheetah.core.flow.Flow;
import net.cheetah.core.flow.FlowKey;
import net.cheetah.core.flow.Ids;
import net.cheetah.core.flow.StitchedFlow;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.TypeSerializerSchemaCompatibility;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.junit.jupiter.api.Test;

/** The hand-written serializers of the cheetah operator's key and state: exact round trips. */
class CheetahStateSerializersTest {
  static final FlowKey V4 =
      new FlowKey(
          Address.parse("192.0.2.1"),
          Address.parse("198.18.1.10"),
          Address.parse("10.0.0.2"),
          65_535,
          0,
          17);
  static final FlowKey MIXED =
      new FlowKey(
          Address.parse("192.0.2.1"),
          Address.parse("2001:db8::1"),
          Address.parse("::ffff:1.2.3.4"),
          443,
          51_000,
          6);
  static final FlowKey ODD =
      new FlowKey(
          Address.parse("::"),
          new Address(-1L, Long.MIN_VALUE),
          Address.parse("::ffff:0.0.0.0"),
          -1,
          Integer.MAX_VALUE,
          Integer.MIN_VALUE);

  private static <T> byte[] write(TypeSerializer<T> s, T v) throws IOException {
    DataOutputSerializer out = new DataOutputSerializer(64);
    s.serialize(v, out);
    return out.getCopyOfBuffer();
  }

  private static <T> T read(TypeSerializer<T> s, byte[] b) throws IOException {
    DataInputDeserializer in = new DataInputDeserializer(b);
    T v = s.deserialize(in);
    assertThat(in.available()).as("bytes left after one value").isZero();
    return v;
  }

  @Test
  void flowKeysRoundTripExactly() throws IOException {
    for (FlowKey k : new FlowKey[] {V4, MIXED, ODD}) {
      assertThat(read(FlowKeySerializer.INSTANCE, write(FlowKeySerializer.INSTANCE, k)))
          .isEqualTo(k);
    }
    // IPv4-mapped addresses are written as their 4 bytes: flags 1 + 3 * 4, ports 3 + 1, proto 1.
    assertThat(write(FlowKeySerializer.INSTANCE, V4)).hasSize(18);
  }

  static StitchedFlow flow() {
    StitchedFlow f = new StitchedFlow();
    f.flowId = Ids.flowId(MIXED, 1_700_000_000_000L);
    f.startMs = 1_700_000_000_000L;
    f.endMs = 1_700_000_095_000L;
    f.bytes = 3_000_000_000L;
    f.packets = 2_000_000;
    f.records = 3;
    f.srcAs = 64_500;
    f.dstAs = -7;
    f.windowFirst = 28_333_334;
    f.window = new long[] {1_200_000_000L, 0, 5};
    f.peakBytes = 1_700_000_000L;
    f.peakIndex = 28_333_333; // a retired interval, before windowFirst
    f.cheetah = true;
    f.seq = 4;
    return f;
  }

  static CheetahKeyState state() {
    CheetahKeyState s = new CheetahKeyState();
    s.addPending(new Flow(MIXED, 1_700_000_090_000L, 1_700_000_150_000L, 9_000_000_000L, 7, 0, 1));
    s.addPending(new Flow(MIXED, 5, 5, 0, 0, Integer.MIN_VALUE, Integer.MAX_VALUE));
    s.addPending(new Flow(MIXED, -3_000, 4_000, Long.MAX_VALUE, Long.MAX_VALUE, 1, 2));
    s.flow = flow();
    return s;
  }

  static void assertSame(CheetahKeyState a, CheetahKeyState b) {
    assertThat(b.pendingCount).isEqualTo(a.pendingCount);
    for (int i = 0; i < a.pendingCount; i++) {
      assertThat(b.pendingFlow(MIXED, i)).isEqualTo(a.pendingFlow(MIXED, i));
    }
    if (a.flow == null) {
      assertThat(b.flow).isNull();
    } else {
      assertThat(b.flow).usingRecursiveComparison().isEqualTo(a.flow);
    }
  }

  @Test
  void statesRoundTripExactly() throws IOException {
    CheetahKeyState s = state();
    assertSame(
        s, read(CheetahKeyStateSerializer.INSTANCE, write(CheetahKeyStateSerializer.INSTANCE, s)));

    CheetahKeyState onlyPending = state();
    onlyPending.flow = null;
    assertSame(
        onlyPending,
        read(
            CheetahKeyStateSerializer.INSTANCE,
            write(CheetahKeyStateSerializer.INSTANCE, onlyPending)));

    CheetahKeyState onlyFlow = state();
    onlyFlow.retainPending(i -> false);
    onlyFlow.flow.flowId = "not a hex id"; // any other id is kept as text
    onlyFlow.flow.cheetah = false;
    onlyFlow.flow.window = new long[0];
    assertSame(
        onlyFlow,
        read(
            CheetahKeyStateSerializer.INSTANCE,
            write(CheetahKeyStateSerializer.INSTANCE, onlyFlow)));
  }

  @Test
  void aMouseTakesFewBytes() throws IOException {
    CheetahKeyState s = new CheetahKeyState();
    s.addPending(new Flow(V4, 1_700_000_000_000L, 1_700_000_002_000L, 40_000, 40, 0, 0));
    // count 1, start 8, span 2, bytes 3, packets 1, AS 1 + 1, no flow 1
    assertThat(write(CheetahKeyStateSerializer.INSTANCE, s)).hasSize(18);
  }

  @Test
  void copiesAreDeep() {
    CheetahKeyState s = state();
    CheetahKeyState c = CheetahKeyStateSerializer.INSTANCE.copy(s);
    assertSame(s, c);
    c.flow.window[0]++;
    c.pending[0]++;
    c.flow.bytes++;
    assertThat(s.flow.window[0]).isEqualTo(1_200_000_000L);
    assertThat(s.pending[0]).isEqualTo(1_700_000_090_000L);
    assertThat(s.flow.bytes).isEqualTo(3_000_000_000L);
  }

  @Test
  void serializerSnapshotsRestoreTheSameSerializer() throws IOException {
    for (TypeSerializer<?> s :
        new TypeSerializer<?>[] {CheetahKeyStateSerializer.INSTANCE, FlowKeySerializer.INSTANCE}) {
      snapshotRoundTrip(s);
    }
  }

  private static <T> void snapshotRoundTrip(TypeSerializer<T> s) throws IOException {
    DataOutputSerializer out = new DataOutputSerializer(64);
    TypeSerializerSnapshot.writeVersionedSnapshot(out, s.snapshotConfiguration());
    TypeSerializerSnapshot<T> read =
        TypeSerializerSnapshot.readVersionedSnapshot(
            new DataInputDeserializer(out.getCopyOfBuffer()), getClass(s));
    assertThat(read.restoreSerializer()).isSameAs(s);
    TypeSerializerSchemaCompatibility<T> c =
        s.snapshotConfiguration().resolveSchemaCompatibility(read);
    assertThat(c.isCompatibleAsIs()).isTrue();
  }

  private static ClassLoader getClass(TypeSerializer<?> s) {
    return s.getClass().getClassLoader();
  }

  @Test
  void malformedStateIsAClearError() {
    assertThatThrownBy(() -> read(CheetahKeyStateSerializer.INSTANCE, new byte[] {0, (byte) 0x80}))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("malformed cheetah state");
    assertThatThrownBy(() -> read(FlowKeySerializer.INSTANCE, new byte[] {9}))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("malformed flow key");
  }
}
