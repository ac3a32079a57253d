package net.cheetah.jobs.analyze;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The nfcapd reader's fuzz target (scripts/fuzz_targets.txt, "nfcapd-file"): any bytes as an nfcapd
 * file go through what {@code analyze} and {@code backfill} do with one, {@link NfcapdFile#open}
 * then every record into {@link ArchiveFlows} (record to flow, normalisation). A clear refusal
 * ({@link NfcapdFile.Unreadable}) is fine; any other exception, or a hang, is a finding. Jazzer
 * drives {@link #fuzzerTestOneInput} ({@code ./cheetah bench fuzz --target nfcapd-file}); {@link
 * NfcapdFuzzCorpusTest} replays the kept corpus in the suite.
 */
public final class NfcapdFileFuzz {
  private static Path file;

  private NfcapdFileFuzz() {}

  public static void fuzzerTestOneInput(byte[] data) throws IOException {
    Path f = scratch();
    Files.write(f, data);
    ArchiveFlows flows = new ArchiveFlows(2, 16);
    try (NfcapdFile nf = NfcapdFile.open(f)) {
      nf.readAll(flows::record);
    } catch (NfcapdFile.Unreadable refused) {
      if (refused.getMessage() == null || !refused.getMessage().contains("(at byte ")) {
        throw new AssertionError("refusal without its offset: " + refused.getMessage(), refused);
      }
    }
  }

  /** One file reused for every input (in the tmpfs when there is one: no disk writes). */
  private static synchronized Path scratch() {
    if (file == null) {
      try {
        Path shm = Path.of("/dev/shm");
        file =
            Files.isDirectory(shm) && Files.isWritable(shm)
                ? Files.createTempFile(shm, "nfcapd-fuzz", ".bin")
                : Files.createTempFile("nfcapd-fuzz", ".bin");
        file.toFile().deleteOnExit();
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    return file;
  }
}
