package net.cheetah.jobs.throughput;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import net.cheetah.core.flow.Address;
import net.cheetah.core.flow.Flow;
import net.cheetah.core.flow.FlowKey;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.junit.jupiter.api.Test;

/** The throughput job's hand-written state serializers: exact round trips, sizes, bad bytes. */
class ThroughputStateSerializersTest {
  private static <T> byte[] bytes(TypeSerializer<T> s, T value) throws IOException {
    DataOutputSerializer out = new DataOutputSerializer(64);
    s.serialize(value, out);
    return out.getCopyOfBuffer();
  }

  private static <T> T read(TypeSerializer<T> s, byte[] b) throws IOException {
    DataInputDeserializer in = new DataInputDeserializer(b);
    T v = s.deserialize(in);
    assertThat(in.available()).as("bytes left over").isZero();
    return v;
  }

  @Test
  void aSeriesOfOneObservationNeverFittedTakes36Bytes() throws IOException {
    // The state of most pairs: one observation at 2026-11-25T10:00:00Z of 1.5 Gbit/s, no fit yet.
    long ms = 1_764_064_800_000L;
    SeriesState one =
        new SeriesState(
            new long[] {ms},
            new double[] {1.5e9},
            1.5e9,
            new long[] {-1, -1},
            new double[] {
              Double.NaN, Double.NaN, Double.NaN, 0, Double.NaN, Double.NaN, Double.NaN, 0
            });
    byte[] b = bytes(SeriesStateSerializer.INSTANCE, one);
    // 1 (count) + 6 (zig-zag varint of 1.76e12 < 2^42) + 1 + 8 (one rate) + 8 (EWMA)
    // + 1 + 2 (fit hours -1, -1) + 1 + 8 tags (NaN or zero) = 36
    assertThat(b).hasSize(36);
    SeriesState back = read(SeriesStateSerializer.INSTANCE, b);
    assertThat(back.ms()).containsExactly(ms);
    assertThat(back.values()).containsExactly(1.5e9);
    assertThat(back.ewma()).isEqualTo(1.5e9);
    assertThat(back.fitHour()).containsExactly(-1, -1);
    assertThat(back.fit()).containsExactly(one.fit());
  }

  @Test
  void everyDoubleComesBackWithItsBits() throws IOException {
    double otherNan = Double.longBitsToDouble(0x7ff0_0000_0000_0001L);
    SeriesState s =
        new SeriesState(
            new long[] {5_000, 3_000, -7, Long.MAX_VALUE},
            new double[] {-0.0, otherNan, Double.POSITIVE_INFINITY, 4.9e-324},
            -0.0,
            new long[] {492_000, 7},
            new double[] {1.25, -0.0, otherNan, 0.0, Double.NaN, 3, 2, 1});
    SeriesState back =
        read(SeriesStateSerializer.INSTANCE, bytes(SeriesStateSerializer.INSTANCE, s));
    assertThat(back.ms()).containsExactly(s.ms());
    assertThat(raw(back.values())).containsExactly(raw(s.values()));
    assertThat(Double.doubleToRawLongBits(back.ewma())).isEqualTo(Double.doubleToRawLongBits(-0.0));
    assertThat(back.fitHour()).containsExactly(s.fitHour());
    assertThat(raw(back.fit())).containsExactly(raw(s.fit()));
    SeriesState empty = SeriesState.empty();
    assertThat(
            read(SeriesStateSerializer.INSTANCE, bytes(SeriesStateSerializer.INSTANCE, empty))
                .size())
        .isZero();
  }

  @Test
  void aCopyIsDeep() {
    SeriesState s =
        new SeriesState(new long[] {1}, new double[] {2}, 3, new long[] {4, 5}, new double[] {6});
    SeriesState c = SeriesStateSerializer.INSTANCE.copy(s);
    s.ms()[0] = 9;
    s.fit()[0] = 9;
    assertThat(c.ms()).containsExactly(1);
    assertThat(c.fit()).containsExactly(6);
  }

  @Test
  void badSeriesBytesAreAnErrorNotAHugeArray() {
    // Length 2^21 (varint 80 80 80 01): more than any series holds.
    assertThatThrownBy(
            () ->
                read(
                    SeriesStateSerializer.INSTANCE,
                    new byte[] {(byte) 0x80, (byte) 0x80, (byte) 0x80, 1}))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("length");
    // No observation, an EWMA of 0, no fit hours, one fit value with tag 7.
    byte[] bad = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 7};
    assertThatThrownBy(() -> read(SeriesStateSerializer.INSTANCE, bad))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("fit tag 7");
  }

  @Test
  void flowRecordsComeBackAsTheyWere() throws IOException {
    Flow v4 =
        new Flow(
            new FlowKey(
                Address.parse("192.0.2.1"),
                Address.parse("10.0.1.1"),
                Address.parse("10.0.2.1"),
                40_000,
                5201,
                6),
            1_764_064_800_000L,
            1_764_064_859_999L,
            7_500_000_000L,
            5_000_000,
            64_512,
            -1);
    Flow v6 =
        new Flow(
            new FlowKey(
                Address.parse("2001:db8::1"),
                Address.parse("2001:db8:1::5"),
                Address.parse("::ffff:10.0.0.1"),
                0,
                0,
                58),
            -5,
            -5,
            0,
            0,
            0,
            0);
    for (Flow f : new Flow[] {v4, v6}) {
      assertThat(read(FlowSerializer.INSTANCE, bytes(FlowSerializer.INSTANCE, f))).isEqualTo(f);
    }
    // Key 1 + 3 × 4 + ports and protocol 3 + 2 + 1 = 19; start 6, duration 3 (59,999 < 2^21),
    // bytes 5 (zig-zag 1.5e10 < 2^35), packets 4, AS 3 + 1 = 22: 41, against ~120 as a POJO.
    assertThat(bytes(FlowSerializer.INSTANCE, v4)).hasSize(41);
  }

  private static long[] raw(double[] d) {
    long[] out = new long[d.length];
    for (int i = 0; i < d.length; i++) {
      out[i] = Double.doubleToRawLongBits(d[i]);
    }
    return out;
  }
}
