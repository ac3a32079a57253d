package net.cheetah.jobs.redirects;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.List;
import net.cheetah.core.flow.Address;
import net.cheetah.fabric.Fabric;
import net.cheetah.fabric.FabricFlow;
import net.cheetah.fabric.FabricPath;
import net.cheetah.fabric.FatTree;
import net.cheetah.fabric.Reroute;
import net.cheetah.fabric.RerouteCommands;
import net.cheetah.schemas.v1.RedirectCommand;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A fabric REROUTE command (docs/FABRIC.md, "Reroute commands") is signed and verified like every
 * redirect command (docs/REDIRECTS.md, "Signature"); a changed path breaks the signature.
 */
class RerouteSigningTest {
  @TempDir Path dir;

  @Test
  void aRerouteIsSignedAsTheIndependentVectorSaysAndAChangedPathFailsVerification()
      throws Exception {
    Path f = dir.resolve("keys.json");
    Files.writeString(
        f, "{\"active\": \"2026-11\", \"keys\": {\"2026-11\": \"" + RedirectKeysTest.KEY + "\"}}");
    RedirectKeys keys = RedirectKeys.load(f);
    Fabric k4 = FatTree.of(4, 10e6);
    List<FabricPath> paths = k4.paths("e1", "e3");
    Reroute r =
        new Reroute(
            new FabricFlow(Address.parse("10.0.0.2"), Address.parse("10.1.0.2"), 40001, 5201, 6),
            paths.get(0),
            paths.get(1),
            "a1:3>c1:1",
            3e6,
            "a1:3>c1:1 over 70 %");
    RedirectCommand signed =
        keys.sign(RerouteCommands.add(r, "fabric-k4", 1_700_000_000_000L, 60_000));
    // Computed independently with Python's protobuf (the message built from schemas/) and hmac,
    // from the same fields: REROUTE = 8, path e1:3>a1:1,a1:4>c2:1,c2:2>a3:4,a3:1>e3:3.
    assertThat(HexFormat.of().formatHex(signed.getHmac().toByteArray()))
        .isEqualTo("831906d7979071c3f269124eecdb66e477c5aebb3623f20535796ec7ad30c14a");
    assertThat(keys.verify(signed)).isTrue();
    RedirectCommand otherPath = signed.toBuilder().setPath(paths.get(2).toString()).build();
    assertThat(keys.verify(otherPath)).isFalse();
  }
}
