package net.cheetah.analytics.redirects;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import net.cheetah.core.flow.Address;
import net.cheetah.core.redirect.CheetahSighting;
import net.cheetah.core.redirect.CheetahSighting.Kind;
import net.cheetah.core.redirect.CommandIds;
import net.cheetah.core.redirect.Decision;
import net.cheetah.core.redirect.Prefix;
import net.cheetah.core.redirect.RedirectSettings;
import net.cheetah.core.redirect.Rule;
import org.junit.jupiter.api.Test;

class FlowIsolationTest {
  static final long TTL = 600_000;

  static RedirectSettings settings(int k, int perMinute, String... protectedPrefixes) {
    return new RedirectSettings(
        Map.of("esnet-a", "r1"),
        Set.of(),
        java.util.Arrays.stream(protectedPrefixes).map(Prefix::parse).toList(),
        k,
        perMinute,
        TTL,
        false,
        0,
        0,
        RedirectSettings.MAX_PREFIX_FILTER_AGE_MS);
  }

  static CheetahSighting s(String flow, Kind kind, String src) {
    return new CheetahSighting(
        flow,
        kind,
        "esnet-a",
        Address.parse(src),
        Address.parse("198.18.2.20"),
        40000,
        5201,
        6,
        2e9,
        7,
        false,
        0);
  }

  private final MemoryRuleBook book = new MemoryRuleBook();

  private List<String> run(FlowIsolation f, long now, CheetahSighting... events) {
    List<String> out = new ArrayList<>();
    for (CheetahSighting e : events) {
      for (Decision d : f.on(e, "r1", book, now)) {
        out.add(
            d.kind()
                + " "
                + d.rule().cause()
                + (d.detail().isEmpty() ? "" : " (" + d.detail() + ")"));
      }
    }
    return out;
  }

  @Test
  void aStartAddsOneRuleAndItsEndRemovesItOnceWhateverTheDuplicates() {
    FlowIsolation f = new FlowIsolation(settings(10, 60));
    assertThat(
            run(
                f,
                1_000,
                s("a", Kind.START, "198.18.1.10"),
                s("a", Kind.START, "198.18.1.10"),
                s("a", Kind.UPDATE, "198.18.1.10")))
        .containsExactly("ADD a");
    Rule r = book.active("a").orElseThrow();
    assertThat(r.commandId()).isEqualTo(CommandIds.add("r1", "a"));
    assertThat(r.expiresMs()).isEqualTo(1_000 + TTL);
    assertThat(r.thresholdVersion()).isEqualTo(7);
    assertThat(r.reason()).isEqualTo("cheetah a on esnet-a at 2.000 Gb/s");
    assertThat(run(f, 2_000, s("a", Kind.END, "198.18.1.10"), s("a", Kind.END, "198.18.1.10")))
        .containsExactly("REMOVE a (cheetah ended)");
    assertThat(book.allActive()).isEmpty();
  }

  @Test
  void anEndBeforeItsStartLeavesNoRule() {
    FlowIsolation f = new FlowIsolation(settings(10, 60));
    assertThat(run(f, 1_000, s("a", Kind.END, "198.18.1.10"), s("a", Kind.START, "198.18.1.10")))
        .isEmpty();
    assertThat(book.allActive()).isEmpty();
  }

  @Test
  void rulesExpireAtTheirTtlEvenWithoutAnEnd() {
    FlowIsolation f = new FlowIsolation(settings(10, 60));
    run(f, 0, s("a", Kind.START, "198.18.1.10"));
    assertThat(f.expire(book, TTL - 1)).isEmpty();
    assertThat(f.expire(book, TTL)).extracting(Decision::detail).containsExactly("rule expired");
    // The flow is still running: a later update isolates it again (the same add id).
    assertThat(run(f, TTL + 1, s("a", Kind.UPDATE, "198.18.1.10"))).containsExactly("ADD a");
  }

  @Test
  void protectedPrefixesAreNeverMatched() {
    FlowIsolation f = new FlowIsolation(settings(10, 60, "198.18.1.0/24", "2001:db8::/32"));
    assertThat(
            run(
                f,
                0,
                s("a", Kind.START, "198.18.1.10"),
                s("b", Kind.START, "2001:db8::1"),
                s("c", Kind.START, "198.18.3.1")))
        .containsExactly(
            "REFUSED a (protected prefix 198.18.1.0/24)",
            "REFUSED b (protected prefix 2001:db8::/32)",
            "ADD c");
  }

  @Test
  void atKActiveRulesTheNextIsRefusedOnceAndAddedWhenASlotFrees() {
    FlowIsolation f = new FlowIsolation(settings(2, 60));
    assertThat(
            run(
                f,
                0,
                s("a", Kind.START, "198.18.1.1"),
                s("b", Kind.START, "198.18.1.2"),
                s("c", Kind.START, "198.18.1.3"),
                s("c", Kind.UPDATE, "198.18.1.3")))
        .containsExactly("ADD a", "ADD b", "REFUSED c (device r1 has K = 2 active rules)");
    assertThat(run(f, 10, s("a", Kind.END, "198.18.1.1"), s("c", Kind.UPDATE, "198.18.1.3")))
        .containsExactly("REMOVE a (cheetah ended)", "ADD c");
  }

  @Test
  void theNewRuleRateIsATokenBucketPerMinute() {
    FlowIsolation f = new FlowIsolation(settings(100, 2));
    assertThat(
            run(
                f,
                0,
                s("a", Kind.START, "198.18.1.1"),
                s("b", Kind.START, "198.18.1.2"),
                s("c", Kind.START, "198.18.1.3")))
        .containsExactly("ADD a", "ADD b", "REFUSED c (rate limit of 2 new rules per minute)");
    // Two per minute: one token back after 30 s.
    assertThat(run(f, 29_999, s("d", Kind.START, "198.18.1.4")))
        .containsExactly("REFUSED d (rate limit of 2 new rules per minute)");
    assertThat(run(f, 30_000 + 29_999, s("e", Kind.START, "198.18.1.5"))).containsExactly("ADD e");
  }

  @Test
  void removeIdsDependOnlyOnTheAddTheyEnd() {
    Rule r =
        new Rule(
            "x",
            "r1",
            "a",
            "l",
            Address.parse("1.2.3.4"),
            Address.parse("1.2.3.5"),
            128,
            1,
            2,
            6,
            0,
            1,
            0,
            "");
    assertThat(Decision.remove(r, "cheetah ended").commandId())
        .isEqualTo(Decision.remove(r, "rule expired").commandId())
        .isNotEqualTo("x");
  }
}
