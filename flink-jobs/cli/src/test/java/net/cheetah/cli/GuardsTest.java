package net.cheetah.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import net.cheetah.config.CheetahConfig;
import net.cheetah.core.flow.Address;
import net.cheetah.schemas.v1.AckStatus;
import net.cheetah.schemas.v1.RedirectAck;
import net.cheetah.schemas.v1.RedirectCommand;
import org.junit.jupiter.api.Test;

/** The pure rules of ./cheetah guard: which guards are in force, and its option values. */
class GuardsTest {
  static final Address R1 = Address.parse("10.9.0.1");
  static final Address R2 = Address.parse("10.9.0.2");

  @Test
  void inForceFollowsTheAdaptersRule() {
    RedirectCommand a = Guards.set("d1", R1, 65_536, 1_000, 10_000, "t"); // expires 11 000
    RedirectCommand b = Guards.set("d1", R2, 0, 2_000, 10_000, "t"); // expires 12 000
    RedirectCommand c = Guards.set("d2", R1, 0, 3_000, 1_000, "t"); // expires 4 000
    RedirectCommand removeB = Guards.removal(b, 5_000, "removed");
    // At-least-once: a is delivered twice; b's REMOVE arrives before b itself (still removed).
    List<RedirectCommand> topic = List.of(a, removeB, a, b, c);
    assertThat(Guards.inForce(topic, List.of(), 5_000))
        .extracting(g -> g.command().getCommandId())
        .as("a once; b removed; c expired at 4 000")
        .containsExactly(a.getCommandId());
    assertThat(Guards.inForce(topic, List.of(), 3_500))
        .extracting(g -> g.command().getCommandId())
        .containsExactly(a.getCommandId(), c.getCommandId());
    assertThat(Guards.inForce(topic, List.of(), 11_000)).as("a expires at 11 000").isEmpty();
  }

  @Test
  void acksAreTheNewestOfEachAdapter() {
    RedirectCommand a = Guards.set("d1", R1, 65_536, 1_000, 10_000, "t");
    RedirectAck rejected = ack(a, AckStatus.ACK_STATUS_REJECTED, "incast", 1_100, "bad_signature");
    RedirectAck applied = ack(a, AckStatus.ACK_STATUS_APPLIED, "incast", 1_200, "");
    RedirectAck other = ack(a, AckStatus.ACK_STATUS_DUPLICATE, "tc", 1_300, "");
    List<Guards.Guard> g = Guards.inForce(List.of(a), List.of(applied, rejected, other), 2_000);
    assertThat(Guards.ackSummary(g.get(0).acks())).isEqualTo("APPLIED (incast), DUPLICATE (tc)");
    assertThat(Guards.ackSummary(List.of(rejected))).isEqualTo("REJECTED (incast: bad_signature)");
    assertThat(Guards.ackSummary(List.of())).isEqualTo("no ack yet");
  }

  @Test
  void optionValues() {
    assertThat(GuardCommand.bytes("262144")).isEqualTo(262_144);
    assertThat(GuardCommand.bytes("256KiB")).isEqualTo(262_144);
    assertThat(GuardCommand.bytes("1MiB")).isEqualTo(1_048_576);
    assertThatThrownBy(() -> GuardCommand.bytes("-1")).hasMessageContaining("--buffer must be");
    assertThatThrownBy(() -> GuardCommand.bytes("256KB")).hasMessageContaining("KiB or MiB");
    assertThat(GuardCommand.durationMs("1ms")).isEqualTo(1);
    assertThat(GuardCommand.durationMs("90s")).isEqualTo(90_000);
    assertThat(GuardCommand.durationMs("30m")).isEqualTo(1_800_000);
    assertThat(GuardCommand.durationMs("12h")).isEqualTo(43_200_000);
    assertThat(GuardCommand.durationMs("30d")).isEqualTo(2_592_000_000L);
    for (String bad : List.of("31d", "0s", "5", "1w", "99999999999999999999d")) {
      assertThatThrownBy(() -> GuardCommand.durationMs(bad))
          .as(bad)
          .hasMessageContaining("--ttl must be");
    }
    assertThat(GuardCommand.receiverAddress(" 10.9.0.1 ")).isEqualTo(R1);
    assertThat(GuardCommand.receiverAddress("2001:DB8::1").toString()).isEqualTo("2001:db8::1");
    for (String bad : List.of("localhost", "10.9.0.1/32", "10.9.1", "256.1.1.1", "fd00::/64")) {
      assertThatThrownBy(() -> GuardCommand.receiverAddress(bad))
          .as(bad)
          .hasMessageContaining("--receiver must be one IPv4 or IPv6 address");
    }
    assertThatThrownBy(() -> Guards.set(" ", R1, 0, 0, 1, "t")).hasMessageContaining("--device");
  }

  @Test
  void theDefaultTtlIsAConfigKeyWithTheSameLimit() {
    assertThat(CheetahConfig.defaultConfig().redirects().guardTtlMs()).isEqualTo(86_400_000L);
    for (String bad : List.of("0", "2592000001")) {
      assertThatThrownBy(
              () -> CheetahConfig.load(Optional.empty(), Map.of("redirects.guard-ttl-ms", bad)))
          .hasMessageStartingWith("redirects.guard-ttl-ms must be 1..2592000000")
          .hasMessageEndingWith("got " + bad);
    }
  }

  static RedirectAck ack(RedirectCommand c, AckStatus s, String adapter, long at, String detail) {
    return RedirectAck.newBuilder()
        .setCommandId(c.getCommandId())
        .setDeviceId(c.getDeviceId())
        .setStatus(s)
        .setAdapter(adapter)
        .setAckedMs(at)
        .setDetail(detail)
        .build();
  }
}
