package net.cheetah.runtime;

/** A child program failed to start, exited unexpectedly, or did not become ready in time. */
public final class ChildProcessException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public ChildProcessException(String message) {
    super(message);
  }

  public ChildProcessException(String message, Throwable cause) {
    super(message, cause);
  }
}
