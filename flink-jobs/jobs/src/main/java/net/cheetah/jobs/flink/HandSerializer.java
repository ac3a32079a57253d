package net.cheetah.jobs.flink;

import java.io.IOException;
import org.apache.flink.api.common.typeutils.base.TypeSerializerSingleton;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/**
 * What every serializer written by hand for Cheetah's state shares (the cheetah operator's key and
 * state, the throughput job's records, series and key): stateless, variable length, no object
 * reuse, and copying serialized bytes by reading and writing them again. A subclass writes {@code
 * serialize}, {@code deserialize}, {@code copy} and its snapshot.
 */
public abstract class HandSerializer<T> extends TypeSerializerSingleton<T> {
  @Override
  public final int getLength() {
    return -1;
  }

  @Override
  public final T copy(T from, T reuse) {
    return copy(from);
  }

  @Override
  public final T deserialize(T reuse, DataInputView in) throws IOException {
    return deserialize(in);
  }

  @Override
  public void copy(DataInputView in, DataOutputView out) throws IOException {
    serialize(deserialize(in), out);
  }

  /** For values never changed once made: a copy is the value itself. */
  public abstract static class Immutable<T> extends HandSerializer<T> {
    @Override
    public final boolean isImmutableType() {
      return true;
    }

    @Override
    public final T copy(T from) {
      return from;
    }
  }
}
