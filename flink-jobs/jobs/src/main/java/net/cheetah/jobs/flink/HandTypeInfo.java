package net.cheetah.jobs.flink;

import java.util.Objects;
import org.apache.flink.api.common.serialization.SerializerConfig;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeutils.TypeSerializer;

/**
 * A type whose serializer is written by hand. As a {@code keyBy} key (the cheetah operator's {@code
 * FlowKeySerializer}, the throughput job's {@code PairKeySerializer}), Flink writes the key of
 * every state entry and every timer into each checkpoint with it; key groups still come from the
 * key's {@code hashCode()}. As a stream's type (flow records, {@code FlowSerializer}), it writes
 * every record that crosses a keyed exchange, and copies it between chained operators.
 */
public final class HandTypeInfo<T> extends TypeInformation<T> {
  private final Class<T> type;
  private final TypeSerializer<T> serializer;
  private final String name;

  public HandTypeInfo(Class<T> type, TypeSerializer<T> serializer, String name) {
    this.type = type;
    this.serializer = serializer;
    this.name = name;
  }

  @Override
  public boolean isBasicType() {
    return false;
  }

  @Override
  public boolean isTupleType() {
    return false;
  }

  @Override
  public int getArity() {
    return 1;
  }

  @Override
  public int getTotalFields() {
    return 1;
  }

  @Override
  public Class<T> getTypeClass() {
    return type;
  }

  @Override
  public boolean isKeyType() {
    return true;
  }

  @Override
  public TypeSerializer<T> createSerializer(SerializerConfig config) {
    return serializer;
  }

  @Override
  public String toString() {
    return name;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof HandTypeInfo<?> k && k.type == type && k.serializer.equals(serializer);
  }

  @Override
  public int hashCode() {
    return Objects.hash(type, serializer);
  }

  @Override
  public boolean canEqual(Object o) {
    return o instanceof HandTypeInfo;
  }
}
