package net.cheetah.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import net.cheetah.config.CheetahConfig;
import net.cheetah.config.CheetahConfig.Detection;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;

/**
 * The definitions at their edges, end to end with sampled NetFlow v9: the generator's edges
 * workload (ingest/generator/cheetah_generator/edges.py; truth by hand in tests/test_edges.py) goes
 * through the real goflow2 → normalize → cheetahs + flowsets → warehouse, from two exporters
 * sampling 1:10 and 1:100. Every stored cheetah and flowset must equal the truth exactly, peak
 * included: peaks of exactly H − 1, H and H + 1 bytes after scaling, records G and G + 1 ms apart
 * (stitched or not decides cheetah or not), starts τ and τ + 1 ms apart, and a flow whose peak
 * differs by a byte between whole-byte shares and rounded fractions.
 *
 * <p>The detection settings are the defaults (H = 1 GB, I = 60 s, G = 30 s, τ = 10 s, active
 * timeout 60 s, flowset lateness 5 min): the workload's one-per-second tail records carry event
 * time past every flow's and flowset's closing, so nothing waits on the wall clock.
 */
@Tag("integration")
class EdgeCasesEndToEndTest {
  static final String TEST = "edges";

  @TempDir(cleanup = CleanupMode.ON_SUCCESS)
  Path dir;

  @Test
  void sampledEdgeCasesAreStoredExactlyAsTheirTruth() throws Exception {
    long t0 = System.nanoTime();
    Tools tools = EndToEnd.tools();
    Path logs = dir.resolve("logs");
    Path truth = dir.resolve("truth");
    CheetahConfig cfg = EndToEnd.config(Map.of());
    Detection d = cfg.detection();
    try (Stack stack =
        new Stack(cfg, tools, dir.resolve("stack"), true, s -> EndToEnd.say(TEST, s))) {
      stack.start();
      List<String> args =
          new java.util.ArrayList<>(
              List.of(
                  "netflow",
                  "--workload",
                  "edges",
                  "--target",
                  EndToEnd.LOOPBACK + ":" + stack.netflowPort(),
                  "--version",
                  "9",
                  "--sampling",
                  "10,100",
                  "--time-base",
                  // 06:00 yesterday: recent, in the past, an interval edge
                  Long.toString(EndToEnd.yesterdayAt(6 * 3_600_000L)),
                  "--span",
                  "900",
                  "--margin",
                  "0",
                  "--rate",
                  "4000",
                  "--pps",
                  "500",
                  "--truth",
                  truth.toString(),
                  "--quiet"));
      args.addAll(DemoCommand.definitionArgs(d));
      EndToEnd.generator(tools, logs, "netflow", args);
      long records = totalRecords(truth);
      int cheetahs = EndToEnd.dataRows(truth.resolve("cheetahs.csv"));
      int flowsets = EndToEnd.dataRows(truth.resolve("flowsets.csv"));
      EndToEnd.say(
          TEST,
          String.format(
              "sent %d records; truth: %d cheetahs, %d flowsets", records, cheetahs, flowsets));
      // 12 cheetahs and 10 flowsets per exporter (test_edges.py): a smaller truth proves less.
      assertThat(cheetahs).as("cheetahs in the edges truth").isEqualTo(24);
      assertThat(flowsets).as("flowsets in the edges truth").isEqualTo(20);

      WarehouseClient wh = new WarehouseClient(stack.warehouseUrl());
      List<String> truthCheetahs = TruthCheck.read(truth.resolve("cheetahs.csv"));
      List<String> truthFlowsets = TruthCheck.read(truth.resolve("flowsets.csv"));
      EndToEnd.Progress p;
      try {
        p = EndToEnd.awaitStored(stack, tools, records, cheetahs, flowsets, Duration.ofMinutes(2));
      } catch (AssertionError countsNeverReached) {
        // Name the missing or wrong cases rather than only the counts.
        EndToEnd.assertMatchesTruth(tools, wh, truthCheetahs, truthFlowsets);
        throw countsNeverReached;
      }
      assertThat(p.flows()).as("flow records stored of %d sent", records).isEqualTo(records);
      assertThat(p.rejected()).as("rejected records").isZero();
      assertThat(stack.rejectedDatagrams()).as("datagrams goflow2 refused").isZero();
      assertThat(
              wh.query(
                      "SELECT DISTINCT observation_domain, sampling_rate FROM flows"
                          + " ORDER BY observation_domain")
                  .strip())
          .as("sampling rate stored per exporter (source id)")
          .isEqualTo("1\t10\n2\t100");
      EndToEnd.assertMatchesTruth(tools, wh, truthCheetahs, truthFlowsets);
    }
    EndToEnd.say(TEST, String.format("passed in %.1f s", (System.nanoTime() - t0) / 1e9));
  }

  /** Records the generator exported (truth.json totals.records). */
  private static long totalRecords(Path truth) throws Exception {
    Matcher m =
        Pattern.compile("\"records\":\\s*(\\d+)")
            .matcher(Files.readString(truth.resolve("truth.json")));
    assertThat(m.find()).as("totals.records in truth.json").isTrue();
    return Long.parseLong(m.group(1));
  }
}
