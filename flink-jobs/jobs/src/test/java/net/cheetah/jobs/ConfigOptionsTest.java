package net.cheetah.jobs;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A command's own defaults (the demo's) sit under the config file and --set. */
class ConfigOptionsTest {
  static final Map<String, String> DEMO =
      Map.of("redirects.max-rules-per-device", "20", "redirects.dscp", "10");

  @TempDir Path dir;

  @Test
  void commandDefaultsApplyUnlessTheFileOrSetSaysOtherwise() throws Exception {
    ConfigOptions none = new ConfigOptions();
    assertThat(none.load(DEMO).redirects().settings().maxRulesPerDevice()).isEqualTo(20);

    ConfigOptions withFile = new ConfigOptions();
    withFile.file = dir.resolve("c.properties");
    // Set to the global default on purpose: the file still wins over the command's value.
    Files.writeString(withFile.file, "redirects.max-rules-per-device = 100\n");
    assertThat(withFile.load(DEMO).redirects().settings().maxRulesPerDevice()).isEqualTo(100);
    assertThat(withFile.load(DEMO).redirects().settings().dscp()).isEqualTo(10);

    withFile.overrides.put("redirects.dscp", "46");
    assertThat(withFile.load(DEMO).redirects().settings().dscp()).isEqualTo(46);
  }
}
