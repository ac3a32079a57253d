package net.cheetah.fabric;

/** A topology is malformed or inconsistent; the message names the entry and what to fix. */
public final class FabricException extends IllegalArgumentException {
  public FabricException(String message) {
    super(message);
  }
}
