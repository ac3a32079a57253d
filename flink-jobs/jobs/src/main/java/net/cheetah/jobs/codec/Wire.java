package net.cheetah.jobs.codec;

/**
 * A cursor over protobuf wire format for the hand-written readers of the hot topics ({@link
 * FlowRecordReader}, the normalize job's goflow2 reader). It reads only what is regular: a tag of
 * at most 5 bytes with a field number above 0, varints of at most 10 bytes, lengths within the
 * input, and skips fields of wire types 0, 1, 2 and 5. Anything else sets {@link #bad}, and the
 * reader hands the input to protobuf-java, whose outcome (and error text) then stands.
 */
public final class Wire {
  public static final int VARINT = 0;
  public static final int FIXED64 = 1;
  public static final int LENGTH_DELIMITED = 2;
  public static final int FIXED32 = 5;

  private byte[] b;
  private int p;
  private int end;
  private int start;

  /** Set by the first irregular read; every read after it returns 0. */
  public boolean bad;

  /** Reads {@code len} bytes of {@code b} from {@code off}. */
  public Wire reset(byte[] b, int off, int len) {
    this.b = b;
    this.p = off;
    this.end = off + len;
    this.bad = false;
    return this;
  }

  public boolean atEnd() {
    return p >= end;
  }

  public int position() {
    return p;
  }

  /** The next tag (field number << 3 | wire type). */
  public int tag() {
    int t = (int) raw(5);
    if (!bad && t >>> 3 == 0) {
      bad = true;
    }
    return t;
  }

  /** A varint of up to 10 bytes; bits past 64 dropped, as protobuf-java does. */
  public long varint() {
    return raw(10);
  }

  /** A length prefix: the start of the bytes it announces is {@link #position()} after it. */
  public int length() {
    int len = (int) raw(5);
    if (!bad && (len < 0 || len > end - p)) {
      bad = true;
    }
    return bad ? 0 : len;
  }

  /**
   * A length-delimited field after its tag: moves past its bytes and returns how many there are;
   * {@link #start()} is where they begin.
   */
  public int bytes() {
    int n = length();
    start = p;
    p += n;
    return n;
  }

  /** Where the bytes of the last {@link #bytes()} field begin. */
  public int start() {
    return start;
  }

  /** Skips a field of this wire type; groups and wire types 6 and 7 are irregular. */
  public void skip(int wire) {
    switch (wire) {
      case VARINT -> raw(10);
      case FIXED64, FIXED32 -> {
        int n = wire == FIXED64 ? 8 : 4;
        if (n > end - p) {
          bad = true;
        } else {
          p += n;
        }
      }
      case LENGTH_DELIMITED -> bytes();
      default -> bad = true;
    }
  }

  private long raw(int maxBytes) {
    if (bad) {
      return 0;
    }
    long x = 0;
    for (int i = 0, shift = 0; i < maxBytes; i++, shift += 7) {
      if (p == end) {
        break;
      }
      byte v = b[p++];
      x |= (long) (v & 0x7F) << shift;
      if (v >= 0) {
        return x;
      }
    }
    bad = true; // truncated, or longer than this reader takes
    return 0;
  }
}
