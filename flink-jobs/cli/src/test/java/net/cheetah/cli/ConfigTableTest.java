package net.cheetah.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import net.cheetah.config.CheetahConfig;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * The README's configuration tables are the output of {@code ./cheetah config --markdown}, which
 * reads the keys declared beside each config record: a default or a meaning changed in one place
 * and not the other fails here. To update the README, paste the command's output between its
 * markers.
 */
class ConfigTableTest {
  private static String command(String... args) {
    StringWriter out = new StringWriter();
    CommandLine cl = new CommandLine(new ConfigCommand());
    cl.setOut(new PrintWriter(out));
    assertThat(cl.execute(args)).as("exit code of config %s", String.join(" ", args)).isZero();
    return out.toString();
  }

  @Test
  void theReadmeHoldsWhatTheCommandPrints() throws Exception {
    Path readme = Path.of(System.getProperty("cheetah.root", "../..")).resolve("README.md");
    String text = Files.readString(readme);
    int begin = text.indexOf(ConfigCommand.BEGIN);
    int end = text.indexOf(ConfigCommand.END);
    assertThat(begin).as("%s has the line %s", readme, ConfigCommand.BEGIN).isNotNegative();
    assertThat(end).as("%s has the line %s", readme, ConfigCommand.END).isGreaterThan(begin);
    String inReadme = text.substring(begin + ConfigCommand.BEGIN.length() + 1, end);
    assertThat(inReadme)
        .as(
            "README.md's configuration tables differ from `./cheetah config --markdown`; paste its"
                + " output between the markers")
        .isEqualTo(command("--markdown"));
  }

  @Test
  void everyKeyHasOneRowWithItsDefault() {
    String table = command("--markdown");
    CheetahConfig.defaultValues()
        .forEach(
            (key, dflt) ->
                assertThat(table)
                    .as("row of %s", key)
                    .containsOnlyOnce(
                        "| `" + key + "` | " + (dflt.isEmpty() ? "(empty)" : dflt) + " |"));
  }

  @Test
  void theEffectiveValuesMarkWhatDiffersFromTheDefault() {
    String out = command("--set", "detection.tau-ms=5000");
    assertThat(out).contains("detection.tau-ms=5000    # default 10000\n");
    assertThat(out).contains("detection.gap-ms=30000\n");
  }
}
