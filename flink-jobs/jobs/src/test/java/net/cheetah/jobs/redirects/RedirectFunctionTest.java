package net.cheetah.jobs.redirects;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.Set;
import net.cheetah.core.flow.Address;
import net.cheetah.core.redirect.CheetahSighting;
import net.cheetah.core.redirect.CheetahSighting.Kind;
import net.cheetah.core.redirect.CommandIds;
import net.cheetah.core.redirect.Decision;
import net.cheetah.core.redirect.RedirectSettings;
import net.cheetah.jobs.codec.Codec;
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
  static final long AGE = 10_000; // prefix filters age out 10 s after their newest α flow
  static final long WINDOW = 5_000; // and are renewed from 5 s before (half the age)

  static RedirectSettings settings(boolean dryRun) {
    return new RedirectSettings(
        Map.of("esnet-a", "r1", "10.0.0.1", "r1"),
        Set.of(),
        List.of(),
        10,
        60,
        60_000,
        dryRun,
        0,
        24,
        AGE);
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
            3,
            false,
            0));
  }

  /** An α flow (a NetFlow cheetah) exported by 10.0.0.1, at event time {@code eventMs}. */
  static DeviceSighting alpha(String flow, Kind kind, String src, long eventMs) {
    return new DeviceSighting(
        "r1",
        new CheetahSighting(
            flow,
            kind,
            "10.0.0.1",
            Address.parse(src),
            Address.parse("198.18.2.20"),
            40000,
            5201,
            6,
            2e9,
            0,
            true,
            eventMs));
  }

  static final String PAIR = "prefix 198.18.1.0/24→198.18.2.0/24";

  private List<String> filterDecisions() {
    return h.extractOutputValues().stream()
        .filter(d -> d.rule().isPrefixFilter())
        .map(d -> d.kind() + " until " + d.rule().expiresMs() + " " + d.commandId())
        .toList();
  }

  private void restart() throws Exception {
    OperatorSubtaskState snapshot = h.snapshot(1, h.getProcessingTime());
    h.close();
    h = harness();
    h.setup();
    h.initializeState(snapshot);
    h.open();
  }

  @Test
  void aFilterAndItsTimersSurviveARestartAndReplayedAlphaFlowsAddNothing() throws Exception {
    h.setProcessingTime(1_000);
    h.processElement(new StreamRecord<>(alpha("f1", Kind.START, "198.18.1.10", 1_000)));
    h.processElement(new StreamRecord<>(alpha("f1", Kind.START, "198.18.1.10", 1_000))); // dup
    String add = CommandIds.add("r1", PAIR + "@" + (1_000 + AGE));
    assertThat(filterDecisions()).containsExactly("ADD until 11000 " + add);
    restart();
    h.setProcessingTime(2_000);
    h.processElement(new StreamRecord<>(alpha("f1", Kind.START, "198.18.1.10", 1_000))); // replay
    h.processElement(new StreamRecord<>(alpha("f1", Kind.UPDATE, "198.18.1.10", 1_000)));
    h.setProcessingTime(1_000 + AGE - 1);
    assertThat(filterDecisions()).isEmpty(); // nothing new after the restart
    h.setProcessingTime(1_000 + AGE); // the restored timer ages the filter out
    assertThat(filterDecisions()).containsExactly("REMOVE until 11000 " + CommandIds.removal(add));
  }

  @Test
  void aLaterAlphaFlowIsRenewedByTheRestoredTimerBeforeExpiry() throws Exception {
    h.setProcessingTime(1_000);
    h.processElement(new StreamRecord<>(alpha("f1", Kind.START, "198.18.1.10", 1_000)));
    h.setProcessingTime(3_000);
    h.processElement(new StreamRecord<>(alpha("f2", Kind.START, "198.18.1.77", 3_000)));
    restart();
    h.setProcessingTime(1_000 + AGE - WINDOW - 1);
    String first = CommandIds.add("r1", PAIR + "@11000");
    String renewed = CommandIds.add("r1", PAIR + "@13000");
    assertThat(filterDecisions()).isEmpty();
    h.setProcessingTime(1_000 + AGE - WINDOW);
    assertThat(filterDecisions())
        .containsExactly(
            "REMOVE until 11000 " + CommandIds.removal(first), "ADD until 13000 " + renewed);
    restart(); // the renewed generation's timers are checkpointed too
    h.setProcessingTime(3_000 + AGE);
    assertThat(filterDecisions())
        .containsExactly("REMOVE until 13000 " + CommandIds.removal(renewed));
  }

  @Test
  void rulesAreStateThatFlinkSerialisesWithoutKryo() {
    // docs/ENVIRONMENT.md, "Flink on JDK 17": Kryo needs --add-opens; a record field it cannot map
    // would
    // silently turn the checkpointed rule set into a generic type.
    assertThat(TypeInformation.of(net.cheetah.core.redirect.Rule.class))
        .isInstanceOf(org.apache.flink.api.java.typeutils.PojoTypeInfo.class);
  }

  @Test
  void aFilterCommandMatchesThePrefixPairOnAnyPortAndProtocol() throws Exception {
    h.setProcessingTime(1_000);
    h.processElement(new StreamRecord<>(alpha("f1", Kind.START, "198.18.1.10", 1_000)));
    Decision add =
        h.extractOutputValues().stream()
            .filter(d -> d.rule().isPrefixFilter())
            .findFirst()
            .orElseThrow();
    RedirectCommand c = RedirectCommands.of(add, settings(false), 1_000);
    assertThat(c.getSrcPrefix()).isEqualTo(Codec.addr(Address.parse("198.18.1.0")));
    assertThat(c.getDstPrefix()).isEqualTo(Codec.addr(Address.parse("198.18.2.0")));
    assertThat(List.of(c.getSrcPrefixLen(), c.getDstPrefixLen())).containsExactly(120, 120);
    assertThat(List.of(c.getSrcPort(), c.getDstPort(), c.getProto())).containsExactly(0, 0, 0);
    assertThat(c.getAction()).isEqualTo(RedirectAction.REDIRECT_ACTION_SCAVENGER);
    assertThat(c.getExpiresMs()).isEqualTo(1_000 + AGE);
    assertThat(c.getCheetahFlowId()).isEmpty();
    assertThat(c.getReason()).isEqualTo(PAIR + ": α flow f1 from 10.0.0.1 at 2.000 Gb/s");
    assertThat(c.getLinkId()).isEqualTo("10.0.0.1");
    // In a dry run the filter is decided and recorded, never published.
    assertThat(RedirectCommands.published(add, settings(true))).isFalse();
    assertThat(RedirectCommands.of(add, settings(true), 1_000).getDryRun()).isTrue();
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
            new net.cheetah.core.redirect.Rule(
                "id-1",
                "r1",
                "a",
                "esnet-a",
                Address.parse("198.18.1.10"),
                Address.parse("198.18.2.20"),
                128,
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
