package net.cheetah.fabric;

import static net.cheetah.fabric.FabricRoundsTest.A;
import static net.cheetah.fabric.FabricRoundsTest.B;
import static net.cheetah.fabric.FabricRoundsTest.DOWN1;
import static net.cheetah.fabric.FabricRoundsTest.DOWN2;
import static net.cheetah.fabric.FabricRoundsTest.UP1;
import static net.cheetah.fabric.FabricRoundsTest.UP2;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import net.cheetah.config.CheetahConfig;
import org.junit.jupiter.api.Test;

/**
 * The link states of the rounds (fabric.links.v1) on the scenario of {@link FabricRoundsTest}: the
 * leaf-spine example (10 Mb/s links, threshold 7 Mb/s, elephants above 1 Mb/s), elephants A (4.5
 * Mb/s) and B (3.5 Mb/s) from h1 to h2 through spine1. Every value below is worked by hand from the
 * counters and samples fed, not read from the rule.
 */
class FabricLinkRoundsTest {
  /** Feeds second {@code s} as FabricRoundsTest's driver does, keeping the rounds run. */
  static final class Driver {
    final FabricRounds rounds;
    final Map<String, Long> octets = new HashMap<>();
    final List<FabricRounds.Round> out = new ArrayList<>();

    Driver(String... overrides) {
      CheetahConfig cfg = FabricRoundsTest.config(overrides);
      rounds =
          new FabricRounds(
              FabricRoundsTest.LEAF_SPINE,
              cfg.fabric(),
              cfg.redirects().settings(),
              "leaf-spine",
              new FabricRounds.Memory());
    }

    /** Counters at s·1000 for the second before (bit/s), then each flow's samples of second s. */
    void second(int s, double up1, double up2, Object... flows) {
      long t = s * 1000L;
      for (String[] l : new String[][] {{UP1, "1"}, {DOWN1, "1"}, {UP2, "2"}, {DOWN2, "2"}}) {
        double bps = l[1].equals("1") ? up1 : up2;
        long o = octets.merge(l[0], (long) (bps / 8), Long::sum);
        out.addAll(rounds.onCounter(l[0], t, o, 10e9, false));
      }
      for (int i = 0; i < flows.length; i += 3) {
        FabricFlow f = (FabricFlow) flows[i];
        List<String> links =
            (Integer) flows[i + 1] == 1 ? List.of(UP1, DOWN1) : List.of(UP2, DOWN2);
        double bps = (Double) flows[i + 2];
        // Two samples per link and second, each of bps/16 scaled bytes: bps/16 · 8 · 2 = bps.
        for (long at : new long[] {t + 100, t + 600}) {
          for (String link : links) {
            out.addAll(rounds.onSample(new FabricRounds.Sample(at, f, List.of(link), bps / 16)));
          }
        }
      }
    }

    FabricRounds.Round round(long endMs) {
      return out.stream().filter(r -> r.endMs() == endMs).findFirst().orElseThrow();
    }
  }

  static FabricRounds.LinkRound link(FabricRounds.Round r, String id) {
    return r.links().stream().filter(l -> l.link().id().equals(id)).findFirst().orElseThrow();
  }

  @Test
  void everyLinkOfTheFabricEachRoundWithItsLoadElephantsAndTheMove() {
    Driver d = new Driver();
    d.second(0, 0, 0, A, 1, 4.5e6, B, 1, 3.5e6);
    d.second(1, 8e6, 0.5e6, A, 1, 4.5e6, B, 1, 3.5e6);
    d.second(2, 8e6, 0.5e6, A, 2, 4.5e6, B, 1, 3.5e6);
    FabricRounds.Round r1 = d.round(1000);
    // 4 cables and 2 host cables, each both ways: 12 links, in the fabric's order.
    assertThat(r1.links()).hasSize(12);
    assertThat(r1.links()).extracting(l -> l.link().id()).doesNotHaveDuplicates();
    assertThat(r1.links()).allMatch(l -> l.roundMs() == 1000);
    assertThat(r1.decisions()).hasSize(1);

    // spine1's up-link: counters 1e6 bytes in the second before 1 s = 8 Mb/s, over 7 Mb/s; A and B
    // sampled on it (4.5 + 3.5 Mb/s), both above 1 Mb/s; A, the biggest, is moved off it.
    FabricRounds.LinkRound up1 = link(r1, UP1);
    assertThat(up1.link().from()).isEqualTo(new Port("leaf1", 2));
    assertThat(up1.link().to()).isEqualTo(new Port("spine1", 1));
    assertThat(up1.betweenSwitches()).isTrue();
    assertThat(up1.thresholdBps()).isCloseTo(7e6, within(1e-6));
    assertThat(up1.measured()).isTrue();
    assertThat(up1.counterBps()).isCloseTo(8e6, within(1e-6));
    assertThat(up1.utilisationBps()).isCloseTo(8e6, within(1e-6));
    assertThat(up1.overThreshold()).isTrue();
    assertThat(up1.flows()).isEqualTo(2);
    assertThat(up1.sampledBps()).isCloseTo(8e6, within(1e-6));
    assertThat(up1.elephants()).isEqualTo(2);
    assertThat(up1.top()).isEqualTo(A);
    assertThat(up1.topBps()).isCloseTo(4.5e6, within(1e-6));
    assertThat(up1.rerouteCommandId()).isEqualTo(r1.decisions().get(0).command().getCommandId());
    assertThat(up1.unresolved()).isEmpty();
    // spine1's down-link was as loaded, but A's move relieved it in the same round: no reroute.
    FabricRounds.LinkRound down1 = link(r1, DOWN1);
    assertThat(down1.overThreshold()).isTrue();
    assertThat(down1.rerouteCommandId()).isEmpty();
    assertThat(down1.unresolved()).isEmpty();
    // spine2's up-link: 0.5 Mb/s, no flow sampled.
    FabricRounds.LinkRound up2 = link(r1, UP2);
    assertThat(up2.utilisationBps()).isCloseTo(0.5e6, within(1e-6));
    assertThat(up2.overThreshold()).isFalse();
    assertThat(up2.flows()).isZero();
    assertThat(up2.top()).isNull();
    // A host's cable: no counters (no sFlow at the host, none sent here for the edge port).
    FabricRounds.LinkRound host = link(r1, "leaf2:1>h2:0");
    assertThat(host.betweenSwitches()).isFalse();
    assertThat(host.measured()).isFalse();
    assertThat(host.overThreshold()).isFalse();

    // The round ending at 2 s: the counters at 2 s measured second 1, before the move (8 Mb/s on
    // spine1, 0.5 on spine2); the lag correction moves A's 4.5 Mb/s: 3.5 on spine1, 5 on spine2.
    d.second(3, 3.5e6, 5e6, A, 2, 4.5e6, B, 1, 2e6);
    FabricRounds.Round r2 = d.round(2000);
    assertThat(r2.decisions()).isEmpty();
    FabricRounds.LinkRound up1Later = link(r2, UP1);
    assertThat(up1Later.counterBps()).isCloseTo(8e6, within(1e-6));
    assertThat(up1Later.utilisationBps()).isCloseTo(3.5e6, within(1e-6));
    assertThat(up1Later.overThreshold()).isFalse();
    assertThat(up1Later.rerouteCommandId()).isEmpty();
    FabricRounds.LinkRound up2Later = link(r2, UP2);
    assertThat(up2Later.counterBps()).isCloseTo(0.5e6, within(1e-6));
    assertThat(up2Later.utilisationBps()).isCloseTo(5e6, within(1e-6));

    // The round ending at 3 s: counters at 3 s measured second 2, after the move: as measured.
    // Samples of second 2: A on spine2, B on spine1.
    d.second(4, 2e6, 8e6, A, 2, 4.5e6, B, 1, 2e6);
    FabricRounds.Round r3 = d.round(3000);
    assertThat(link(r3, UP1).utilisationBps()).isCloseTo(3.5e6, within(1e-6));
    assertThat(link(r3, UP1).top()).isEqualTo(B);
    assertThat(link(r3, UP2).utilisationBps()).isCloseTo(5e6, within(1e-6));
    assertThat(link(r3, UP2).top()).isEqualTo(A);
    assertThat(link(r3, UP2).elephants()).isEqualTo(1);
  }

  @Test
  void aCongestedLinkWithoutElephantsSaysWhyItStays() {
    Driver d = new Driver();
    // 8 Mb/s on spine1 and only A sampled, at 0.5 Mb/s (not above 1 Mb/s): no elephant to move.
    d.second(0, 0, 0, A, 1, 0.5e6);
    d.second(1, 8e6, 0, A, 1, 0.5e6);
    d.second(2, 8e6, 0, A, 1, 0.5e6);
    FabricRounds.LinkRound up1 = link(d.round(1000), UP1);
    assertThat(up1.overThreshold()).isTrue();
    assertThat(up1.flows()).isEqualTo(1);
    assertThat(up1.elephants()).isZero();
    assertThat(up1.rerouteCommandId()).isEmpty();
    assertThat(up1.unresolved()).isEqualTo(UP1 + " at 80.0 %: no elephant");
  }

  @Test
  void aSmallFlowIsTheTopButNoElephant() {
    Driver d = new Driver("fabric.elephant-share=0.5");
    // E = 0.5: elephants above 5 Mb/s; A at 4.5 Mb/s is the biggest flow, not an elephant.
    d.second(0, 0, 0, A, 1, 4.5e6);
    d.second(1, 4.5e6, 0, A, 1, 4.5e6);
    d.second(2, 4.5e6, 0, A, 1, 4.5e6);
    FabricRounds.LinkRound up1 = link(d.round(1000), UP1);
    assertThat(up1.flows()).isEqualTo(1);
    assertThat(up1.elephants()).isZero();
    assertThat(up1.top()).isEqualTo(A);
    assertThat(Optional.of(up1.overThreshold())).contains(false);
  }
}
