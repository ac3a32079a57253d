package net.cheetah.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import net.cheetah.core.redirect.RedirectSettings;
import org.junit.jupiter.api.Test;

/** The keys declared beside each record: one list, defaults that load, errors that name keys. */
class ConfigKeysTest {

  private static List<Key<?>> allKeys() {
    List<Key<?>> all = new ArrayList<>();
    CheetahConfig.SECTIONS.forEach(s -> all.addAll(s.keys()));
    return all;
  }

  @Test
  void everyKeyIsDeclaredOnceAndIsWhatLoadingKnows() {
    List<String> names = allKeys().stream().map(Key::name).toList();
    assertThat(names).doesNotHaveDuplicates();
    assertThat(CheetahConfig.defaultValues().keySet()).containsExactlyInAnyOrderElementsOf(names);
    for (Key<?> k : allKeys()) {
      assertThat(k.doc()).as("meaning of %s", k.name()).isNotBlank();
      // Every key is accepted by name, with its own default.
      CheetahConfig.load(Optional.empty(), Map.of(k.name(), k.defaultValue()));
    }
  }

  @Test
  void everyDefaultObeysItsOwnKey() {
    for (Key<?> k : allKeys()) {
      assertThat(k.parse(k.defaultValue())).as(k.name()).isNotNull();
    }
  }

  @Test
  void aValueIsBoundToItsField() {
    // The typed value of one key, not its neighbour's: each field is read through its own key.
    CheetahConfig c =
        CheetahConfig.load(
            Optional.empty(),
            Map.of(
                "detection.gap-ms", "31000",
                "detection.tau-ms", "11000",
                "flink.restart-delay-ms", "1500",
                "flink.restart-max-delay-ms", "61000",
                "link-stats.t1-ms", "50",
                "thresholds.table-buffer-bytes", "6e6",
                "redirects.max-new-rules-per-minute", "31"));
    assertThat(c.detection().gapMs()).isEqualTo(31_000);
    assertThat(c.detection().tauMs()).isEqualTo(11_000);
    assertThat(c.flink().restarts().initialDelayMs()).isEqualTo(1_500);
    assertThat(c.flink().restarts().maxDelayMs()).isEqualTo(61_000);
    assertThat(c.linkStats().t1Ms()).isEqualTo(50);
    assertThat(c.thresholds().table().binMs()).isEqualTo(50); // b is measured on the same T1
    assertThat(c.thresholds().table().bufferBytes()).isEqualTo(6_000_000);
    assertThat(c.redirects().settings().maxNewRulesPerMinute()).isEqualTo(31);
    assertThat(c.redirects().settings().maxRulesPerDevice()).isEqualTo(100);
  }

  @Test
  void flinkDirectoriesAreUrisAndDefaultUnderTheDataDirectory() {
    CheetahConfig.Flink d = CheetahConfig.defaultConfig().flink();
    assertThat(d.checkpointDirectory(java.nio.file.Path.of("/var/cheetah")))
        .isEqualTo("file:///var/cheetah/flink/checkpoints");
    assertThat(d.savepointDirectory(java.nio.file.Path.of("/var/cheetah")))
        .isEqualTo("file:///var/cheetah/flink/savepoints");
    assertThat(d.checkpointsRetained()).isEqualTo(2);
    assertThat(d.parallelism()).isEqualTo(1);
    CheetahConfig.Flink set =
        CheetahConfig.load(
                Optional.empty(),
                Map.of(
                    "flink.checkpoint-dir", "s3://bucket/chk",
                    "flink.savepoint-dir", "file:///srv/sp",
                    "flink.checkpoints-retained", "3",
                    "flink.parallelism", "2"))
            .flink();
    assertThat(set.checkpointDirectory(java.nio.file.Path.of("/ignored")))
        .isEqualTo("s3://bucket/chk");
    assertThat(set.savepointDirectory(java.nio.file.Path.of("/ignored")))
        .isEqualTo("file:///srv/sp");
    assertThat(set.checkpointsRetained()).isEqualTo(3);
    assertThat(set.parallelism()).isEqualTo(2);
    assertThatThrownBy(
            () -> CheetahConfig.load(Optional.empty(), Map.of("flink.checkpoint-dir", "/tmp/x")))
        .hasMessageContaining("flink.checkpoint-dir must be empty or a URI with a scheme");
    assertThatThrownBy(
            () -> CheetahConfig.load(Optional.empty(), Map.of("flink.checkpoints-retained", "0")))
        .hasMessageContaining("flink.checkpoints-retained must be >= 1");
  }

  @Test
  void recordsCheckTheirKeysRulesWhenBuiltDirectly() {
    assertThatThrownBy(() -> new CheetahConfig.Detection(0, 60_000, 30_000, 10_000, 0, 0, 0, 0, 0))
        .hasMessage("detection.h-bytes must be > 0, got 0");
    assertThatThrownBy(() -> new CheetahConfig.Netflow(70_000, 16343, 0, 0))
        .hasMessage("netflow.udp-port must be a port in 0..65535, got 70000");
  }

  /**
   * Each rule of the redirect settings lives in RedirectSettings; the config only reads text and
   * puts the key's name on the error. Every rule, reached through the config, names its key.
   */
  @Test
  void everyRedirectSettingsRuleNamesItsKey() {
    Map<String, String> bad =
        Map.of(
            "redirects.max-rules-per-device", "0",
            "redirects.max-new-rules-per-minute", "0",
            "redirects.rule-ttl-ms", "0",
            "redirects.dscp", "64",
            "redirects.prefix-filter-length", "16",
            "redirects.prefix-filter-age-ms", "0");
    bad.forEach(
        (key, value) ->
            assertThatThrownBy(() -> CheetahConfig.load(Optional.empty(), Map.of(key, value)))
                .isInstanceOf(CheetahConfig.ConfigException.class)
                .hasMessageStartingWith(key + " must be")
                .hasMessageEndingWith("got " + value));
    // The same rule, built directly: one check, without the "redirects." prefix.
    assertThatThrownBy(
            () ->
                new RedirectSettings(
                    Map.of(), java.util.Set.of(), List.of(), 1, 1, 1, false, 64, 0, 1))
        .hasMessageStartingWith("dscp must be");
  }

  @Test
  void malformedRedirectTextNamesTheKey() {
    assertThatThrownBy(
            () ->
                CheetahConfig.load(
                    Optional.empty(), Map.of("redirects.link-devices", "link-a=r1,link-b")))
        .hasMessageContaining("redirects.link-devices must be LINK=DEVICE[,LINK=DEVICE...]");
    assertThatThrownBy(
            () ->
                CheetahConfig.load(
                    Optional.empty(), Map.of("redirects.protected-prefixes", "198.18.0.0/40")))
        .hasMessageContaining("redirects.protected-prefixes must be CIDR prefixes");
  }
}
