package net.cheetah.analytics;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.List;
import java.util.OptionalLong;
import net.cheetah.core.flow.Flowset;
import net.cheetah.core.flow.FlowsetMember;
import org.junit.jupiter.api.Test;

class FlowsetGrouperTest {
  private final FlowsetGrouper g = new FlowsetGrouper(10_000, 60_000);

  private static FlowsetMember m(String id, long start, long end, long bytes) {
    return new FlowsetMember(id, start, end, bytes, true, 0, 0);
  }

  private static List<List<String>> ids(List<List<FlowsetMember>> groups) {
    return groups.stream().map(x -> x.stream().map(FlowsetMember::flowId).toList()).toList();
  }

  @Test
  void startsExactlyTauApartShareASet() {
    assertThat(ids(g.group(List.of(m("a", 0, 5, 1), m("b", 10_000, 15, 1)))))
        .containsExactly(List.of("a", "b"));
  }

  @Test
  void oneMillisecondMoreThanTauSplits() {
    assertThat(ids(g.group(List.of(m("a", 0, 5, 1), m("b", 10_001, 15, 1)))))
        .containsExactly(List.of("a"), List.of("b"));
  }

  @Test
  void theRuleChainsFromThePreviousFlow() {
    // 0, 9 s, 18 s: each within τ of the one before, so one set spanning 18 s.
    assertThat(ids(g.group(List.of(m("c", 18_000, 1, 1), m("a", 0, 1, 1), m("b", 9_000, 1, 1)))))
        .containsExactly(List.of("a", "b", "c"));
  }

  @Test
  void arrivalOrderDoesNotMatter() {
    List<FlowsetMember> in = List.of(m("b", 30_000, 1, 1), m("a", 0, 1, 1), m("c", 35_000, 1, 1));
    assertThat(ids(g.group(in))).containsExactly(List.of("a"), List.of("b", "c"));
  }

  @Test
  void aSetCrossingMidnightIsOneSet() {
    long beforeMidnight = Instant.parse("2026-11-21T23:59:55Z").toEpochMilli();
    long afterMidnight = Instant.parse("2026-11-22T00:00:03Z").toEpochMilli();
    List<List<FlowsetMember>> groups =
        g.group(
            List.of(
                m("a", beforeMidnight, afterMidnight + 600_000, 5),
                m("b", afterMidnight, afterMidnight + 60_000, 7)));
    assertThat(ids(groups)).containsExactly(List.of("a", "b"));
    Flowset s = FlowsetGrouper.toFlowset(Fixtures.SRC, Fixtures.DST, groups.get(0), 0);
    assertThat(s.nFlows()).isEqualTo(2);
    assertThat(s.bytes()).isEqualTo(12);
    assertThat(s.startMs()).isEqualTo(beforeMidnight);
    assertThat(s.endMs()).isEqualTo(afterMidnight + 600_000);
  }

  @Test
  void sizeDurationAndRateFollowTheDefinition() {
    // 2 flows: 1e9 B from 0 to 100 s and 3e9 B from 5 s to 200 s: 4e9 B over 200 s = 160 Mb/s.
    Flowset s =
        FlowsetGrouper.toFlowset(
            Fixtures.SRC,
            Fixtures.DST,
            List.of(m("a", 0, 100_000, 1_000_000_000L), m("b", 5_000, 200_000, 3_000_000_000L)),
            0);
    assertThat(s.durationS()).isEqualTo(200.0);
    assertThat(s.rateBps()).isEqualTo(160_000_000.0);
    assertThat(s.single()).isFalse();
  }

  @Test
  void aSingleFlowIsFlagged() {
    Flowset s =
        FlowsetGrouper.toFlowset(Fixtures.SRC, Fixtures.DST, List.of(m("a", 0, 1000, 1)), 0);
    assertThat(s.single()).isTrue();
    assertThat(s.nFlows()).isEqualTo(1);
  }

  @Test
  void aSetClosesOnlyWhenAllMembersEndedAndTimeHasPassedTauAndLateness() {
    FlowsetMember a = m("a", 0, 50_000, 1);
    FlowsetMember open = new FlowsetMember("b", 5_000, 60_000, 1, false, 0, 0);
    assertThat(g.closeTime(5_000)).isEqualTo(75_000);
    assertThat(g.closable(List.of(a, open), 1_000_000)).isEmpty();
    FlowsetMember b = m("b", 5_000, 60_000, 1);
    assertThat(g.closable(List.of(a, b), 74_999)).isEmpty();
    assertThat(ids(g.closable(List.of(a, b), 75_000))).containsExactly(List.of("a", "b"));
    assertThat(g.nextCheck(List.of(a, b))).hasValue(75_000);
  }

  @Test
  void laterSetsCloseIndependently() {
    FlowsetMember a = m("a", 0, 1, 1);
    FlowsetMember b = new FlowsetMember("b", 100_000, 1, 1, false, 0, 0);
    assertThat(ids(g.closable(List.of(a, b), 200_000))).containsExactly(List.of("a"));
  }

  @Test
  void membersStartingWithinTauOfAClosedSetAreLate() {
    assertThat(g.isLate(20_000, OptionalLong.of(10_000))).isTrue();
    assertThat(g.isLate(20_001, OptionalLong.of(10_000))).isFalse();
    assertThat(g.isLate(0, OptionalLong.empty())).isFalse();
  }
}
