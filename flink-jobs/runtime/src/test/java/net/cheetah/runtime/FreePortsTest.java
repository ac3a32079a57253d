package net.cheetah.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import org.junit.jupiter.api.Test;

class FreePortsTest {

  @Test
  void picksAPortThatCanBeBoundOnLoopback() throws Exception {
    int port = FreePorts.pick();
    assertThat(port).isBetween(1, 65535);
    try (ServerSocket socket = new ServerSocket()) {
      socket.bind(new InetSocketAddress(InetAddress.getByName("127.0.0.1"), port));
    }
  }

  @Test
  void neverHandsOutARecentlyPickedPortAgain() {
    // The OS may offer the same port twice in a row (it did in CI: broker and controller of one
    // embedded Kafka both got 36763). Scripted answers stand in for the OS here.
    java.util.Iterator<Integer> os =
        java.util.List.of(5000, 5000, 5000, 5001, 5000, 5002).iterator();
    FreePorts.Recent recent = new FreePorts.Recent(2);
    assertThat(recent.pick(os::next)).isEqualTo(5000);
    assertThat(recent.pick(os::next)).isEqualTo(5001);
    // 5000 is still remembered (capacity 2), so the next pick skips it.
    assertThat(recent.pick(os::next)).isEqualTo(5002);
  }

  @Test
  void forgetsTheOldestPortBeyondItsCapacity() {
    FreePorts.Recent recent = new FreePorts.Recent(1);
    assertThat(recent.pick(() -> 7000)).isEqualTo(7000);
    assertThat(recent.pick(() -> 7001)).isEqualTo(7001);
    assertThat(recent.pick(() -> 7000)).isEqualTo(7000);
  }

  @Test
  void failsClearlyWhenTheOsOffersOnlyRecentPorts() {
    FreePorts.Recent recent = new FreePorts.Recent(8);
    recent.pick(() -> 6000);
    assertThatThrownBy(() -> recent.pick(() -> 6000))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("ip_local_port_range");
  }

  @Test
  void manyPicksAreAllDistinct() {
    java.util.Set<Integer> seen = new java.util.HashSet<>();
    for (int i = 0; i < 500; i++) {
      assertThat(seen.add(FreePorts.pick())).as("pick %d", i).isTrue();
    }
  }

  @Test
  void resolvesZeroToAFreePortAndKeepsExplicitPorts() {
    assertThat(FreePorts.resolve(0)).isPositive();
    assertThat(FreePorts.resolve(19092)).isEqualTo(19092);
    assertThatThrownBy(() -> FreePorts.resolve(70000)).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void reportsATakenPortWithTheSettingToChange() throws Exception {
    try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
      int port = taken.getLocalPort();
      assertThat(FreePorts.isFree(port)).isFalse();
      assertThatThrownBy(() -> FreePorts.requireFree(port, "test service", "test.port"))
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("Port " + port)
          .hasMessageContaining("test service")
          .hasMessageContaining("set test.port");
    }
  }
}
