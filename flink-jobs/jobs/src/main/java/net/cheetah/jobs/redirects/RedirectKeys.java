package net.cheetah.jobs.redirects;

import java.io.IOException;
import java.io.Serializable;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.Arrays;
import java.util.Collections;
import java.util.HexFormat;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import net.cheetah.schemas.v1.RedirectCommand;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.core.JsonProcessingException;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.node.ObjectNode;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The redirect signing keys (docs/REDIRECTS.md): a JSON file {@code {"active": ID, "keys": {ID:
 * HEX}}}. Commands are signed with the active key; every listed key verifies (rotation). No message
 * of this class ever holds a secret: the file's text is never quoted.
 */
public final class RedirectKeys implements Serializable {
  public static final int MIN_KEY_BYTES = 32;
  private static final String SHAPE = "{\"active\": ID, \"keys\": {ID: HEX}}";
  private final String active;
  private final Map<String, byte[]> keys;

  private RedirectKeys(String active, Map<String, byte[]> keys) {
    this.active = active;
    this.keys = keys;
  }

  public static RedirectKeys load(Path file) {
    return parse(read(file), file);
  }

  /** The bytes of {@code file}; an unreadable file is an error saying what it should be. */
  private static byte[] read(Path file) {
    try {
      return Files.readAllBytes(file);
    } catch (IOException e) {
      throw new IllegalArgumentException(
          "cannot read the redirect keys file "
              + file
              + ": "
              + e
              + "; set redirects.keys-file to a JSON file "
              + SHAPE);
    }
  }

  /** The keys of {@code text}, the content of {@code file} (named in errors only). */
  static RedirectKeys parse(byte[] text, Path file) {
    JsonNode root;
    try {
      root = new ObjectMapper().readTree(text);
    } catch (JsonProcessingException e) {
      // Not e.getMessage(): Jackson quotes the offending token, which may be a secret.
      throw new IllegalArgumentException(
          "the redirect keys file "
              + file
              + " is not valid JSON (line "
              + e.getLocation().getLineNr()
              + ", column "
              + e.getLocation().getColumnNr()
              + "); it must be "
              + SHAPE);
    } catch (IOException e) {
      throw new IllegalArgumentException("cannot parse the redirect keys file " + file);
    }
    if (root == null || !root.path("keys").isObject()) {
      throw new IllegalArgumentException(
          "the redirect keys file " + file + " has no object \"keys\"; it must be " + SHAPE);
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
    new RedirectKeys(keyId, Map.of(keyId, freshSecret())).write(file);
  }

  /** A new random secret of {@link #MIN_KEY_BYTES} bytes. */
  public static byte[] freshSecret() {
    byte[] secret = new byte[MIN_KEY_BYTES];
    new SecureRandom().nextBytes(secret);
    return secret;
  }

  /**
   * Replaces {@code file} by these keys at once (a private temporary file renamed over it, so a
   * reader sees the old or the new version, never half of one); mode 0600. A symbolic link is
   * followed: its target is replaced.
   */
  public void write(Path file) throws IOException {
    Path target = Files.isSymbolicLink(file) ? file.toRealPath() : file.toAbsolutePath();
    Files.createDirectories(target.getParent());
    ObjectNode root = new ObjectMapper().createObjectNode();
    root.put("active", active);
    ObjectNode k = root.putObject("keys");
    keys.forEach((id, secret) -> k.put(id, HexFormat.of().formatHex(secret)));
    // Created 0600 before any secret is in it (createTempFile's mode on POSIX).
    Path tmp = Files.createTempFile(target.getParent(), "." + target.getFileName(), ".tmp");
    try {
      Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rw-------"));
      Files.writeString(tmp, new ObjectMapper().writeValueAsString(root) + "\n");
      Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE);
    } finally {
      Files.deleteIfExists(tmp);
    }
  }

  /** The key id commands are signed with. */
  public String active() {
    return active;
  }

  /** The key ids, in the file's order. */
  public List<String> ids() {
    return List.copyOf(keys.keySet());
  }

  /** These keys and a new one (not active). */
  public RedirectKeys with(String id, byte[] secret) {
    if (keys.containsKey(id)) {
      throw new IllegalArgumentException("key id '" + id + "' is already listed; pick another");
    }
    if (secret.length < MIN_KEY_BYTES) {
      throw new IllegalArgumentException("a key needs at least " + MIN_KEY_BYTES + " bytes");
    }
    Map<String, byte[]> more = new LinkedHashMap<>(keys);
    more.put(id, secret.clone());
    return new RedirectKeys(active, Collections.unmodifiableMap(more));
  }

  /** The same keys with {@code id} active. */
  public RedirectKeys activate(String id) {
    requireListed(id);
    return new RedirectKeys(id, keys);
  }

  /** These keys without {@code id}, which must not be the active one. */
  public RedirectKeys without(String id) {
    requireListed(id);
    if (id.equals(active)) {
      throw new IllegalArgumentException(
          "key '" + id + "' is the active key; activate another one first");
    }
    Map<String, byte[]> fewer = new LinkedHashMap<>(keys);
    fewer.remove(id);
    return new RedirectKeys(active, Collections.unmodifiableMap(fewer));
  }

  private void requireListed(String id) {
    if (!keys.containsKey(id)) {
      throw new IllegalArgumentException(
          "no key '"
              + id
              + "' in the keys file (it lists "
              + String.join(", ", keys.keySet())
              + ")");
    }
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

  /**
   * The keys of a file that changes while a job runs (a rotation, docs/REDIRECTS.md): {@link
   * #current()} reads the file again at most once per interval, and takes a new version when its
   * content differs. The content is compared, not the file's times: a Kubernetes Secret mounted as
   * a directory changes by a swap of the {@code ..data} symlink, which leaves the link named by the
   * path as it was. A new version that cannot be read or is broken keeps the last good keys, with
   * one warning per distinct problem (naming the file and the reason, never a secret).
   */
  public static final class Watched {
    private static final Logger LOG = LoggerFactory.getLogger(RedirectKeys.class);
    private final Path file;
    private final long everyNanos;
    private final LongSupplier nanoClock;
    private final Consumer<String> warn;
    private final Consumer<String> info;
    private RedirectKeys keys;
    private byte[] digest;
    private long checkedNanos;
    private String lastProblem = "";

    /**
     * Watches {@code file}, whose current version must be good (else IllegalArgumentException);
     * warnings and notices of a new version go to {@code warn} and {@code info}.
     */
    public Watched(
        Path file,
        Duration every,
        LongSupplier nanoClock,
        Consumer<String> warn,
        Consumer<String> info) {
      this.file = file;
      this.everyNanos = every.toNanos();
      this.nanoClock = nanoClock;
      this.warn = warn;
      this.info = info;
      byte[] text = read(file);
      this.keys = parse(text, file);
      this.digest = sha256(text);
      this.checkedNanos = nanoClock.getAsLong();
    }

    /** Watches {@code file}, looking at most once a second, logging through SLF4J. */
    public static Watched of(Path file) {
      return new Watched(file, Duration.ofSeconds(1), System::nanoTime, LOG::warn, LOG::info);
    }

    /** The keys of the file's newest good version (looked at if the interval has passed). */
    public RedirectKeys current() {
      long now = nanoClock.getAsLong();
      if (now - checkedNanos < everyNanos) {
        return keys;
      }
      checkedNanos = now;
      byte[] text;
      try {
        text = Files.readAllBytes(file);
      } catch (IOException e) {
        problem("cannot read it (" + e.getClass().getSimpleName() + ")");
        return keys;
      }
      byte[] d = sha256(text);
      if (Arrays.equals(d, digest)) {
        lastProblem = "";
        return keys;
      }
      try {
        RedirectKeys fresh = parse(text, file);
        keys = fresh;
        digest = d;
        lastProblem = "";
        info.accept(
            "the redirect keys file "
                + file
                + " changed: signing with key '"
                + fresh.active
                + "' (keys listed: "
                + String.join(", ", fresh.keys.keySet())
                + ")");
      } catch (IllegalArgumentException e) {
        problem(e.getMessage());
      }
      return keys;
    }

    private void problem(String reason) {
      if (reason.equals(lastProblem)) {
        return;
      }
      lastProblem = reason;
      warn.accept(
          "the redirect keys file "
              + file
              + " changed but cannot be used: "
              + reason
              + "; still signing with key '"
              + keys.active
              + "' of its last good version");
    }

    private static byte[] sha256(byte[] text) {
      try {
        return MessageDigest.getInstance("SHA-256").digest(text);
      } catch (NoSuchAlgorithmException e) {
        throw new IllegalStateException("SHA-256 is part of every JDK", e);
      }
    }
  }
}
