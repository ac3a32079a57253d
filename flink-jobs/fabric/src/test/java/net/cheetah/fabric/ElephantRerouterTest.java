package net.cheetah.fabric;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import net.cheetah.config.CheetahConfig;
import net.cheetah.core.flow.Address;
import org.junit.jupiter.api.Test;

/**
 * The EFM rule on hand-built link states of the k = 4 fat-tree with 10 Mb/s links: 70 % is 7 Mb/s,
 * an elephant is above 1 Mb/s. The four paths from e1 to e3 (pod 0 to pod 1), from the wiring in
 * {@link FatTree}'s javadoc, one per core switch:
 *
 * <pre>
 * c1: e1:3>a1:1, a1:3>c1:1, c1:2>a3:3, a3:1>e3:3
 * c2: e1:3>a1:1, a1:4>c2:1, c2:2>a3:4, a3:1>e3:3
 * c3: e1:4>a2:1, a2:3>c3:1, c3:2>a4:3, a4:1>e3:4
 * c4: e1:4>a2:1, a2:4>c4:1, c4:2>a4:4, a4:1>e3:4
 * </pre>
 *
 * and from e2 to e4 the same cores with a1:2/a2:2 and a3:2/a4:2 at the ends. Every link not set by
 * a test is measured at 0.
 */
class ElephantRerouterTest {
  private static final Fabric K4 = FatTree.of(4, 10e6);
  private static final List<String> E1_E3_C1 =
      List.of("e1:3>a1:1", "a1:3>c1:1", "c1:2>a3:3", "a3:1>e3:3");
  private static final List<String> E1_E3_C2 =
      List.of("e1:3>a1:1", "a1:4>c2:1", "c2:2>a3:4", "a3:1>e3:3");
  private static final List<String> E1_E3_C3 =
      List.of("e1:4>a2:1", "a2:3>c3:1", "c3:2>a4:3", "a4:1>e3:4");
  private static final List<String> E1_E3_C4 =
      List.of("e1:4>a2:1", "a2:4>c4:1", "c4:2>a4:4", "a4:1>e3:4");
  private static final List<String> E2_E4_C3 =
      List.of("e2:4>a2:2", "a2:3>c3:1", "c3:2>a4:3", "a4:2>e4:4");
  private static final List<String> E2_E4_C4 =
      List.of("e2:4>a2:2", "a2:4>c4:1", "c4:2>a4:4", "a4:2>e4:4");

  // h1, h2 on e1; h3 on e2; h5, h6 on e3; h7 on e4 (10.pod.edge.host+2).
  private static final FabricFlow F = flow("10.0.0.2", "10.1.0.2", 40001);
  private static final FabricFlow G = flow("10.0.0.3", "10.1.0.3", 40002);
  private static final FabricFlow H = flow("10.0.1.2", "10.1.1.2", 40003);

  private static FabricFlow flow(String src, String dst, int srcPort) {
    return new FabricFlow(Address.parse(src), Address.parse(dst), srcPort, 5201, 6);
  }

  private static CheetahConfig.Fabric settings(String... overrides) {
    Map<String, String> o = new HashMap<>();
    for (String kv : overrides) {
      o.put(kv.substring(0, kv.indexOf('=')), kv.substring(kv.indexOf('=') + 1));
    }
    return CheetahConfig.load(Optional.empty(), o).fabric();
  }

  /** A link state under construction: every link at 0, flows seen on every link of a path. */
  private static final class State {
    final Map<String, Double> load = new HashMap<>();
    final Map<String, Map<FabricFlow, Double>> rates = new HashMap<>();

    State() {
      K4.links().forEach(l -> load.put(l.id(), 0.0));
    }

    State load(String link, double bps) {
      K4.link(link).orElseThrow(() -> new AssertionError("no link " + link));
      load.put(link, bps);
      return this;
    }

    State flow(FabricFlow f, double bps, List<String> path) {
      for (String link : path) {
        K4.link(link).orElseThrow(() -> new AssertionError("no link " + link));
        rates.computeIfAbsent(link, k -> new HashMap<>()).put(f, bps);
      }
      return this;
    }

    LinkState build() {
      return new LinkState(load, rates);
    }
  }

  private static ElephantRerouter.Round round(
      State s, MoveHistory h, long nowMs, String... overrides) {
    return new ElephantRerouter(K4, settings(overrides)).decide(s.build(), h, nowMs);
  }

  private static List<String> ids(FabricPath p) {
    return p.links().stream().map(Link::id).toList();
  }

  @Test
  void exactlySeventyPercentIsNotCongestedAndOneBitMoreIs() {
    State at = new State().load("a1:3>c1:1", 7_000_000).flow(F, 2e6, E1_E3_C1);
    ElephantRerouter.Round r = round(at, new MoveHistory(), 0);
    assertThat(r.reroutes()).isEmpty();
    assertThat(r.unresolved()).isEmpty();

    State over = new State().load("a1:3>c1:1", 7_000_001).flow(F, 2e6, E1_E3_C1);
    r = round(over, new MoveHistory(), 0);
    assertThat(r.reroutes()).hasSize(1);
    Reroute m = r.reroutes().get(0);
    assertThat(m.flow()).isEqualTo(F);
    assertThat(m.link()).isEqualTo("a1:3>c1:1");
    assertThat(ids(m.from())).isEqualTo(E1_E3_C1);
    assertThat(ids(m.to())).isEqualTo(E1_E3_C2); // the first other path; all are empty
    assertThat(m.reason()).contains("a1:3>c1:1 at 70.0 %", "from e1-a1-c1-a3-e3 to e1-a1-c2-a3-e3");
  }

  @Test
  void aNewPathMayReachExactlySeventyPercentButNotMore() {
    // F (2 Mb/s) on c1; on c2 the core link is at 5 Mb/s: 5 + 2 = 7, exactly the threshold.
    State s = new State().load("a1:3>c1:1", 8e6).load("a1:4>c2:1", 5e6).flow(F, 2e6, E1_E3_C1);
    assertThat(ids(round(s, new MoveHistory(), 0).reroutes().get(0).to())).isEqualTo(E1_E3_C2);
    // 1 bit/s more on c2 and it no longer fits: c3 is next.
    s.load("a1:4>c2:1", 5_000_001);
    assertThat(ids(round(s, new MoveHistory(), 0).reroutes().get(0).to())).isEqualTo(E1_E3_C3);
  }

  @Test
  void aFlowAtExactlyTenPercentIsNotAnElephant() {
    State s = new State().load("a1:3>c1:1", 8e6).flow(F, 1e6, E1_E3_C1);
    ElephantRerouter.Round r = round(s, new MoveHistory(), 0);
    assertThat(r.reroutes()).isEmpty();
    assertThat(r.unresolved()).containsExactly("a1:3>c1:1 at 80.0 %: no elephant");
    s.flow(F, 1_000_001, E1_E3_C1);
    assertThat(round(s, new MoveHistory(), 0).reroutes())
        .extracting(Reroute::flow)
        .containsExactly(F);
  }

  @Test
  void whenNoPathFitsNothingMoves() {
    // F at 3 Mb/s on c1 (8 Mb/s); every other path has a link at 4.5 Mb/s: 7.5 with F.
    State s =
        new State()
            .load("a1:3>c1:1", 8e6)
            .load("a1:4>c2:1", 4.5e6)
            .load("e1:4>a2:1", 4.5e6)
            .flow(F, 3e6, E1_E3_C1);
    ElephantRerouter.Round r = round(s, new MoveHistory(), 0);
    assertThat(r.reroutes()).isEmpty();
    assertThat(r.unresolved())
        .containsExactly("a1:3>c1:1 at 80.0 %: no elephant has a path that fits");
  }

  @Test
  void theNextElephantIsTriedWhenTheFirstDoesNotFit() {
    // Biggest first: F (3 Mb/s) fits nowhere (every other path has a link at 4.5 Mb/s), G (2 Mb/s)
    // does (4.5 + 2 = 6.5 <= 7) and takes the first other path.
    State s =
        new State()
            .load("a1:3>c1:1", 8e6)
            .load("a1:4>c2:1", 4.5e6)
            .load("e1:4>a2:1", 4.5e6)
            .flow(F, 3e6, E1_E3_C1)
            .flow(G, 2e6, E1_E3_C1);
    ElephantRerouter.Round r = round(s, new MoveHistory(), 0);
    assertThat(r.reroutes()).extracting(Reroute::flow).containsExactly(G);
    assertThat(ids(r.reroutes().get(0).to())).isEqualTo(E1_E3_C2);
  }

  @Test
  void thePolicyChoosesTheBiggestOrTheSmallestElephant() {
    State s =
        new State()
            .load("a1:3>c1:1", 8e6)
            .flow(F, 3e6, E1_E3_C1)
            .flow(G, 2e6, E1_E3_C1)
            .flow(H, 0.5e6, E1_E3_C1); // not an elephant: never chosen
    assertThat(round(s, new MoveHistory(), 0).reroutes())
        .extracting(Reroute::flow)
        .containsExactly(F);
    assertThat(round(s, new MoveHistory(), 0, "fabric.policy=smallest").reroutes())
        .extracting(Reroute::flow)
        .containsExactly(G);
  }

  @Test
  void theMovedFlowsOwnRateIsNotCountedTwiceOnLinksBothPathsShare() {
    // c1 -> c2 keeps the edge links e1:3>a1:1 and a3:1>e3:3, which carry F's 2 Mb/s among 6.5:
    // with F moved they stay at 6.5 (fits); counted twice they would be 8.5 (does not). c3 and
    // c4 start on e1:4>a2:1 at 6 Mb/s: 8 with F, so c2 is the only path that fits.
    State s =
        new State()
            .load("e1:3>a1:1", 6.5e6)
            .load("a1:3>c1:1", 7.5e6)
            .load("a3:1>e3:3", 6.5e6)
            .load("e1:4>a2:1", 6e6)
            .flow(F, 2e6, E1_E3_C1);
    ElephantRerouter.Round r = round(s, new MoveHistory(), 0);
    assertThat(r.reroutes()).hasSize(1);
    assertThat(ids(r.reroutes().get(0).to())).isEqualTo(E1_E3_C2);
  }

  @Test
  void aMoveChangesTheLoadsTheRestOfTheRoundSees() {
    // F (e1>e3, 3 Mb/s) on c1 at 8 Mb/s is handled first (most loaded): c2 is at 6 (9 with F),
    // c3 crosses the congested a2:3>c3:1, c4's core link is at 3: F goes through c4 (6).
    // H (e2>e4, 3 Mb/s) on c3 at 7.5: c1 is now at 5 (8 with H), c2 at 6 (9), and c4 at 6 after
    // F (9 with H): nothing fits. Without F's move counted, H would have gone through c4 too.
    State s =
        new State()
            .load("a1:3>c1:1", 8e6)
            .load("a1:4>c2:1", 6e6)
            .load("a2:3>c3:1", 7.5e6)
            .load("a2:4>c4:1", 3e6)
            .flow(F, 3e6, E1_E3_C1)
            .flow(H, 3e6, E2_E4_C3);
    ElephantRerouter.Round r = round(s, new MoveHistory(), 0);
    assertThat(r.reroutes()).extracting(Reroute::flow).containsExactly(F);
    assertThat(ids(r.reroutes().get(0).to())).isEqualTo(E1_E3_C4);
    assertThat(r.unresolved())
        .containsExactly("a2:3>c3:1 at 75.0 %: no elephant has a path that fits");
  }

  @Test
  void aMovedFlowIsHeldAndDoesNotReturnToThePathItLeft() {
    // hold 5 s, return hold 30 s (the defaults). t = 0: F moves c1 -> c2.
    MoveHistory h = new MoveHistory();
    State first = new State().load("a1:3>c1:1", 8e6).flow(F, 3e6, E1_E3_C1);
    assertThat(ids(round(first, h, 0).reroutes().get(0).to())).isEqualTo(E1_E3_C2);

    // Now c2 is congested with F on it, and c3, c4 are full: only c1 (empty) could take F.
    State later =
        new State()
            .load("a1:4>c2:1", 8e6)
            .load("a2:3>c3:1", 6e6)
            .load("a2:4>c4:1", 6e6)
            .flow(F, 3e6, E1_E3_C2);
    ElephantRerouter.Round held = round(later, h, 4_999);
    assertThat(held.reroutes()).isEmpty();
    assertThat(held.unresolved())
        .containsExactly(
            "a1:4>c2:1 at 80.0 %: every elephant was moved less than fabric.hold-ms ago");
    // Past the hold, but c1 was left less than the return hold ago.
    assertThat(round(later, h, 5_000).reroutes()).isEmpty();
    assertThat(round(later, h, 29_999).reroutes()).isEmpty();
    // At the return hold it may go back.
    ElephantRerouter.Round back = round(later, h, 30_000);
    assertThat(back.reroutes()).hasSize(1);
    assertThat(ids(back.reroutes().get(0).to())).isEqualTo(E1_E3_C1);
  }

  @Test
  void aHeldFlowLetsTheNextElephantMove() {
    MoveHistory h = new MoveHistory();
    State s = new State().load("a1:3>c1:1", 8e6).flow(F, 3e6, E1_E3_C1);
    round(s, h, 0); // F moved at t = 0
    State both = new State().load("a1:4>c2:1", 8e6).flow(F, 3e6, E1_E3_C2).flow(G, 2e6, E1_E3_C2);
    assertThat(round(both, h, 1_000).reroutes()).extracting(Reroute::flow).containsExactly(G);
  }

  @Test
  void aFlowWhosePathIsNotKnownIsNotMoved() {
    // F seen only on e1:3>a1:1, which both c1 and c2 paths cross: its path is ambiguous.
    State s = new State().load("e1:3>a1:1", 8e6).flow(F, 3e6, List.of("e1:3>a1:1"));
    ElephantRerouter.Round r = round(s, new MoveHistory(), 0);
    assertThat(r.reroutes()).isEmpty();
    assertThat(r.unresolved()).containsExactly("e1:3>a1:1 at 80.0 %: no elephant's path is known");
    // Seen only on the core link a1:3>c1:1: one path holds it, so it is known.
    State core = new State().load("a1:3>c1:1", 8e6).flow(F, 3e6, List.of("a1:3>c1:1"));
    assertThat(round(core, new MoveHistory(), 0).reroutes()).hasSize(1);
    // A flow between addresses the fabric does not have is never moved.
    FabricFlow outside = flow("192.0.2.1", "10.1.0.2", 1);
    State o = new State().load("a1:3>c1:1", 8e6).flow(outside, 3e6, E1_E3_C1);
    assertThat(round(o, new MoveHistory(), 0).reroutes()).isEmpty();
  }

  @Test
  void aLinkWithoutAMeasureDoesNotFit() {
    State s = new State().load("a1:3>c1:1", 8e6).flow(F, 3e6, E1_E3_C1);
    s.load.remove("c2:2>a3:4");
    assertThat(ids(round(s, new MoveHistory(), 0).reroutes().get(0).to())).isEqualTo(E1_E3_C3);
  }
}
