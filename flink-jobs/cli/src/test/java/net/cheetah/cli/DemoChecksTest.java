package net.cheetah.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The demo's probe and guardrail checks on hand-written truth and stored rows. */
class DemoChecksTest {
  @TempDir Path dir;

  static final double R = 5e8;

  /** Injected flows at 2 R, 1.5 R, 0.75 R (between) and 0.2 R (below R/2). */
  Path trace() throws Exception {
    Path p = dir.resolve("truth.json");
    Files.writeString(
        p,
        """
        {"rate_threshold_bps": 500000000.0, "cheetahs": [
          {"src": "198.18.255.1", "dst": "198.19.255.1", "src_port": 1, "dst_port": 80, "proto": 6, "rate_bps": 1000000000.0},
          {"src": "198.18.255.2", "dst": "198.19.255.2", "src_port": 2, "dst_port": 80, "proto": 6, "rate_bps": 750000000.0},
          {"src": "198.18.255.3", "dst": "198.19.255.3", "src_port": 3, "dst_port": 80, "proto": 6, "rate_bps": 375000000.0},
          {"src": "198.18.255.4", "dst": "198.19.255.4", "src_port": 4, "dst_port": 80, "proto": 6, "rate_bps": 100000000.0}
        ]}
        """);
    return p;
  }

  static String probeRow(int i, String type) {
    return String.join(
        "\t",
        "demo-link",
        "198.18.255." + i,
        "198.19.255." + i,
        Integer.toString(i),
        "80",
        "6",
        type,
        "5e8",
        "id" + i);
  }

  @Test
  void theProbeFindsEveryFlowAboveRAndNoneBelowHalfR() throws Exception {
    DemoChecks.Check ok =
        DemoChecks.probe(
            trace(), List.of(probeRow(1, "end"), probeRow(2, "end")), List.of(), "demo-link", R);
    assertThat(ok.differences()).isEmpty();
    assertThat(ok.line())
        .isEqualTo(
            "probe cheetahs on demo-link: 2/2 injected flows above R = 500 Mb/s found, 0 below R/2"
                + " reported, 0 background flows (0/1 between R/2 and R found)");
    // Between R/2 and R either way is right.
    assertThat(
            DemoChecks.probe(
                    trace(),
                    List.of(probeRow(1, "end"), probeRow(2, "end"), probeRow(3, "end")),
                    List.of(),
                    "demo-link",
                    R)
                .ok())
        .isTrue();
  }

  @Test
  void aMissedFlowABelowHalfRFlowABackgroundFlowOrNoEndFails() throws Exception {
    assertThat(
            DemoChecks.probe(trace(), List.of(probeRow(1, "end")), List.of(), "demo-link", R)
                .differences())
        .containsExactly("missed 198.18.255.2,198.19.255.2,2,80,6 at 750.0 Mb/s");
    assertThat(
            DemoChecks.probe(
                    trace(),
                    List.of(probeRow(1, "end"), probeRow(2, "end"), probeRow(4, "end")),
                    List.of(),
                    "demo-link",
                    R)
                .differences())
        .containsExactly("reported 198.18.255.4,198.19.255.4,4,80,6 at 100.0 Mb/s, below R/2");
    assertThat(
            DemoChecks.probe(
                    trace(),
                    List.of(probeRow(1, "end"), probeRow(2, "end"), probeRow(9, "end")),
                    List.of(),
                    "demo-link",
                    R)
                .differences())
        .containsExactly("reported a background flow 198.18.255.9,198.19.255.9,9,80,6");
    assertThat(
            DemoChecks.probe(
                    trace(),
                    List.of(probeRow(1, "update"), probeRow(2, "end")),
                    List.of(),
                    "demo-link",
                    R)
                .differences())
        .containsExactly(
            "flow 198.18.255.1,198.19.255.1,1,80,6 (id1) never ended: its last event is update");
    // Another link's flows are not this link's.
    assertThat(
            DemoChecks.probe(trace(), List.of(probeRow(1, "end")), List.of(), "other-link", R)
                .differences())
        .hasSize(2);
  }

  @Test
  void aThresholdTheProbeHadInForceWidensTheRangeThatMayGoEitherWay() throws Exception {
    // The probe's counters report R = 800 Mb/s at some point of the replay (no stored event was
    // judged with it): the 750 Mb/s flow may then be missed, the 1 Gb/s flow may not.
    List<String> only1 = List.of(probeRow(1, "end"));
    DemoChecks.Check raised =
        DemoChecks.probe(
            trace(), only1, List.of("demo-link\t5e8", "demo-link\t8e8"), "demo-link", R);
    assertThat(raised.differences()).isEmpty();
    assertThat(raised.line())
        .isEqualTo(
            "probe cheetahs on demo-link: 1/1 injected flows above R = 500/800 Mb/s found, 0 below"
                + " R/2 reported, 0 background flows (0/2 between R/2 and R found)");
    assertThat(
            DemoChecks.probe(trace(), List.of(), List.of("demo-link\t8e8"), "demo-link", R)
                .differences())
        .containsExactly("missed 198.18.255.1,198.19.255.1,1,80,6 at 1000.0 Mb/s");
    // Another link's thresholds are not this link's.
    assertThat(
            DemoChecks.probe(trace(), only1, List.of("other-link\t8e8"), "demo-link", R)
                .differences())
        .containsExactly("missed 198.18.255.2,198.19.255.2,2,80,6 at 750.0 Mb/s");
  }

  /** Truth: one protected flow (to 198.18.6.10), one unprotected flow. */
  static final List<String> TRUTH =
      List.of(
          "src,dst,src_port,dst_port,proto,start_ms,end_ms,bytes,peak_interval_bytes",
          "198.18.1.10,198.18.6.10,40000,2811,6,1000,9000,5000000000,1000000000",
          "198.18.1.11,198.18.2.10,40001,2811,6,2000,9000,5000000000,1000000000");

  static String decision(
      String outcome,
      String refusal,
      String action,
      String src,
      int srcLen,
      String dst,
      int dstLen,
      String ports,
      long issued,
      String id,
      String replaces,
      long start) {
    String[] p = ports.split(">");
    return String.join(
        "\t",
        "demo-router",
        outcome,
        refusal,
        action,
        src,
        Integer.toString(srcLen),
        dst,
        Integer.toString(dstLen),
        p[0],
        p[1],
        ports.equals("0>0") ? "0" : "6",
        Long.toString(issued),
        id,
        replaces,
        Long.toString(start));
  }

  static final String PROTECTED = "protected prefix 198.18.6.0/24";

  /** What a correct job decides for TRUTH with K = 2. */
  static List<String> correct() {
    List<String> rows = new ArrayList<>();
    rows.add(
        decision(
            "refused",
            PROTECTED,
            "scavenger",
            "::ffff:198.18.1.10",
            128,
            "::ffff:198.18.6.10",
            128,
            "40000>2811",
            10,
            "c1",
            "",
            1000));
    rows.add(
        decision(
            "refused",
            PROTECTED,
            "scavenger",
            "::ffff:198.18.1.0",
            120,
            "::ffff:198.18.6.0",
            120,
            "0>0",
            10,
            "c2",
            "",
            0));
    rows.add(
        decision(
            "published",
            "",
            "scavenger",
            "::ffff:198.18.1.11",
            128,
            "::ffff:198.18.2.10",
            128,
            "40001>2811",
            11,
            "c3",
            "",
            2000));
    rows.add(
        decision(
            "published",
            "",
            "scavenger",
            "::ffff:198.18.1.0",
            120,
            "::ffff:198.18.2.0",
            120,
            "0>0",
            11,
            "c4",
            "",
            0));
    rows.add(
        decision(
            "refused",
            "device demo-router has K = 2 active rules",
            "scavenger",
            "::ffff:198.18.3.0",
            120,
            "::ffff:198.18.2.0",
            120,
            "0>0",
            12,
            "c5",
            "",
            0));
    // The flow ends: its rule is removed (same millisecond as another add: no order within it).
    rows.add(
        decision(
            "published",
            "",
            "remove",
            "::ffff:198.18.1.11",
            128,
            "::ffff:198.18.2.10",
            128,
            "40001>2811",
            13,
            "c6",
            "c3",
            2000));
    return rows;
  }

  DemoChecks.Check guardrails(List<String> rows) throws Exception {
    return DemoChecks.guardrails(TRUTH, rows, "demo-router", "198.18.6.0/24", 2, 24);
  }

  @Test
  void protectedRefusalsMatchTheTruthAndKHolds() throws Exception {
    DemoChecks.Check c = guardrails(correct());
    assertThat(c.differences()).isEmpty();
    assertThat(c.line())
        .isEqualTo(
            "guardrails at demo-router: 1 cheetahs and 1 prefix filters touching 198.18.6.0/24"
                + " refused as protected, none published; 1 refused at K = 2, at most 2 rules in"
                + " force (0 refused by the new-rule rate)");
  }

  @Test
  void aProtectedFlowPublishedOrNotRefusedFails() throws Exception {
    List<String> rows = correct();
    rows.set(0, rows.get(0).replace("refused\t" + PROTECTED, "published\t"));
    assertThat(guardrails(rows).differences())
        .contains(
            "published a rule touching a protected prefix: published scavenger"
                + " ::ffff:198.18.1.10/128 → ::ffff:198.18.6.10/128 40000>2811/6 c1",
            "missing per-flow rule refused as protected:"
                + " 198.18.1.10,198.18.6.10,40000,2811,6,1000");
    rows = correct();
    rows.remove(1);
    assertThat(guardrails(rows).differences())
        .containsExactly("missing prefix filter refused as protected: 198.18.1.0/24→198.18.6.0/24");
  }

  @Test
  void moreThanKRulesInForceFails() throws Exception {
    List<String> rows = correct();
    rows.add(
        decision(
            "published",
            "",
            "scavenger",
            "::ffff:198.18.4.0",
            120,
            "::ffff:198.18.2.0",
            120,
            "0>0",
            12,
            "c7",
            "",
            0));
    assertThat(guardrails(rows).differences())
        .containsExactly(
            "3 rules in force (K = 2) after published scavenger ::ffff:198.18.4.0/120 →"
                + " ::ffff:198.18.2.0/120 0>0/0 c7");
  }

  @Test
  void anAddAndItsRemoveInOneMillisecondCountAsNeitherOrder() throws Exception {
    List<String> rows = correct();
    rows.set(5, rows.get(5).replace("\t13\tc6\t", "\t11\tc6\t")); // remove with its add at 11
    assertThat(guardrails(rows).differences()).isEmpty();
  }

  @Test
  void aJobThatRestartedFailsTheDemoAndIsNamed() {
    var ok =
        DemoCommand.noRestarts(java.util.Map.of("cheetah-normalize", 0L, "cheetah-cheetahs", 0L));
    assertThat(ok.ok()).isTrue();
    assertThat(ok.line()).isEqualTo("restarts: 2 Flink jobs, 0 restarted");
    var one =
        DemoCommand.noRestarts(java.util.Map.of("cheetah-normalize", 1L, "cheetah-cheetahs", 0L));
    assertThat(one.ok()).isFalse();
    assertThat(one.differences())
        .singleElement()
        .asString()
        .startsWith("cheetah-normalize restarted 1");
    assertThat(DemoCommand.noRestarts(java.util.Map.of()).ok())
        .as("no counts read is no proof of no restarts")
        .isFalse();
  }
}
