package net.cheetah.jobs.redirects;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.HexFormat;
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
}
