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
