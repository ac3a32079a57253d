package net.cheetah.core.redirect;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * Command ids are functions of what caused the command, never of time or order: a retry, a replay
 * after a restart, or a second job instance produce the same id, so adapters apply it once.
 */
public final class CommandIds {
  private CommandIds() {}

  /** The add command of the rule isolating {@code cause} on {@code device}. */
  public static String add(String device, String cause) {
    return hash("add|" + device + "|" + cause);
  }

  /** The remove command ending the rule added by {@code addId}. */
  public static String removal(String addId) {
    return hash("remove|" + addId);
  }

  private static String hash(String s) {
    try {
      byte[] d = MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8));
      return HexFormat.of().formatHex(d, 0, 16);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is part of every JDK", e);
    }
  }
}
