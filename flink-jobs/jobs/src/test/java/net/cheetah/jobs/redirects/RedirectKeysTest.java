package net.cheetah.jobs.redirects;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import net.cheetah.core.flow.Address;
import net.cheetah.jobs.codec.Codec;
import net.cheetah.schemas.v1.RedirectAction;
import net.cheetah.schemas.v1.RedirectCommand;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RedirectKeysTest {
  static final String KEY = "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff";

  @TempDir Path dir;

  static RedirectCommand command() {
    return RedirectCommand.newBuilder()
        .setCommandId("c0ffee")
        .setIssuedMs(1_700_000_000_000L)
        .setExpiresMs(1_700_003_600_000L)
        .setDeviceId("r1")
        .setSrcPrefix(Codec.addr(Address.parse("198.18.1.10")))
        .setSrcPrefixLen(128)
        .setDstPrefix(Codec.addr(Address.parse("198.18.2.20")))
        .setDstPrefixLen(128)
        .setSrcPort(40000)
        .setDstPort(5201)
        .setProto(6)
        .setAction(RedirectAction.REDIRECT_ACTION_SCAVENGER)
        .setReason("cheetah f1 on esnet-a at 2.000 Gb/s")
        .setCheetahFlowId("f1")
        .setThresholdVersion(7)
        .setLinkId("esnet-a")
        .build();
  }

  Path keys(String json) throws Exception {
    Path f = dir.resolve("keys.json");
    Files.writeString(f, json);
    return f;
  }

  @Test
  void theSignatureIsTheDocumentedTestVector() throws Exception {
    RedirectKeys k =
        RedirectKeys.load(
            keys("{\"active\": \"2026-11\", \"keys\": {\"2026-11\": \"" + KEY + "\"}}"));
    RedirectCommand signed = k.sign(command());
    assertThat(signed.getKeyId()).isEqualTo("2026-11");
    // Computed independently with Python's protobuf and hmac (docs/REDIRECTS.md, test vector).
    assertThat(HexFormat.of().formatHex(signed.getHmac().toByteArray()))
        .isEqualTo("52cad4414583c13f7b6d61b30401d2c5a268da29c99f816b057082ee2a9e536e");
    assertThat(k.verify(signed)).isTrue();
  }

  @Test
  void forgedUnknownKeyAndTamperedCommandsFailVerification() throws Exception {
    RedirectKeys k =
        RedirectKeys.load(keys("{\"active\": \"a\", \"keys\": {\"a\": \"" + KEY + "\"}}"));
    RedirectCommand signed = k.sign(command());
    assertThat(k.verify(signed.toBuilder().setDstPort(22).build())).isFalse();
    assertThat(k.verify(signed.toBuilder().setKeyId("b").build())).isFalse();
    assertThat(k.verify(signed.toBuilder().setHmac(ByteString.copyFrom(new byte[32])).build()))
        .isFalse();
    assertThat(k.verify(command())).isFalse(); // unsigned
  }

  @Test
  void rotationVerifiesWithEveryListedKeyAndSignsWithTheActiveOne() throws Exception {
    String old = "ff".repeat(32);
    RedirectKeys before =
        RedirectKeys.load(keys("{\"active\": \"old\", \"keys\": {\"old\": \"" + old + "\"}}"));
    RedirectCommand signedBefore = before.sign(command());
    RedirectKeys after =
        RedirectKeys.load(
            keys(
                "{\"active\": \"new\", \"keys\": {\"new\": \""
                    + KEY
                    + "\", \"old\": \""
                    + old
                    + "\"}}"));
    assertThat(after.verify(signedBefore)).isTrue();
    assertThat(after.sign(command()).getKeyId()).isEqualTo("new");
  }

  @Test
  void badKeyFilesAreRefusedWithTheReason() throws Exception {
    assertThatThrownBy(() -> RedirectKeys.load(dir.resolve("missing.json")))
        .hasMessageContaining("cannot read the redirect keys file");
    assertThatThrownBy(
            () -> RedirectKeys.load(keys("{\"active\": \"a\", \"keys\": {\"a\": \"00ff\"}}")))
        .hasMessageContaining("has 2 bytes; use at least 32");
    assertThatThrownBy(
            () ->
                RedirectKeys.load(keys("{\"active\": \"b\", \"keys\": {\"a\": \"" + KEY + "\"}}")))
        .hasMessageContaining("names active key 'b', which it does not list");
  }

  @Test
  void aCreatedKeysFileIsPrivateAndUsable() throws Exception {
    Path f = dir.resolve("k/redirects.json");
    RedirectKeys.create(f, "first");
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(f)))
        .isEqualTo("rw-------");
    RedirectKeys k = RedirectKeys.load(f);
    assertThat(k.verify(k.sign(command()))).isTrue();
  }

  // Rotation while a job runs: RedirectKeys.Watched.

  static final String OLD = "a0".repeat(32);
  static final String NEW = "b1".repeat(32);

  static String file(String active, String... idsAndSecrets) {
    StringBuilder b = new StringBuilder("{\"active\": \"" + active + "\", \"keys\": {");
    for (int i = 0; i < idsAndSecrets.length; i += 2) {
      b.append(i == 0 ? "" : ", ")
          .append('"')
          .append(idsAndSecrets[i])
          .append("\": \"")
          .append(idsAndSecrets[i + 1])
          .append('"');
    }
    return b.append("}}").toString();
  }

  /** HMAC-SHA256 with javax.crypto over the command with hmac cleared (docs/REDIRECTS.md). */
  static String hmac(String secretHex, RedirectCommand signed) throws Exception {
    Mac m = Mac.getInstance("HmacSHA256");
    m.init(new SecretKeySpec(HexFormat.of().parseHex(secretHex), "HmacSHA256"));
    return HexFormat.of()
        .formatHex(m.doFinal(signed.toBuilder().clearHmac().build().toByteArray()));
  }

  static void assertSignedWith(RedirectKeys k, String id, String secretHex) throws Exception {
    RedirectCommand signed = k.sign(command());
    assertThat(signed.getKeyId()).isEqualTo(id);
    assertThat(HexFormat.of().formatHex(signed.getHmac().toByteArray()))
        .isEqualTo(hmac(secretHex, signed));
  }

  /** A watcher looking at most once a second on a clock the test moves. */
  final AtomicLong clock = new AtomicLong();

  final List<String> warnings = new ArrayList<>();
  final List<String> notices = new ArrayList<>();

  RedirectKeys.Watched watch(Path f) {
    return new RedirectKeys.Watched(
        f, Duration.ofSeconds(1), clock::get, warnings::add, notices::add);
  }

  void tick() {
    clock.addAndGet(Duration.ofSeconds(1).toNanos());
  }

  /** Writes {@code text} as a new file renamed over {@code f}, as editors and tools do. */
  static void replace(Path f, String text) throws Exception {
    Path tmp = f.resolveSibling(f.getFileName() + ".new");
    Files.writeString(tmp, text);
    Files.move(tmp, f, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
  }

  @Test
  void aWatchedFileSignsWithItsNewActiveKeyAfterItChanges() throws Exception {
    Path f = keys(file("old", "old", OLD));
    RedirectKeys.Watched w = watch(f);
    assertSignedWith(w.current(), "old", OLD);
    replace(f, file("new", "new", NEW, "old", OLD));
    assertSignedWith(w.current(), "old", OLD); // not looked at again within the interval
    tick();
    assertSignedWith(w.current(), "new", NEW);
    RedirectCommand byOld = RedirectKeys.load(keys(file("old", "old", OLD))).sign(command());
    assertThat(w.current().verify(byOld)).isTrue(); // both keys listed: old commands still verify
    assertThat(warnings).isEmpty();
    assertThat(notices)
        .singleElement()
        .asString()
        .contains("signing with key 'new'", "old")
        .doesNotContain(OLD, NEW);
  }

  @Test
  void aKubernetesSecretSwapIsSeenThoughTheLinkTheJobReadsIsUnchanged() throws Exception {
    // The kubelet's layout of a Secret mounted as a directory: redirects.json -> ..data/
    // redirects.json, ..data -> a timestamped directory; an update writes a new directory and
    // renames a new ..data link over the old one.
    Path mount = Files.createDirectories(dir.resolve("secret"));
    Path v1 = Files.createDirectories(mount.resolve("..2026_11_26_05_00_00.1"));
    Files.writeString(v1.resolve("redirects.json"), file("k1", "k1", OLD));
    Files.createSymbolicLink(mount.resolve("..data"), v1.getFileName());
    Path f = mount.resolve("redirects.json");
    Files.createSymbolicLink(f, Path.of("..data/redirects.json"));
    RedirectKeys.Watched w = watch(f);
    assertSignedWith(w.current(), "k1", OLD);

    // The new version has the same size and the same modification time: only its content differs.
    Path v2 = Files.createDirectories(mount.resolve("..2026_11_26_05_01_00.2"));
    Files.writeString(v2.resolve("redirects.json"), file("k2", "k2", NEW));
    Files.setLastModifiedTime(
        v2.resolve("redirects.json"), Files.getLastModifiedTime(v1.resolve("redirects.json")));
    assertThat(Files.size(v2.resolve("redirects.json")))
        .isEqualTo(Files.size(v1.resolve("redirects.json")));
    Path link = mount.resolve("..data_tmp");
    Files.createSymbolicLink(link, v2.getFileName());
    Files.move(link, mount.resolve("..data"), java.nio.file.StandardCopyOption.ATOMIC_MOVE);
    tick();
    assertSignedWith(w.current(), "k2", NEW);
    assertThat(warnings).isEmpty();
  }

  @Test
  void aBrokenNewVersionKeepsTheLastGoodKeysWithOneWarningAndNoSecret() throws Exception {
    Path f = keys(file("old", "old", OLD));
    RedirectKeys.Watched w = watch(f);
    // A new key written without quotes: Jackson's own message would quote it.
    replace(f, "{\"active\": \"new\", \"keys\": {\"new\": " + NEW + ", \"old\": \"" + OLD + "\"}}");
    for (int i = 0; i < 3; i++) {
      tick();
      assertSignedWith(w.current(), "old", OLD);
    }
    assertThat(warnings).hasSize(1);
    assertThat(warnings.get(0))
        .contains(f.toString(), "is not valid JSON (line 1", "still signing with key 'old'")
        .doesNotContain(NEW, OLD, NEW.substring(0, 16), OLD.substring(0, 16));

    replace(f, file("new", "new", "b1".repeat(16), "old", OLD)); // too short
    tick();
    assertSignedWith(w.current(), "old", OLD);
    Files.delete(f); // unreadable (between an rm and a write)
    tick();
    assertSignedWith(w.current(), "old", OLD);
    assertThat(warnings).hasSize(3);
    assertThat(warnings.get(1)).contains("redirect key new", "has 16 bytes; use at least 32");
    assertThat(warnings.get(2)).contains(f.toString(), "cannot read it (NoSuchFileException)");
    assertThat(String.join("\n", warnings)).doesNotContain(OLD, NEW, "b1".repeat(8));

    replace(f, file("new", "new", NEW, "old", OLD));
    tick();
    assertSignedWith(w.current(), "new", NEW);
    assertThat(warnings).hasSize(3);
  }

  @Test
  void errorsNeverQuoteASecret() throws Exception {
    String[] broken = {
      "{\"active\": \"a\", \"keys\": {\"a\": " + NEW + "}}",
      "{\"active\": \"a\", \"keys\": {\"a\": \"" + NEW + "zz\"}}",
      "{\"active\": \"b\", \"keys\": {\"a\": \"" + NEW + "\"}}",
      "{\"active\": \"a\", \"keys\": {\"a\": \"" + NEW.substring(0, 40) + "\"}}",
      NEW,
    };
    for (String text : broken) {
      assertThatThrownBy(() -> RedirectKeys.load(keys(text)))
          .isInstanceOf(IllegalArgumentException.class)
          .message()
          .doesNotContain(NEW.substring(0, 8));
    }
  }

  @Test
  void aRewrittenFileIsPrivateAndKeepsEveryKey() throws Exception {
    Path f = keys(file("old", "old", OLD));
    RedirectKeys.load(f).with("new", HexFormat.of().parseHex(NEW)).activate("new").write(f);
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(f)))
        .isEqualTo("rw-------");
    RedirectKeys k = RedirectKeys.load(f);
    assertThat(k.ids()).containsExactly("old", "new");
    assertSignedWith(k, "new", NEW);
    assertThatThrownBy(() -> k.without("new")).hasMessageContaining("is the active key");
    assertThatThrownBy(() -> k.activate("x")).hasMessageContaining("no key 'x'");
    RedirectKeys.load(f).without("old").write(f);
    assertThat(RedirectKeys.load(f).ids()).containsExactly("new");
    try (var files = Files.list(dir)) {
      assertThat(files.map(p -> p.getFileName().toString())).containsExactly("keys.json");
    }
  }
}
