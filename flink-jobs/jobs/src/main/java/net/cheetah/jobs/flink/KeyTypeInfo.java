package net.cheetah.jobs.flink;

import java.util.Objects;
import org.apache.flink.api.common.serialization.SerializerConfig;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeutils.TypeSerializer;

/**
 * A key type for {@code keyBy} whose serializer is written by hand (the cheetah operator's {@code
 * FlowKeySerializer}, the throughput job's {@code PairKeySerializer}): Flink writes the key of
 * every state entry and every timer into each checkpoint with it. Key groups still come from the
 * key's {@code hashCode()}.
 */
public final class KeyTypeInfo<T> extends TypeInformation<T> {
  private final Class<T> type;
  private final TypeSerializer<T> serializer;
  private final String name;

  public KeyTypeInfo(Class<T> type, TypeSerializer<T> serializer, String name) {
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
    return o instanceof KeyTypeInfo<?> k && k.type == type && k.serializer.equals(serializer);
  }

  @Override
  public int hashCode() {
    return Objects.hash(type, serializer);
  }

  @Override
  public boolean canEqual(Object o) {
    return o instanceof KeyTypeInfo;
  }
}
