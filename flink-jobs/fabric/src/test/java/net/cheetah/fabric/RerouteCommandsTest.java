package net.cheetah.fabric;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import net.cheetah.core.flow.Address;
import net.cheetah.schemas.v1.RedirectAction;
import net.cheetah.schemas.v1.RedirectCommand;
import org.junit.jupiter.api.Test;

/** A decision as a REROUTE command, and the path read back from one (checked on the fabric). */
class RerouteCommandsTest {
  static final Fabric K4 = FatTree.of(4, 10e6);
  static final String C2_PATH = "e1:3>a1:1,a1:4>c2:1,c2:2>a3:4,a3:1>e3:3";

  /** F moved from the c1 path to the c2 path of e1 > e3 (ElephantRerouterTest's wiring). */
  static Reroute reroute() {
    FabricFlow f =
        new FabricFlow(Address.parse("10.0.0.2"), Address.parse("10.1.0.2"), 40001, 5201, 6);
    List<FabricPath> paths = K4.paths("e1", "e3");
    return new Reroute(f, paths.get(0), paths.get(1), "a1:3>c1:1", 3e6, "a1:3>c1:1 over 70 %");
  }

  @Test
  void theCommandNamesTheFlowThePathAndTheFabric() {
    RedirectCommand c = RerouteCommands.add(reroute(), "fabric-k4", 1_700_000_000_000L, 60_000);
    assertThat(c.getAction()).isEqualTo(RedirectAction.REDIRECT_ACTION_REROUTE);
    assertThat(c.getDeviceId()).isEqualTo("fabric-k4");
    assertThat(c.getPath()).isEqualTo(C2_PATH);
    assertThat(Address.fromBytes(c.getSrcPrefix().toByteArray()))
        .isEqualTo(Address.parse("10.0.0.2"));
    assertThat(c.getSrcPrefixLen()).isEqualTo(128);
    assertThat(Address.fromBytes(c.getDstPrefix().toByteArray()))
        .isEqualTo(Address.parse("10.1.0.2"));
    assertThat(List.of(c.getSrcPort(), c.getDstPort(), c.getProto()))
        .containsExactly(40001, 5201, 6);
    assertThat(c.getExpiresMs()).isEqualTo(1_700_000_060_000L);
    assertThat(c.getLinkId()).isEqualTo("a1:3>c1:1");
    // SHA-256 of "add|fabric-k4|reroute 10.0.0.2:40001>10.1.0.2:5201/6 to PATH issued
    // 1700000000000", first 16 bytes, computed with Python's hashlib.
    assertThat(c.getCommandId()).isEqualTo("11cbc69a673958960d8191a2c658249b");
    assertThat(c.getKeyId()).isEmpty(); // the signer's part
  }

  @Test
  void theRemoveRepeatsTheMatchAndNamesTheAdd() {
    RedirectCommand add = RerouteCommands.add(reroute(), "fabric-k4", 1_700_000_000_000L, 60_000);
    RedirectCommand rm = RerouteCommands.remove(add, 1_700_000_030_000L, "flow ended");
    assertThat(rm.getAction()).isEqualTo(RedirectAction.REDIRECT_ACTION_REMOVE);
    assertThat(rm.getReplacesCommandId()).isEqualTo(add.getCommandId());
    assertThat(rm.getCommandId()).isNotEqualTo(add.getCommandId());
    assertThat(rm.getSrcPrefix()).isEqualTo(add.getSrcPrefix());
    assertThat(rm.getDstPort()).isEqualTo(add.getDstPort());
    assertThat(rm.getExpiresMs()).isEqualTo(add.getExpiresMs());
  }

  @Test
  void thePathReadsBackAndABadOneIsRefused() {
    RedirectCommand c = RerouteCommands.add(reroute(), "fabric-k4", 1_700_000_000_000L, 60_000);
    assertThat(RerouteCommands.pathOf(c, K4)).isEqualTo(K4.paths("e1", "e3").get(1));
    assertThatThrownBy(
            () -> RerouteCommands.pathOf(c.toBuilder().setPath("e1:3>a1:1,a1:9>c2:1").build(), K4))
        .hasMessageContaining("names link 'a1:9>c2:1', which fat-tree-k4 does not have");
    // Real links that do not meet.
    assertThatThrownBy(
            () -> RerouteCommands.pathOf(c.toBuilder().setPath("e1:3>a1:1,c2:2>a3:4").build(), K4))
        .hasMessageContaining("do not meet");
    // A path between other edge switches (e1 > e2) than the flow's (e1 > e3).
    assertThatThrownBy(
            () -> RerouteCommands.pathOf(c.toBuilder().setPath("e1:3>a1:1,a1:2>e2:3").build(), K4))
        .hasMessageContaining("is not an equal-cost path from h1 to h5");
    assertThatThrownBy(() -> RerouteCommands.add(reroute(), "fabric-k4", 0, 0))
        .hasMessageContaining("must expire");
  }
}
