package net.cheetah.jobs.redirects;

/** A decision encoded for the audit topic and, when published, the signed command. */
public record EncodedDecision(byte[] device, byte[] decision, byte[] command) {
  public boolean published() {
    return command.length > 0;
  }
}
