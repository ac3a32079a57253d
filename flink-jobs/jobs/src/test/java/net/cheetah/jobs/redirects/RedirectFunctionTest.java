package net.cheetah.jobs.redirects;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.Set;
import net.cheetah.analytics.Address;
import net.cheetah.analytics.redirects.CheetahSighting;
import net.cheetah.analytics.redirects.CheetahSighting.Kind;
import net.cheetah.analytics.redirects.Decision;
import net.cheetah.analytics.redirects.RedirectSettings;
import net.cheetah.schemas.v1.RedirectAction;
import net.cheetah.schemas.v1.RedirectCommand;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.streaming.api.operators.KeyedProcessOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The redirect operator: timers expire rules, state survives a restart, dry run publishes nothing.
 */
class RedirectFunctionTest {
  static RedirectSettings settings(boolean dryRun) {
    return new RedirectSettings(
        Map.of("esnet-a", "r1"), Set.of(), List.of(), 10, 60, 60_000, dryRun, 0);
  }

  private KeyedOneInputStreamOperatorTestHarness<String, DeviceSighting, Decision> h;

  static KeyedOneInputStreamOperatorTestHarness<String, DeviceSighting, Decision> harness()
      throws Exception {
    return new KeyedOneInputStreamOperatorTestHarness<>(
        new KeyedProcessOperator<>(new RedirectFunction(settings(false))),
        DeviceSighting::device,
        TypeInformation.of(String.class));
  }

  @BeforeEach
  void open() throws Exception {
    h = harness();
    h.open();
  }

  @AfterEach
  void close() throws Exception {
    h.close();
  }

  static DeviceSighting s(String flow, Kind kind) {
    return new DeviceSighting(
        "r1",
        new CheetahSighting(
            flow,
            kind,
            "esnet-a",
            Address.parse("198.18.1.10"),
            Address.parse("198.18.2.20"),
            40000,
            5201,
            6,
            1e9,
            3));
  }

  private List<String> decisions() {
    return h.extractOutputValues().stream().map(d -> d.kind() + " " + d.rule().cause()).toList();
  }

  @Test
  void aRuleIsRemovedWhenItsTtlPassesOnTheProcessingClock() throws Exception {
    h.setProcessingTime(1_000);
    h.processElement(new StreamRecord<>(s("a", Kind.START)));
    h.setProcessingTime(60_999);
    assertThat(decisions()).containsExactly("ADD a");
    h.setProcessingTime(61_000);
    assertThat(decisions()).containsExactly("ADD a", "REMOVE a");
  }

  @Test
  void afterARestartReplayedEventsAddNothingAndTheEndStillRemoves() throws Exception {
    h.setProcessingTime(1_000);
    h.processElement(new StreamRecord<>(s("a", Kind.START)));
    OperatorSubtaskState snapshot = h.snapshot(1, 1_000);
    h.close();
    h = harness();
    h.setup();
    h.initializeState(snapshot);
    h.open();
    h.setProcessingTime(2_000);
    h.processElement(new StreamRecord<>(s("a", Kind.START))); // replayed after the checkpoint
    h.processElement(new StreamRecord<>(s("a", Kind.END)));
    assertThat(decisions()).containsExactly("REMOVE a");
  }

  @Test
  void commandsCarryTheRuleAndADryRunPublishesNothing() {
    Decision add =
        Decision.add(
            new net.cheetah.analytics.redirects.Rule(
                "id-1",
                "r1",
                "a",
                "esnet-a",
                Address.parse("198.18.1.10"),
                Address.parse("198.18.2.20"),
                40000,
                5201,
                6,
                1_000,
                61_000,
                3,
                "why"));
    RedirectCommand c = RedirectCommands.of(add, settings(false), 5_000);
    assertThat(c.getAction()).isEqualTo(RedirectAction.REDIRECT_ACTION_SCAVENGER);
    assertThat(List.of(c.getCommandId(), c.getDeviceId(), c.getLinkId(), c.getCheetahFlowId()))
        .containsExactly("id-1", "r1", "esnet-a", "a");
    assertThat(c.getSrcPrefixLen()).isEqualTo(128);
    assertThat(c.getExpiresMs()).isEqualTo(61_000);
    RedirectCommand rm =
        RedirectCommands.of(Decision.remove(add.rule(), "rule expired"), settings(false), 61_000);
    assertThat(rm.getAction()).isEqualTo(RedirectAction.REDIRECT_ACTION_REMOVE);
    assertThat(rm.getReplacesCommandId()).isEqualTo("id-1");
    assertThat(rm.getExpiresMs()).isGreaterThan(61_000); // not already expired when it arrives
    assertThat(RedirectCommands.published(add, settings(false))).isTrue();
    assertThat(RedirectCommands.published(add, settings(true))).isFalse();
    assertThat(RedirectCommands.of(add, settings(true), 5_000).getDryRun()).isTrue();
    assertThat(RedirectCommands.published(Decision.refused(add.rule(), "K"), settings(false)))
        .isFalse();
    assertThat(
            RedirectCommands.of(Decision.refused(add.rule(), "K"), settings(false), 0).getRefusal())
        .isEqualTo("K");
  }
}
