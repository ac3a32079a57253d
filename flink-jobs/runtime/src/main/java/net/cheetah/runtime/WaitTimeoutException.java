package net.cheetah.runtime;

/** A {@link Wait} deadline passed before its condition held. */
public final class WaitTimeoutException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public WaitTimeoutException(String message) {
    super(message);
  }
}
