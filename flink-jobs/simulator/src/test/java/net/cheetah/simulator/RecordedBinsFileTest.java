package net.cheetah.simulator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import net.cheetah.core.link.Burstiness;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Recorded bins ("bytes,cheetah_bytes", as probe.bins.v1 carries them) replay the background the
 * link-statistics job sees: the hand-computed cases of schemas/testdata/burstiness_cases.json that
 * have no NetFlow cheetahs (a recording has none).
 */
class RecordedBinsFileTest {
  @Test
  void theSharedCasesGiveTheirBackgroundAndBurstiness(@TempDir Path dir) throws Exception {
    Path file =
        Path.of(System.getProperty("cheetah.root", "../.."))
            .resolve("schemas/testdata/burstiness_cases.json");
    int used = 0;
    for (JsonNode c : new ObjectMapper().readTree(file.toFile()).get("cases")) {
      StringBuilder lines = new StringBuilder("bytes,cheetah_bytes\n");
      boolean netflow = false;
      for (JsonNode b : c.get("bins")) {
        netflow |= b.get("netflow_cheetah_bytes").asDouble() != 0;
        lines.append(b.get("bytes").asLong()).append(',').append(b.get("cheetah_bytes").asLong());
        lines.append('\n');
      }
      if (netflow) {
        continue;
      }
      used++;
      Path bins = dir.resolve("bins-" + used + ".csv");
      Files.writeString(bins, lines);
      double[] bg = RecordedBinsFile.read(bins, 0.1, 1500).bytesPerBin();
      double[] expected = new double[c.get("background").size()];
      for (int i = 0; i < expected.length; i++) {
        expected[i] = c.get("background").get(i).asDouble();
      }
      assertThat(bg).as(c.get("name").asText()).containsExactly(expected);
      double b = c.get("burstiness").asDouble();
      assertThat(Burstiness.of(bg))
          .as(c.get("name").asText())
          .isCloseTo(b, within(1e-12 * Math.max(b, 1e-300)));
    }
    assertThat(used).as("cases without NetFlow cheetahs in " + file).isGreaterThan(3);
  }

  @Test
  void negativeByteCountsAreRefusedWithTheLine(@TempDir Path dir) throws Exception {
    Path bins = dir.resolve("bins.csv");
    Files.writeString(bins, "100,0\n100,-1\n");
    assertThatThrownBy(() -> RecordedBinsFile.read(bins, 0.1, 1500))
        .hasMessageContaining("line 2")
        .hasMessageContaining("must be >= 0");
  }
}
