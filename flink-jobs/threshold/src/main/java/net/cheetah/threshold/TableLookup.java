package net.cheetah.threshold;

/** The outcome of looking a tag up among the loss tables. */
public sealed interface TableLookup {
  /** A table whose tag is within (ε_r, ε_b) of the one asked for. */
  record Found(LossTable table, String reason) implements TableLookup {}

  /** No table is close enough: the simulator must build one for this tag. */
  record NeedsTable(BackgroundTag tag, double rttSeconds, String reason) implements TableLookup {}
}
