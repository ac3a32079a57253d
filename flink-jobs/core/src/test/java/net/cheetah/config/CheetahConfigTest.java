package net.cheetah.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CheetahConfigTest {
  @Test
  void defaultsAreTheStudyValues() {
    CheetahConfig.Detection d = CheetahConfig.defaultConfig().detection();
    assertThat(d.hBytes()).isEqualTo(1_000_000_000L);
    assertThat(d.intervalMs()).isEqualTo(60_000);
    assertThat(d.gapMs()).isEqualTo(30_000);
    assertThat(d.tauMs()).isEqualTo(10_000);
  }

  @Test
  void fileThenOverridesWin(@TempDir Path dir) throws Exception {
    Path f = dir.resolve("c.properties");
    Files.writeString(f, "detection.h-bytes=2e9\ndetection.tau-ms=5000\n");
    CheetahConfig c = CheetahConfig.load(Optional.of(f), Map.of("detection.tau-ms", "7000"));
    assertThat(c.detection().hBytes()).isEqualTo(2_000_000_000L);
    assertThat(c.detection().tauMs()).isEqualTo(7000);
  }

  @Test
  void unknownKeysAreRefusedByName() {
    assertThatThrownBy(() -> CheetahConfig.load(Optional.empty(), Map.of("detection.tua-ms", "1")))
        .isInstanceOf(CheetahConfig.ConfigException.class)
        .hasMessageContaining("detection.tua-ms")
        .hasMessageContaining("detection.tau-ms");
  }

  @Test
  void malformedValuesNameTheKey() {
    assertThatThrownBy(() -> CheetahConfig.load(Optional.empty(), Map.of("kafka.port", "99999")))
        .hasMessageContaining("kafka.port");
    assertThatThrownBy(
            () -> CheetahConfig.load(Optional.empty(), Map.of("detection.h-bytes", "1.5")))
        .hasMessageContaining("detection.h-bytes");
  }

  @Test
  void restartsAreBoundedByDefaultAndValidatedByKey() {
    CheetahConfig.Restarts r = CheetahConfig.defaultConfig().flink().restarts();
    assertThat(r).isEqualTo(new CheetahConfig.Restarts(3, 1000, 60_000, 3_600_000));
    CheetahConfig c =
        CheetahConfig.load(
            Optional.empty(), Map.of("flink.restart-attempts", "0", "flink.restart-delay-ms", "5"));
    assertThat(c.flink().restarts().attempts()).isZero();
    assertThat(c.flink().restarts().initialDelayMs()).isEqualTo(5);
    assertThatThrownBy(
            () -> CheetahConfig.load(Optional.empty(), Map.of("flink.restart-attempts", "-1")))
        .hasMessageContaining("flink.restart-attempts");
    assertThatThrownBy(
            () -> CheetahConfig.load(Optional.empty(), Map.of("flink.restart-max-delay-ms", "999")))
        .hasMessageContaining("flink.restart-max-delay-ms");
  }
}
