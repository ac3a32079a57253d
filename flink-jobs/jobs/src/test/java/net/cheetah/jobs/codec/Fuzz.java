package net.cheetah.jobs.codec;

import java.util.Arrays;
import java.util.SplittableRandom;

/** Inputs for the tests that hold a hand-written reader to protobuf-java's. */
public final class Fuzz {
  private Fuzz() {}

  /** {@code len} random bytes. */
  public static byte[] bytes(SplittableRandom r, int len) {
    byte[] b = new byte[len];
    for (int i = 0; i < len; i++) {
      b[i] = (byte) r.nextInt(256);
    }
    return b;
  }

  /** {@code v} with one to three bytes replaced, flipped or inserted, or cut short. */
  public static byte[] mutate(byte[] v, SplittableRandom r) {
    byte[] m = v;
    for (int k = r.nextInt(1, 4); k > 0 && m.length > 0; k--) {
      int at = r.nextInt(m.length);
      switch (r.nextInt(4)) {
        case 0 -> m[at] = (byte) r.nextInt(256);
        case 1 -> m[at] ^= (byte) (1 << r.nextInt(8));
        case 2 -> m = Arrays.copyOf(m, at); // truncated
        default -> {
          byte[] n = new byte[m.length + 1];
          System.arraycopy(m, 0, n, 0, at);
          n[at] = (byte) r.nextInt(256);
          System.arraycopy(m, at, n, at + 1, m.length - at);
          m = n;
        }
      }
    }
    return m;
  }
}
