package net.cheetah.fabric;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import net.cheetah.config.CheetahConfig;
import net.cheetah.core.flow.Address;
import net.cheetah.core.redirect.CommandIds;
import net.cheetah.schemas.v1.RedirectAction;
import net.cheetah.schemas.v1.RedirectCommand;
import org.junit.jupiter.api.Test;

/**
 * The fabric job's rounds on the leaf-spine example of docs/FABRIC.md (10 Mb/s links: congested
 * above 7 Mb/s, an elephant above 1 Mb/s), fed hand-built placed samples and counters second by
 * second. Two elephants from h1 to h2, 4.5 and 3.5 Mb/s, both through spine1: its links carry 8
 * Mb/s (80 %), spine2's 0.5 Mb/s. The biggest goes to spine2 (0.5 + 4.5 = 5 Mb/s, at most 7).
 */
class FabricRoundsTest {
  static final String YAML =
      """
      name: leaf-spine
      switches:
        - {name: spine1, layer: core, ports: [1, 2]}
        - {name: spine2, layer: core, ports: [1, 2]}
        - {name: leaf1, layer: edge, ports: [1, 2, 3]}
        - {name: leaf2, layer: edge, ports: [1, 2, 3]}
      links:
        - {a: leaf1:2, b: spine1:1, capacity_bps: 10e6}
        - {a: leaf1:3, b: spine2:1, capacity_bps: 10e6}
        - {a: leaf2:2, b: spine1:2, capacity_bps: 10e6}
        - {a: leaf2:3, b: spine2:2, capacity_bps: 10e6}
      hosts:
        - {name: h1, address: 10.0.1.2, edge: leaf1:1, capacity_bps: 10e6}
        - {name: h2, address: 10.0.2.2, edge: leaf2:1, capacity_bps: 10e6}
      """;

  static final Fabric LEAF_SPINE = FabricFile.parse(YAML, "leaf-spine.yaml");
  static final String UP1 = "leaf1:2>spine1:1";
  static final String DOWN1 = "spine1:2>leaf2:2";
  static final String UP2 = "leaf1:3>spine2:1";
  static final String DOWN2 = "spine2:2>leaf2:3";
  static final FabricFlow A = flow(40001);
  static final FabricFlow B = flow(40002);

  static FabricFlow flow(int srcPort) {
    return new FabricFlow(Address.parse("10.0.1.2"), Address.parse("10.0.2.2"), srcPort, 5201, 6);
  }

  static CheetahConfig config(String... overrides) {
    Map<String, String> o = new HashMap<>();
    for (String kv : overrides) {
      o.put(kv.substring(0, kv.indexOf('=')), kv.substring(kv.indexOf('=') + 1));
    }
    return CheetahConfig.load(Optional.empty(), o);
  }

  /** Drives rounds: counters of the four inter-switch links and the flows' samples each second. */
  static final class Driver {
    final FabricRounds rounds;
    final Map<String, Long> octets = new HashMap<>();
    final List<FabricRounds.Decision> out = new ArrayList<>();

    Driver(String... overrides) {
      CheetahConfig cfg = config(overrides);
      rounds =
          new FabricRounds(
              LEAF_SPINE,
              cfg.fabric(),
              cfg.redirects().settings(),
              "leaf-spine",
              new FabricRounds.Memory());
    }

    /**
     * Second {@code s} (event time s·1000 .. s·1000 + 999): counters at its start for the bytes the
     * links carried in the second before, {@code up1}, {@code up2} bit/s (each link down to leaf2
     * as the one up to its spine); then samples of the flows in {@code flows} (flow, spine, bit/s),
     * at 100 ms into the second, on the links of the spine named.
     */
    List<FabricRounds.Decision> second(int s, double up1, double up2, Object... flows) {
      List<FabricRounds.Decision> now = new ArrayList<>();
      long t = s * 1000L;
      counter(now, UP1, t, up1);
      counter(now, DOWN1, t, up1);
      counter(now, UP2, t, up2);
      counter(now, DOWN2, t, up2);
      for (int i = 0; i < flows.length; i += 3) {
        FabricFlow f = (FabricFlow) flows[i];
        int spine = (Integer) flows[i + 1];
        double bps = (Double) flows[i + 2];
        // One sample at each switch a packet crosses: leaf1 measures the up-link, the spine the
        // down-link (the host link is left out: it never decides anything here).
        List<String> links = spine == 1 ? List.of(UP1, DOWN1) : List.of(UP2, DOWN2);
        for (long at : new long[] {t + 100, t + 600}) {
          for (int j = 0; j < 2; j++) {
            now.addAll(
                decisions(
                    rounds.onSample(
                        new FabricRounds.Sample(
                            at + 10L * j, f, List.of(links.get(j)), bps / 16))));
          }
        }
      }
      out.addAll(now);
      return now;
    }

    private void counter(List<FabricRounds.Decision> now, String link, long t, double bps) {
      long o = octets.merge(link, (long) (bps / 8), Long::sum);
      now.addAll(decisions(rounds.onCounter(link, t, o, 10e9, false)));
    }
  }

  @Test
  void twoElephantsOnOneSpineTheBiggestMovesToTheOtherAndIsNotMovedBack() {
    Driver d = new Driver();
    // Second 0: baselines; second 1: spine1 at 8 Mb/s. A round runs when both inputs have passed
    // its end by 0.5 s.
    assertThat(d.second(0, 0, 0, A, 1, 4.5e6, B, 1, 3.5e6)).isEmpty();
    assertThat(d.second(1, 8e6, 0.5e6, A, 1, 4.5e6, B, 1, 3.5e6)).isEmpty();
    // At 2 s the round ending at 1 s runs: samples of [0 s, 1 s), counters at 1 s. A moves.
    List<FabricRounds.Decision> moved = d.second(2, 8e6, 0.5e6, A, 2, 4.5e6, B, 1, 3.5e6);
    assertThat(moved).hasSize(1);
    RedirectCommand c = moved.get(0).command();
    assertThat(moved.get(0).published()).isTrue();
    assertThat(c.getAction()).isEqualTo(RedirectAction.REDIRECT_ACTION_REROUTE);
    assertThat(c.getSrcPort()).isEqualTo(40001);
    assertThat(c.getDstPort()).isEqualTo(5201);
    assertThat(c.getPath()).isEqualTo(UP2 + "," + DOWN2);
    assertThat(c.getLinkId()).isEqualTo(UP1); // both spine1 links at 80 %: the first by id
    assertThat(c.getDeviceId()).isEqualTo("leaf-spine");
    assertThat(c.getIssuedMs()).isEqualTo(1000);
    assertThat(c.getExpiresMs()).isEqualTo(1000 + 3_600_000);
    assertThat(c.getCommandId())
        .isEqualTo(
            CommandIds.add(
                "leaf-spine",
                "reroute 10.0.1.2:40001>10.0.2.2:5201/6 to " + UP2 + "," + DOWN2 + " issued 1000"));

    // The round ending at 2 s (run at 3 s) still sees spine1 at 8 Mb/s (the counters at 2 s
    // measured second 1, before the move) and B on it, an elephant that fits spine2: the move's
    // correction of the utilisation keeps B where it is. Second 2's counters show the move.
    assertThat(d.second(3, 3.5e6, 5e6, A, 2, 4.5e6, B, 1, 2e6)).isEmpty();
    // Now spine2 carries A and 3.5 Mb/s of other traffic (8 Mb/s, over 70 %) and spine1 only B
    // at 2 Mb/s, so A would fit back (2 + 4.5 = 6.5 Mb/s). It was moved less than fabric.hold-ms
    // (5 s) ago, then it left spine1 less than fabric.return-hold-ms (30 s) ago: it stays.
    for (int s = 4; s <= 12; s++) {
      assertThat(d.second(s, 2e6, 8e6, A, 2, 4.5e6, B, 1, 2e6)).as("second %d", s).isEmpty();
    }
    assertThat(d.rounds.memory().active()).isEqualTo(1);

    // A ends (its last samples at 12.6 s): after fabric.flow-idle-ms (5 s) its reroute is removed,
    // naming the add.
    List<FabricRounds.Decision> later = new ArrayList<>();
    for (int s = 13; s <= 19; s++) {
      later.addAll(d.second(s, 2e6, 0.5e6, B, 1, 2e6));
    }
    assertThat(later).hasSize(1);
    RedirectCommand remove = later.get(0).command();
    assertThat(remove.getAction()).isEqualTo(RedirectAction.REDIRECT_ACTION_REMOVE);
    assertThat(remove.getReplacesCommandId()).isEqualTo(c.getCommandId());
    // Last sample at 12 610 ms; the first round end 5 s later is 18 000 (run at 19 s).
    assertThat(remove.getIssuedMs()).isEqualTo(18_000);
    assertThat(remove.getReason()).contains("no sFlow samples for 5390 ms");
    assertThat(d.rounds.memory().active()).isZero();
  }

  @Test
  void aProtectedHostIsRefusedAndRecordedNotPublished() {
    Driver d = new Driver("redirects.protected-prefixes=10.0.2.0/24");
    for (int s = 0; s <= 2; s++) {
      d.second(s, 8e6, 0.5e6, A, 1, 4.5e6, B, 1, 3.5e6);
    }
    assertThat(d.out).hasSize(1);
    assertThat(d.out.get(0).published()).isFalse();
    assertThat(d.out.get(0).command().getRefusal()).isEqualTo("protected prefix 10.0.2.0/24");
    assertThat(d.rounds.memory().active()).isZero();
  }

  /**
   * A refused move did not happen, so it holds nothing: each round tries the biggest elephant, A,
   * again (and is refused again), rather than holding A as if it had moved and trying B, then
   * holding both ("moved less than fabric.hold-ms ago").
   */
  @Test
  void aRefusedMoveHoldsNothing() {
    Driver d = new Driver("redirects.protected-prefixes=10.0.2.0/24");
    for (int s = 0; s <= 6; s++) {
      d.second(s, 8e6, 0.5e6, A, 1, 4.5e6, B, 1, 3.5e6);
    }
    // Rounds ending at 1, 2, 3, 4 and 5 s ran (at 2 .. 6 s): one refusal each, all of A.
    assertThat(d.out).hasSize(5);
    assertThat(d.out)
        .allSatisfy(
            x -> {
              assertThat(x.published()).isFalse();
              assertThat(x.command().getSrcPort()).isEqualTo(40001);
              assertThat(x.command().getRefusal()).isEqualTo("protected prefix 10.0.2.0/24");
            });
    assertThat(d.out.stream().map(x -> x.command().getIssuedMs()))
        .containsExactly(1000L, 2000L, 3000L, 4000L, 5000L);
  }

  /**
   * With no hold, A (moved to spine2 at 1 s) is moved back as soon as spine2 is the congested one
   * and spine1 has room (2 + 4.5 = 6.5 Mb/s <= 7). That is a second new rule within the minute: the
   * default rate (30 per minute) lets it through, a rate of 1 per minute refuses it, every round,
   * until the bucket has refilled a minute after the first (event time).
   */
  @Test
  void theNewRuleRateLimitRefusesASecondRerouteWithinAMinute() {
    for (String limit : new String[] {"30", "1"}) {
      Driver d =
          new Driver(
              "fabric.hold-ms=0",
              "fabric.return-hold-ms=0",
              "redirects.max-new-rules-per-minute=" + limit);
      for (int s = 0; s <= 2; s++) {
        d.second(s, 8e6, 0.5e6, A, 1, 4.5e6, B, 1, 3.5e6);
      }
      assertThat(d.out).as("limit %s", limit).hasSize(1);
      assertThat(d.out.get(0).published()).isTrue();
      d.out.clear();
      for (int s = 3; s <= 10; s++) {
        d.second(s, 2e6, 8e6, A, 2, 4.5e6, B, 1, 2e6);
      }
      if (limit.equals("30")) {
        // Moved back: the REMOVE of the first reroute, then the reroute back through spine1.
        assertThat(d.out).hasSizeGreaterThanOrEqualTo(2);
        assertThat(d.out.get(0).command().getAction())
            .isEqualTo(RedirectAction.REDIRECT_ACTION_REMOVE);
        assertThat(d.out.get(1).command().getAction())
            .isEqualTo(RedirectAction.REDIRECT_ACTION_REROUTE);
        assertThat(d.out.get(1).command().getPath()).isEqualTo(UP1 + "," + DOWN1);
        assertThat(d.out.get(1).published()).isTrue();
      } else {
        // Refused each round, recorded not published; the first reroute stays in force.
        assertThat(d.out).isNotEmpty();
        assertThat(d.out)
            .allSatisfy(
                x -> {
                  assertThat(x.published()).isFalse();
                  assertThat(x.command().getAction())
                      .isEqualTo(RedirectAction.REDIRECT_ACTION_REROUTE);
                  assertThat(x.command().getRefusal())
                      .isEqualTo(
                          "rate limit of 1 new rules per minute"
                              + " (redirects.max-new-rules-per-minute)");
                });
        assertThat(d.rounds.memory().active()).isEqualTo(1);
        // The token taken at 1 s is back a minute later: the round ending at 61 s moves A.
        d.out.clear();
        for (int s = 11; s <= 62; s++) {
          d.second(s, 2e6, 8e6, A, 2, 4.5e6, B, 1, 2e6);
        }
        List<FabricRounds.Decision> published =
            d.out.stream().filter(FabricRounds.Decision::published).toList();
        assertThat(published).hasSize(2);
        assertThat(published.get(1).command().getIssuedMs()).isEqualTo(61_000);
        assertThat(published.get(1).command().getPath()).isEqualTo(UP1 + "," + DOWN1);
      }
    }
  }

  @Test
  void aDryRunRecordsTheRerouteWithoutPublishingIt() {
    Driver d = new Driver("redirects.dry-run=true");
    for (int s = 0; s <= 2; s++) {
      d.second(s, 8e6, 0.5e6, A, 1, 4.5e6, B, 1, 3.5e6);
    }
    assertThat(d.out).hasSize(1);
    assertThat(d.out.get(0).published()).isFalse();
    assertThat(d.out.get(0).command().getDryRun()).isTrue();
  }

  @Test
  void aSampleOfAClosedWindowIsLateAndCounted() {
    Driver d = new Driver();
    d.second(0, 0, 0, A, 1, 1e6);
    d.second(3, 0, 0, A, 1, 1e6); // runs the rounds ending at 1 s and 2 s
    d.rounds.onSample(new FabricRounds.Sample(1500, A, List.of(UP1), 1000));
    assertThat(d.rounds.memory().late()).isEqualTo(1);
  }

  /** The decisions of the rounds a sample or counter closed. */
  private static List<FabricRounds.Decision> decisions(List<FabricRounds.Round> rounds) {
    return rounds.stream().flatMap(r -> r.decisions().stream()).toList();
  }
}
