package net.cheetah.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import java.util.Optional;
import net.cheetah.core.fabric.ReroutePolicy;
import org.junit.jupiter.api.Test;

/** The fabric.* keys: the study's parameters by default, and errors that name the key. */
class FabricConfigTest {
  private static CheetahConfig.Fabric load(Map<String, String> overrides) {
    return CheetahConfig.load(Optional.empty(), overrides).fabric();
  }

  @Test
  void defaultsAreTheStudysSeventyAndTenPercentAndTheBiggestElephant() {
    CheetahConfig.Fabric f = load(Map.of());
    assertThat(f.utilisationThreshold()).isEqualTo(0.70);
    assertThat(f.elephantShare()).isEqualTo(0.10);
    assertThat(f.policy()).isEqualTo(ReroutePolicy.BIGGEST);
    assertThat(f.holdMs()).isEqualTo(5000);
    assertThat(f.returnHoldMs()).isEqualTo(30000);
    assertThat(load(Map.of("fabric.policy", "smallest")).policy())
        .isEqualTo(ReroutePolicy.SMALLEST);
  }

  @Test
  void badValuesNameTheKey() {
    assertThatThrownBy(() -> load(Map.of("fabric.utilisation-threshold", "0")))
        .hasMessageContaining("fabric.utilisation-threshold must be in (0, 1]");
    assertThatThrownBy(() -> load(Map.of("fabric.elephant-share", "1")))
        .hasMessageContaining("fabric.elephant-share must be in (0, 1)");
    assertThatThrownBy(() -> load(Map.of("fabric.policy", "random")))
        .hasMessageContaining("fabric.policy must be one of biggest, smallest");
    assertThatThrownBy(() -> load(Map.of("fabric.hold-ms", "60000")))
        .hasMessageContaining("fabric.return-hold-ms must be >= fabric.hold-ms (60000)");
  }
}
