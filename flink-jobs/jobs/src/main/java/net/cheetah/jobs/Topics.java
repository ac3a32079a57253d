package net.cheetah.jobs;

/** Kafka topic names of ARCHITECTURE.md used by the jobs. */
public final class Topics {
  private Topics() {}

  public static final String GOFLOW2 = "flows.goflow2.v1";
  public static final String FLOWS = "flows.v1";
  public static final String REJECTED = "flows.rejected.v1";
  public static final String CHEETAHS = "cheetahs.v1";
  public static final String FLOWSETS = "flowsets.v1";
}
