package net.cheetah.jobs.analyze;

import io.airlift.compress.lz4.Lz4Decompressor;
import io.airlift.compress.lzo.LzoDecompressor;
import java.io.ByteArrayInputStream;
import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import org.apache.commons.compress.compressors.bzip2.BZip2CompressorInputStream;

/**
 * Reads the flow records of an nfcapd file as nfdump 1.7 writes it (file layout 2), natively: no
 * nfdump process, no text. The layout (nfdump's nffileV2.h and nfxV3.h, public):
 *
 * <ul>
 *   <li>a 40-byte file header, little-endian as written on x86: magic 0xA50C, layout version 2,
 *       nfdump version, creation time, compression (0 none, 1 LZO, 2 BZ2, 3 LZ4), encryption (0),
 *       number of appendix blocks, reserved, appendix offset, block size, number of data blocks;
 *   <li>data blocks: a 12-byte header (number of records, payload size, block type, flags) then the
 *       payload, compressed as the file says; blocks of type 2 and 3 hold records, type 4 arrays;
 *   <li>records: type and size (16 bits each); type 11 is a flow (V3 record: a 12-byte header with
 *       the number of elements, engine type/id, exporter id, flags, NetFlow version, then elements,
 *       each with its own type and length); exporter, sampler, statistics and name records are
 *       skipped (they carry nothing the analysis reads);
 *   <li>the appendix (ident and statistics) after the data blocks, not needed here.
 * </ul>
 *
 * <p>Anything this reader does not understand, or that is damaged, is an {@link IOException} with
 * the reason and the byte offset; the caller decides what then (analyze asks nfdump itself). Blocks
 * can be read in any order and from several threads once the file is {@link #open opened}.
 */
public final class NfcapdFile implements Closeable {
  static final int MAGIC = 0xA50C;
  static final int LAYOUT_VERSION_1 = 1;
  static final int LAYOUT_VERSION_2 = 2;
  static final int HEADER_SIZE = 40;
  static final int BLOCK_HEADER_SIZE = 12;

  /** nfdump 1.7.1 refuses blocks larger than its read buffer (5 × 1 MiB). */
  static final int MAX_BLOCK = 5 * 1048576;

  static final int NOT_COMPRESSED = 0;
  static final int LZO_COMPRESSED = 1;
  static final int BZ2_COMPRESSED = 2;
  static final int LZ4_COMPRESSED = 3;

  static final int V3_RECORD = 11;
  static final int COMMON_RECORD_V2 = 10;

  /** A file that is not a readable nfcapd file (damaged, or something this reader cannot read). */
  public static final class Unreadable extends IOException {
    public Unreadable(Path file, long offset, String reason) {
      super(file + ": " + reason + " (at byte " + offset + ")");
    }
  }

  /** Receives each flow record; {@code r} is reused for the next one. */
  @FunctionalInterface
  public interface RecordSink {
    void accept(NfcapdRecord r);
  }

  /** Where one data block is. */
  record Block(long offset, int size, int records, int type) {}

  private final Path path;
  private final FileChannel channel;
  private final int compression;
  private final List<Block> blocks;

  private NfcapdFile(Path path, FileChannel channel, int compression, List<Block> blocks) {
    this.path = path;
    this.channel = channel;
    this.compression = compression;
    this.blocks = blocks;
  }

  /** Opens {@code file}: checks its header and finds its data blocks (reads no records yet). */
  public static NfcapdFile open(Path file) throws IOException {
    FileChannel ch = FileChannel.open(file, StandardOpenOption.READ);
    try {
      long size = ch.size();
      ByteBuffer h = read(ch, 0, HEADER_SIZE);
      if (h.remaining() < 4) {
        throw new Unreadable(file, 0, "too short for an nfcapd file header (" + size + " bytes)");
      }
      int magic = Short.toUnsignedInt(h.getShort(0));
      if (magic != MAGIC) {
        throw new Unreadable(file, 0, String.format("bad magic 0x%X (not an nfcapd file)", magic));
      }
      int version = Short.toUnsignedInt(h.getShort(2));
      if (version == LAYOUT_VERSION_1) {
        throw new Unreadable(file, 2, "file layout 1 (nfdump 1.6) is not read natively");
      }
      if (version != LAYOUT_VERSION_2) {
        throw new Unreadable(file, 2, "unknown file layout version " + version);
      }
      if (h.remaining() < HEADER_SIZE) {
        throw new Unreadable(file, 0, "file header cut short (" + size + " bytes)");
      }
      int compression = Byte.toUnsignedInt(h.get(16));
      int encryption = Byte.toUnsignedInt(h.get(17));
      int appendixBlocks = Short.toUnsignedInt(h.getShort(18));
      long offAppendix = h.getLong(24);
      long numBlocks = Integer.toUnsignedLong(h.getInt(36));
      if (compression > LZ4_COMPRESSED) {
        throw new Unreadable(file, 16, "unknown compression " + compression);
      }
      if (encryption != 0) {
        throw new Unreadable(file, 17, "encrypted file (encryption " + encryption + ")");
      }
      if (appendixBlocks > 0 && (offAppendix < HEADER_SIZE || offAppendix >= size)) {
        throw new Unreadable(file, 24, "appendix offset " + offAppendix + " outside the file");
      }
      // Data blocks follow the header back to back; nfdump reads at most NumBlocks of them and
      // stops quietly at the end of the file.
      List<Block> blocks = new ArrayList<>();
      long pos = HEADER_SIZE;
      for (long i = 0; i < numBlocks; i++) {
        ByteBuffer b = read(ch, pos, BLOCK_HEADER_SIZE);
        if (b.remaining() == 0) {
          break;
        }
        if (b.remaining() < BLOCK_HEADER_SIZE) {
          throw new Unreadable(file, pos, "data block header cut short");
        }
        long records = Integer.toUnsignedLong(b.getInt(0));
        long bytes = Integer.toUnsignedLong(b.getInt(4));
        int type = Short.toUnsignedInt(b.getShort(8));
        if (bytes == 0 || bytes > MAX_BLOCK || records == 0) {
          throw new Unreadable(
              file,
              pos,
              "corrupt data block header (" + records + " records, " + bytes + " bytes)");
        }
        if (pos + BLOCK_HEADER_SIZE + bytes > size) {
          throw new Unreadable(file, pos, "data block of " + bytes + " bytes cut short");
        }
        blocks.add(new Block(pos, (int) bytes, (int) records, type));
        pos += BLOCK_HEADER_SIZE + bytes;
      }
      NfcapdFile f = new NfcapdFile(file, ch, compression, blocks);
      f.checkAppendix(offAppendix, appendixBlocks, size);
      return f;
    } catch (IOException | RuntimeException e) {
      ch.close();
      throw e;
    }
  }

  /**
   * The appendix (ident and statistics records) must be readable, as nfdump reads it on opening a
   * file and reports it otherwise; its content is not needed.
   */
  private void checkAppendix(long offset, int count, long size) throws IOException {
    long pos = offset;
    for (int i = 0; i < count; i++) {
      ByteBuffer h = read(channel, pos, BLOCK_HEADER_SIZE);
      if (h.remaining() < BLOCK_HEADER_SIZE) {
        throw new Unreadable(path, pos, "appendix block header cut short");
      }
      long records = Integer.toUnsignedLong(h.getInt(0));
      long bytes = Integer.toUnsignedLong(h.getInt(4));
      if (bytes == 0
          || bytes > MAX_BLOCK
          || records == 0
          || pos + BLOCK_HEADER_SIZE + bytes > size) {
        throw new Unreadable(
            path, pos, "corrupt appendix block (" + records + " records, " + bytes + " bytes)");
      }
      Block b = new Block(pos, (int) bytes, (int) records, Short.toUnsignedInt(h.getShort(8)));
      ByteBuffer p = payload(b);
      int at = 0;
      for (int r = 0; r < b.records(); r++) {
        if (at + 4 > p.limit()) {
          throw bad(b, at, "appendix record " + r + " beyond the block's end");
        }
        int type = Short.toUnsignedInt(p.getShort(at));
        int rsize = Short.toUnsignedInt(p.getShort(at + 2));
        if ((type != 0x8001 && type != 0x8002) || rsize < 4 || at + rsize > p.limit()) {
          throw bad(b, at, "appendix record of type " + type + " and " + rsize + " bytes");
        }
        at += rsize;
      }
      pos += BLOCK_HEADER_SIZE + bytes;
    }
  }

  public Path path() {
    return path;
  }

  public int blockCount() {
    return blocks.size();
  }

  /** Bytes of blocks [from, to) as stored (compressed or not), for progress reports. */
  public long storedBytes(int from, int to) {
    long n = 0;
    for (int i = from; i < to; i++) {
      n += BLOCK_HEADER_SIZE + blocks.get(i).size();
    }
    return n;
  }

  /** Records (of any type) in blocks [from, to), as their headers say. */
  public long records(int from, int to) {
    long n = 0;
    for (int i = from; i < to; i++) {
      n += blocks.get(i).records();
    }
    return n;
  }

  /** Every flow record of blocks [from, to), in file order. Safe to call from several threads. */
  public void read(int from, int to, RecordSink sink) throws IOException {
    NfcapdRecord r = new NfcapdRecord();
    for (int i = from; i < to; i++) {
      Block b = blocks.get(i);
      if (b.type() == 4) {
        continue; // array blocks (names); nfdump skips them too
      }
      if (b.type() != 2 && b.type() != 3) {
        throw new Unreadable(path, b.offset(), "unknown data block type " + b.type());
      }
      ByteBuffer payload = payload(b);
      records(b, payload, r, sink);
    }
  }

  /** Every flow record of the file, in file order. */
  public void readAll(RecordSink sink) throws IOException {
    read(0, blocks.size(), sink);
  }

  @Override
  public void close() throws IOException {
    channel.close();
  }

  private ByteBuffer payload(Block b) throws IOException {
    ByteBuffer stored = read(channel, b.offset() + BLOCK_HEADER_SIZE, b.size());
    if (stored.remaining() != b.size()) {
      throw new Unreadable(path, b.offset(), "data block cut short");
    }
    if (compression == NOT_COMPRESSED) {
      return stored;
    }
    byte[] in = stored.array();
    byte[] out = new byte[MAX_BLOCK];
    int n;
    try {
      n =
          switch (compression) {
            case LZ4_COMPRESSED ->
                new Lz4Decompressor().decompress(in, 0, in.length, out, 0, MAX_BLOCK);
            case LZO_COMPRESSED ->
                new LzoDecompressor().decompress(in, 0, in.length, out, 0, MAX_BLOCK);
            case BZ2_COMPRESSED -> bunzip(in, out);
            default -> throw new IllegalStateException("compression " + compression);
          };
    } catch (IOException | RuntimeException e) {
      throw new Unreadable(
          path,
          b.offset(),
          "data block does not decompress (" + compressionName() + "): " + e.getMessage());
    }
    if (n <= 0) {
      throw new Unreadable(path, b.offset(), "data block decompresses to nothing");
    }
    return ByteBuffer.wrap(out, 0, n).slice().order(ByteOrder.LITTLE_ENDIAN);
  }

  private static int bunzip(byte[] in, byte[] out) throws IOException {
    try (InputStream s = new BZip2CompressorInputStream(new ByteArrayInputStream(in))) {
      int n = 0;
      for (int k = s.read(out, 0, out.length); k > 0; k = s.read(out, n, out.length - n)) {
        n += k;
        if (n == out.length) {
          if (s.read() >= 0) {
            throw new IOException("more than " + MAX_BLOCK + " bytes");
          }
          break;
        }
      }
      return n;
    }
  }

  private String compressionName() {
    return switch (compression) {
      case LZO_COMPRESSED -> "LZO";
      case BZ2_COMPRESSED -> "BZ2";
      case LZ4_COMPRESSED -> "LZ4";
      default -> "none";
    };
  }

  private void records(Block b, ByteBuffer p, NfcapdRecord r, RecordSink sink) throws IOException {
    int limit = p.limit();
    int at = 0;
    for (int i = 0; i < b.records(); i++) {
      if (at + 4 > limit) {
        throw bad(b, at, "record " + i + " of " + b.records() + " beyond the block's end");
      }
      int type = Short.toUnsignedInt(p.getShort(at));
      int size = Short.toUnsignedInt(p.getShort(at + 2));
      if (size < 4 || at + size > limit) {
        throw bad(b, at, "record of " + size + " bytes does not fit the block");
      }
      switch (type) {
        case V3_RECORD -> {
          v3(b, p, at, size, r);
          sink.accept(r);
        }
        case 2, 7, 8, 12, 13, 14, 15 -> {
          // extension map, exporter, exporter statistics, nbar, interface and VRF names, sampler
        }
        case COMMON_RECORD_V2 -> throw bad(b, at, "nfdump 1.6 flow record (type 10)");
        default -> throw bad(b, at, "unknown record type " + type);
      }
      at += size;
    }
  }

  /** One V3 record at {@code at} of {@code size} bytes into {@code r}. */
  private void v3(Block b, ByteBuffer p, int at, int size, NfcapdRecord r) throws IOException {
    if (size < 12) {
      throw bad(b, at, "flow record of " + size + " bytes is shorter than its header");
    }
    r.clear();
    int elements = Short.toUnsignedInt(p.getShort(at + 4));
    r.engineType = Byte.toUnsignedInt(p.get(at + 6));
    r.engineId = Byte.toUnsignedInt(p.get(at + 7));
    r.exporterId = Short.toUnsignedInt(p.getShort(at + 8));
    int end = at + size;
    int e = at + 12;
    for (int i = 0; i < elements; i++) {
      if (e + 4 > end) {
        throw bad(b, at, "element " + i + " of " + elements + " beyond the record's end");
      }
      int type = Short.toUnsignedInt(p.getShort(e));
      int length = Short.toUnsignedInt(p.getShort(e + 2));
      if (length < 4 || e + length > end) {
        throw bad(b, at, "element " + type + " of " + length + " bytes does not fit the record");
      }
      int v = e + 4;
      int need =
          switch (type) {
            case 1 -> 48; // EXgenericFlow
            case 2 -> 8; // EXipv4Flow
            case 3 -> 32; // EXipv6Flow
            case 4 -> 8; // EXflowMisc (interfaces)
            case 5 -> 24; // EXcntFlow
            case 7 -> 8; // EXasRouting
            case 12 -> 4; // EXipReceivedV4
            case 13 -> 16; // EXipReceivedV6
            default -> 0;
          };
      if (length - 4 < need) {
        throw bad(b, at, "element " + type + " of " + length + " bytes is too short");
      }
      switch (type) {
        case 1 -> {
          r.msecFirst = p.getLong(v);
          r.msecLast = p.getLong(v + 8);
          r.msecReceived = p.getLong(v + 16);
          r.inPackets = p.getLong(v + 24);
          r.inBytes = p.getLong(v + 32);
          r.srcPort = Short.toUnsignedInt(p.getShort(v + 40));
          r.dstPort = Short.toUnsignedInt(p.getShort(v + 42));
          r.proto = Byte.toUnsignedInt(p.get(v + 44));
          r.tcpFlags = Byte.toUnsignedInt(p.get(v + 45));
          r.srcTos = Byte.toUnsignedInt(p.get(v + 47));
        }
        case 2 -> {
          r.srcHi = r.dstHi = 0;
          r.srcLo = Integer.toUnsignedLong(p.getInt(v));
          r.dstLo = Integer.toUnsignedLong(p.getInt(v + 4));
        }
        case 3 -> {
          r.srcHi = p.getLong(v);
          r.srcLo = p.getLong(v + 8);
          r.dstHi = p.getLong(v + 16);
          r.dstLo = p.getLong(v + 24);
          r.ipv6 = true;
        }
        case 4 -> {
          r.input = Integer.toUnsignedLong(p.getInt(v));
          r.output = Integer.toUnsignedLong(p.getInt(v + 4));
        }
        case 5 -> {
          r.aggrFlows = p.getLong(v);
          r.outPackets = p.getLong(v + 8);
          r.outBytes = p.getLong(v + 16);
        }
        case 7 -> {
          r.srcAs = Integer.toUnsignedLong(p.getInt(v));
          r.dstAs = Integer.toUnsignedLong(p.getInt(v + 4));
        }
        case 12 -> {
          r.routerHi = 0;
          r.routerLo = Integer.toUnsignedLong(p.getInt(v));
        }
        case 13 -> {
          r.routerHi = p.getLong(v);
          r.routerLo = p.getLong(v + 8);
          r.routerIpv6 = true;
        }
        default -> {
          // an element the analysis does not read
        }
      }
      e += length;
    }
    if (e != end) {
      throw bad(b, at, "flow record of " + size + " bytes but elements of " + (e - at));
    }
    if (r.aggrFlows == 0) {
      r.aggrFlows = 1;
    }
  }

  private Unreadable bad(Block b, int at, String why) {
    return new Unreadable(
        path,
        b.offset(),
        why + " (offset " + at + " in the " + (compression == 0 ? "" : "decompressed ") + "block)");
  }

  private static ByteBuffer read(FileChannel ch, long pos, int n) throws IOException {
    ByteBuffer b = ByteBuffer.allocate(n).order(ByteOrder.LITTLE_ENDIAN);
    while (b.hasRemaining()) {
      int k = ch.read(b, pos + b.position());
      if (k < 0) {
        break;
      }
    }
    b.flip();
    return b;
  }
}
