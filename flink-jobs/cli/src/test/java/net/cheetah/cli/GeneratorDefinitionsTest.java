package net.cheetah.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import net.cheetah.config.CheetahConfig;
import org.junit.jupiter.api.Test;

/**
 * The synthetic workload's ground truth uses the platform's definitions. The demo passes every
 * value to the generator explicitly ({@link DemoCommand#definitionArgs}); the generator's own
 * defaults, for running it by hand, must still be the platform's: a new default in the config model
 * without the generator's fails here.
 */
class GeneratorDefinitionsTest {

  @Test
  void generatorDefaultsAreThePlatformDefaults() throws Exception {
    Tools tools = EndToEnd.tools();
    ProcessBuilder pb =
        new ProcessBuilder(tools.python().toString(), "-m", "cheetah_generator", "definitions")
            .redirectErrorStream(true);
    pb.environment().put("PYTHONPATH", tools.home().resolve("ingest/generator").toString());
    Process p = pb.start();
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("generator answered within 60 s").isTrue();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.exitValue()).as(out).isZero();
    JsonNode g = new ObjectMapper().readTree(out);

    CheetahConfig.Detection d = CheetahConfig.defaultConfig().detection();
    assertThat(g.get("h_bytes").asLong()).as("H").isEqualTo(d.hBytes());
    assertThat(g.get("interval_ms").asLong()).as("I").isEqualTo(d.intervalMs());
    assertThat(g.get("gap_ms").asLong()).as("G").isEqualTo(d.gapMs());
    assertThat(g.get("tau_ms").asLong()).as("tau").isEqualTo(d.tauMs());
    assertThat(g.get("active_timeout_ms").asLong())
        .as("active timeout")
        .isEqualTo(d.activeTimeoutMs());
  }
}
