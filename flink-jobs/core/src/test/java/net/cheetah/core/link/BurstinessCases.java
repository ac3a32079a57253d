package net.cheetah.core.link;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** schemas/testdata/burstiness_cases.json: bins with their burstiness computed by hand. */
public record BurstinessCases(List<Case> cases) {

  public record Bin(double bytes, double cheetahBytes, double netflowCheetahBytes) {}

  public record Case(
      String name,
      List<Bin> bins,
      double[] background,
      double mean,
      double variance,
      double burstiness,
      double sampleBurstiness) {}

  /** The fixture of the repository the tests run in (surefire sets cheetah.root). */
  public static Path file() {
    return Path.of(System.getProperty("cheetah.root", "../.."))
        .resolve("schemas/testdata/burstiness_cases.json");
  }

  public static BurstinessCases read() throws IOException {
    JsonNode root = new ObjectMapper().readTree(file().toFile());
    List<Case> out = new ArrayList<>();
    for (JsonNode c : root.get("cases")) {
      List<Bin> bins = new ArrayList<>();
      for (JsonNode b : c.get("bins")) {
        bins.add(
            new Bin(
                b.get("bytes").asDouble(),
                b.get("cheetah_bytes").asDouble(),
                b.get("netflow_cheetah_bytes").asDouble()));
      }
      double[] bg = new double[c.get("background").size()];
      for (int i = 0; i < bg.length; i++) {
        bg[i] = c.get("background").get(i).asDouble();
      }
      out.add(
          new Case(
              c.get("name").asText(),
              bins,
              bg,
              c.get("mean").asDouble(),
              c.get("variance").asDouble(),
              c.get("burstiness").asDouble(),
              c.get("sample_burstiness").asDouble()));
    }
    return new BurstinessCases(out);
  }
}
