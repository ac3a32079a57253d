package net.cheetah.jobs.redirects;

import java.io.IOException;
import java.io.Serializable;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import net.cheetah.schemas.v1.RedirectCommand;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.ObjectMapper;

/**
 * The redirect signing keys (docs/REDIRECTS.md): a JSON file {@code {"active": ID, "keys": {ID:
 * HEX}}}. Commands are signed with the active key; every listed key verifies (rotation).
 */
public final class RedirectKeys implements Serializable {
  private static final int MIN_KEY_BYTES = 32;
  private final String active;
  private final Map<String, byte[]> keys;

  private RedirectKeys(String active, Map<String, byte[]> keys) {
    this.active = active;
    this.keys = keys;
  }

  public static RedirectKeys load(Path file) {
    JsonNode root;
    try {
      root = new ObjectMapper().readTree(Files.readAllBytes(file));
    } catch (IOException e) {
      throw new IllegalArgumentException(
          "cannot read the redirect keys file "
              + file
              + ": "
              + e.getMessage()
              + "; set redirects.keys-file to a JSON file {\"active\": ID, \"keys\": {ID: HEX}}");
    }
    String active = root.path("active").asText("");
    Map<String, byte[]> keys = new LinkedHashMap<>();
    Iterator<Map.Entry<String, JsonNode>> it = root.path("keys").fields();
    while (it.hasNext()) {
      Map.Entry<String, JsonNode> e = it.next();
      byte[] secret;
      try {
        secret = HexFormat.of().parseHex(e.getValue().asText(""));
      } catch (IllegalArgumentException bad) {
        throw new IllegalArgumentException(
            "redirect key " + e.getKey() + " in " + file + " is not hex");
      }
      if (secret.length < MIN_KEY_BYTES) {
        throw new IllegalArgumentException(
            "redirect key "
                + e.getKey()
                + " in "
                + file
                + " has "
                + secret.length
                + " bytes; use at least "
                + MIN_KEY_BYTES);
      }
      keys.put(e.getKey(), secret);
    }
    if (!keys.containsKey(active)) {
      throw new IllegalArgumentException(
          "the redirect keys file "
              + file
              + " names active key '"
              + active
              + "', which it does not list");
    }
    return new RedirectKeys(active, keys);
  }

  /** Writes a keys file with one fresh random key, readable by its owner only. */
  public static void create(Path file, String keyId) throws IOException {
    byte[] secret = new byte[MIN_KEY_BYTES];
    new SecureRandom().nextBytes(secret);
    Files.createDirectories(file.toAbsolutePath().getParent());
    String json =
        "{\"active\": \""
            + keyId
            + "\", \"keys\": {\""
            + keyId
            + "\": \""
            + HexFormat.of().formatHex(secret)
            + "\"}}\n";
    Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
    Files.writeString(tmp, json);
    Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rw-------"));
    Files.move(tmp, file, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
  }

  /** The command with key_id and hmac set. */
  public RedirectCommand sign(RedirectCommand c) {
    RedirectCommand unsigned = c.toBuilder().setKeyId(active).clearHmac().build();
    return unsigned.toBuilder()
        .setHmac(
            com.google.protobuf.ByteString.copyFrom(mac(keys.get(active), unsigned.toByteArray())))
        .build();
  }

  /** True when the command's hmac is right for its key id (a key this file lists). */
  public boolean verify(RedirectCommand c) {
    byte[] secret = keys.get(c.getKeyId());
    if (secret == null) {
      return false;
    }
    byte[] expected = mac(secret, c.toBuilder().clearHmac().build().toByteArray());
    return MessageDigest.isEqual(expected, c.getHmac().toByteArray());
  }

  private static byte[] mac(byte[] secret, byte[] data) {
    try {
      Mac m = Mac.getInstance("HmacSHA256");
      m.init(new SecretKeySpec(secret, "HmacSHA256"));
      return m.doFinal(data);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("HmacSHA256 is part of every JDK", e);
    }
  }
}
