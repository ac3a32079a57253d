package net.cheetah.simulator;

import java.util.Arrays;

/**
 * Background replayed from a link's recorded bins (bytes per T1 bin, as in probe.bins.v1 minus the
 * cheetah bytes). Each bin's bytes go out as evenly spaced packets; each run starts at a seeded bin
 * and wraps around, so seeds see different stretches of the recording.
 */
public record RecordedBins(double[] bytesPerBin, double binSeconds, int packetBytes)
    implements Background {

  public RecordedBins {
    if (bytesPerBin.length == 0) {
      throw new IllegalArgumentException("recorded background needs at least one bin");
    }
    for (int i = 0; i < bytesPerBin.length; i++) {
      if (!(bytesPerBin[i] >= 0) || Double.isInfinite(bytesPerBin[i])) {
        throw new IllegalArgumentException(
            "recorded bin " + i + " holds " + bytesPerBin[i] + " bytes; bins must be >= 0");
      }
    }
    if (!(binSeconds > 0)) {
      throw new IllegalArgumentException("bin length must be > 0 s, got " + binSeconds);
    }
    if (packetBytes <= 0) {
      throw new IllegalArgumentException("packet size must be > 0 bytes, got " + packetBytes);
    }
    bytesPerBin = bytesPerBin.clone();
  }

  @Override
  public double[] bytesPerBin() {
    return bytesPerBin.clone();
  }

  double bytesAt(int bin) {
    return bytesPerBin[bin];
  }

  int bins() {
    return bytesPerBin.length;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof RecordedBins r
        && Arrays.equals(bytesPerBin, r.bytesPerBin)
        && binSeconds == r.binSeconds
        && packetBytes == r.packetBytes;
  }

  @Override
  public int hashCode() {
    return 31 * Arrays.hashCode(bytesPerBin) + Double.hashCode(binSeconds) + packetBytes;
  }

  @Override
  public String toString() {
    return "RecordedBins[" + bytesPerBin.length + " bins of " + binSeconds + " s]";
  }
}
