package net.cheetah.simulator;

/** Where the port's background traffic comes from. */
public sealed interface Background permits ParetoBursts, RecordedBins {
  /** Bytes of each background packet. */
  int packetBytes();
}
