package net.cheetah.analytics.redirects;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.Set;
import net.cheetah.core.flow.Address;
import net.cheetah.core.redirect.CheetahSighting;
import net.cheetah.core.redirect.CheetahSighting.Kind;
import net.cheetah.core.redirect.Decision;
import net.cheetah.core.redirect.RedirectSettings;
import org.junit.jupiter.api.Test;

/** Per-flow isolation and prefix filters on one device share its K and its rate limit. */
class RedirectDeciderTest {
  static final long T0 = PrefixFiltersTest.T0;

  static RedirectSettings settings(int k, int perMinute) {
    return new RedirectSettings(
        Map.of("10.0.0.1", "r1"),
        Set.of(),
        List.of(),
        k,
        perMinute,
        600_000,
        false,
        0,
        24,
        PrefixFiltersTest.AGE);
  }

  private static List<String> kinds(List<Decision> ds) {
    return ds.stream()
        .map(d -> d.kind() + (d.rule().isPrefixFilter() ? " filter" : " flow") + " " + d.detail())
        .map(String::trim)
        .toList();
  }

  @Test
  void anAlphaFlowIsIsolatedAndFilteredAndBothCountAgainstK() {
    RedirectDecider d = new RedirectDecider(settings(1, 60));
    MemoryRuleBook book = new MemoryRuleBook();
    assertThat(kinds(d.on(PrefixFiltersTest.alpha("f1", T0), "r1", book, T0)))
        .containsExactly("ADD flow", "REFUSED filter device r1 has K = 1 active rules");
  }

  @Test
  void theyShareTheNewRuleRate() {
    RedirectDecider d = new RedirectDecider(settings(10, 1));
    MemoryRuleBook book = new MemoryRuleBook();
    assertThat(kinds(d.on(PrefixFiltersTest.alpha("f1", T0), "r1", book, T0)))
        .containsExactly("ADD flow", "REFUSED filter rate limit of 1 new rules per minute");
  }

  @Test
  void flowRulesExpireByTheirTtlWhileFiltersLiveUntilTheirAge() {
    RedirectDecider d = new RedirectDecider(settings(10, 60));
    MemoryRuleBook book = new MemoryRuleBook();
    List<Decision> added = d.on(PrefixFiltersTest.alpha("f1", T0), "r1", book, T0);
    assertThat(d.wakeUps(added.get(0).rule())).containsExactly(T0 + 600_000);
    assertThat(d.wakeUps(added.get(1).rule()))
        .containsExactly(T0 + PrefixFiltersTest.AGE - 3_600_000, T0 + PrefixFiltersTest.AGE);
    assertThat(kinds(d.expire(book, T0 + 600_000))).containsExactly("REMOVE flow rule expired");
    assertThat(book.allActive()).hasSize(1);
    assertThat(d.expire(book, T0 + PrefixFiltersTest.AGE).get(0).detail()).startsWith("aged out");
    // A probe cheetah on the same pair isolates its flow, builds no filter.
    CheetahSighting probe =
        new CheetahSighting(
            "p1",
            Kind.START,
            "10.0.0.1",
            Address.parse("198.18.1.10"),
            Address.parse("198.18.2.20"),
            1,
            2,
            6,
            2e9,
            3,
            false,
            T0);
    assertThat(kinds(d.on(probe, "r1", book, T0 + PrefixFiltersTest.AGE)))
        .containsExactly("ADD flow");
  }
}
