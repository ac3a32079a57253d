package net.cheetah.analytics.redirects;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Arrays;
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

/** Prefix filters from α flows, with event sequences and expected times worked out by hand. */
class PrefixFiltersTest {
  static final long DAY = 86_400_000L;
  static final long AGE = 30 * DAY;
  static final long HOUR = 3_600_000L; // the renew window at a 30-day age
  static final long T0 = 1_700_000_000_000L; // 2023-11-14T22:13:20Z
  static final String EXPORTER = "10.0.0.1";
  static final String PAIR = "prefix 198.18.1.0/24→198.18.2.0/24";

  static RedirectSettings settings(int length, int k, int perMinute, String... protectedPrefixes) {
    return new RedirectSettings(
        Map.of(EXPORTER, "r1"),
        Set.of(),
        Arrays.stream(protectedPrefixes).map(Prefix::parse).toList(),
        k,
        perMinute,
        600_000,
        false,
        0,
        length,
        AGE);
  }

  static RedirectSettings on24() {
    return settings(24, 100, 60);
  }

  static CheetahSighting alpha(String flow, Kind kind, String src, String dst, long eventMs) {
    return new CheetahSighting(
        flow,
        kind,
        EXPORTER,
        Address.parse(src),
        Address.parse(dst),
        40000,
        5201,
        6,
        2e9,
        0,
        true,
        eventMs);
  }

  static CheetahSighting alpha(String flow, long eventMs) {
    return alpha(flow, Kind.START, "198.18.1.10", "198.18.2.20", eventMs);
  }

  private final MemoryRuleBook book = new MemoryRuleBook();

  private static List<String> show(List<Decision> ds) {
    List<String> out = new ArrayList<>();
    for (Decision d : ds) {
      out.add(
          d.kind()
              + " "
              + d.rule().cause()
              + " until "
              + (d.rule().expiresMs() - T0) / 1000
              + "s"
              + (d.detail().isEmpty() ? "" : " (" + d.detail() + ")"));
    }
    return out;
  }

  private List<String> run(PrefixFilters f, long now, CheetahSighting... events) {
    List<Decision> out = new ArrayList<>();
    for (CheetahSighting e : events) {
      out.addAll(f.on(e, "r1", book, now));
    }
    return show(out);
  }

  @Test
  void anAlphaFlowAddsAFilterOnItsSlash24PairAtTheExportersDevice() {
    PrefixFilters f = new PrefixFilters(on24());
    List<Decision> ds = f.on(alpha("f1", T0), "r1", book, T0 + 5_000);
    assertThat(show(ds)).containsExactly("ADD " + PAIR + " until 2592000s");
    Rule r = ds.get(0).rule();
    assertThat(List.of(r.deviceId(), r.link(), r.src().toString(), r.dst().toString()))
        .containsExactly("r1", EXPORTER, "198.18.1.0", "198.18.2.0");
    assertThat(r.prefixLen()).isEqualTo(120);
    assertThat(List.of(r.srcPort(), r.dstPort(), r.proto())).containsExactly(0, 0, 0);
    assertThat(r.isPrefixFilter()).isTrue();
    assertThat(r.issuedMs()).isEqualTo(T0 + 5_000);
    assertThat(r.expiresMs()).isEqualTo(T0 + AGE); // the α flow's time + 30 days
    assertThat(r.commandId()).isEqualTo(CommandIds.add("r1", PAIR + "@" + (T0 + AGE)));
    assertThat(r.reason()).isEqualTo(PAIR + ": α flow f1 from 10.0.0.1 at 2.000 Gb/s");
    assertThat(book.lastAlpha(PAIR)).hasValue(T0);
  }

  @Test
  void aLaterAlphaFlowOfThePairChangesNothingOnTheDeviceButMovesItsNewestAlphaTime() {
    PrefixFilters f = new PrefixFilters(on24());
    run(f, T0, alpha("f1", T0));
    assertThat(
            run(
                f,
                T0 + 2 * DAY,
                alpha("f2", Kind.START, "198.18.1.99", "198.18.2.1", T0 + 2 * DAY),
                alpha("f2", Kind.UPDATE, "198.18.1.99", "198.18.2.1", T0 + 2 * DAY - 60_000),
                alpha("f1", Kind.START, "198.18.1.10", "198.18.2.20", T0))) // a replay
        .isEmpty();
    assertThat(book.allActive()).hasSize(1);
    assertThat(book.lastAlpha(PAIR)).hasValue(T0 + 2 * DAY); // the newest, whatever the order
  }

  @Test
  void thirtyDaysWithoutAnAlphaFlowRemoveTheFilter() {
    PrefixFilters f = new PrefixFilters(on24());
    run(f, T0, alpha("f1", T0));
    assertThat(f.review(book, T0 + AGE - HOUR)).isEmpty(); // in the renew window, nothing new
    assertThat(f.review(book, T0 + AGE - 1)).isEmpty();
    assertThat(show(f.review(book, T0 + AGE)))
        .containsExactly(
            "REMOVE " + PAIR + " until 2592000s (aged out: no α flow since 2023-11-14T22:13:20Z)");
    assertThat(book.allActive()).isEmpty();
    assertThat(book.lastAlpha(PAIR)).isEmpty();
  }

  @Test
  void aFilterIsRenewedOneRenewWindowBeforeExpiryWithANewIdWhenAnAlphaFlowCameSince() {
    PrefixFilters f = new PrefixFilters(on24());
    run(f, T0, alpha("f1", T0));
    String firstId = book.active(PAIR).orElseThrow().commandId();
    run(f, T0 + 10 * DAY, alpha("f2", T0 + 10 * DAY));
    assertThat(f.review(book, T0 + AGE - HOUR - 1)).isEmpty();
    List<Decision> renewal = f.review(book, T0 + AGE - HOUR);
    assertThat(show(renewal))
        .containsExactly(
            "REMOVE " + PAIR + " until 2592000s (renewed until 2023-12-24T22:13:20Z)",
            "ADD " + PAIR + " until 3456000s"); // 40 days after T0 = f2 + 30 days
    assertThat(renewal.get(0).rule().commandId()).isEqualTo(firstId);
    assertThat(renewal.get(1).commandId())
        .isEqualTo(CommandIds.add("r1", PAIR + "@" + (T0 + 40 * DAY)))
        .isNotEqualTo(firstId);
    assertThat(renewal.get(1).rule().issuedMs()).isEqualTo(T0 + AGE - HOUR);
    assertThat(renewal.get(1).rule().reason())
        .isEqualTo(PAIR + ": renewed, newest α flow at 2023-11-24T22:13:20Z");
    // The renewed generation ages out 30 days after f2 when nothing else comes.
    assertThat(f.review(book, T0 + AGE)).isEmpty();
    assertThat(show(f.review(book, T0 + 40 * DAY)))
        .containsExactly(
            "REMOVE " + PAIR + " until 3456000s (aged out: no α flow since 2023-11-24T22:13:20Z)");
  }

  @Test
  void anAlphaFlowInsideTheRenewWindowRenewsAtOnce() {
    PrefixFilters f = new PrefixFilters(on24());
    run(f, T0, alpha("f1", T0));
    long now = T0 + AGE - 10 * 60_000; // 10 minutes before expiry, after the renew timer
    assertThat(f.review(book, now)).isEmpty();
    assertThat(run(f, now, alpha("f2", now - 60_000)))
        .containsExactly(
            "REMOVE " + PAIR + " until 2592000s (renewed until 2024-01-13T22:02:20Z)",
            "ADD " + PAIR + " until 5183340s"); // f2 + 30 days = T0 + 60 days - 11 min
  }

  @Test
  void aFilterTouchingAProtectedPrefixIsRefusedWithTheReason() {
    // 198.18.1.7 is protected: a /24 filter on 198.18.1.0 would match it, the flow itself not.
    PrefixFilters f = new PrefixFilters(settings(24, 100, 60, "198.18.1.7", "203.0.113.0/24"));
    assertThat(
            run(
                f,
                T0,
                alpha("f1", T0),
                alpha("f2", Kind.START, "198.18.3.1", "203.0.113.200", T0),
                alpha("f3", Kind.START, "198.18.4.1", "198.18.5.1", T0)))
        .containsExactly(
            "REFUSED " + PAIR + " until 2592000s (protected prefix 198.18.1.7/32)",
            "REFUSED prefix 198.18.3.0/24→203.0.113.0/24 until 2592000s"
                + " (protected prefix 203.0.113.0/24)",
            "ADD prefix 198.18.4.0/24→198.18.5.0/24 until 2592000s");
    // A filter inside a protected block is refused too.
    PrefixFilters wide = new PrefixFilters(settings(24, 100, 60, "198.18.0.0/16"));
    assertThat(run(wide, T0, alpha("f4", Kind.START, "10.9.9.9", "198.18.200.1", T0)))
        .containsExactly(
            "REFUSED prefix 10.9.9.0/24→198.18.200.0/24 until 2592000s"
                + " (protected prefix 198.18.0.0/16)");
  }

  @Test
  void atKTheNextFilterIsRefusedOnceAndAddedByALaterAlphaFlowWhenASlotFrees() {
    PrefixFilters f = new PrefixFilters(settings(24, 1, 60));
    assertThat(
            run(
                f,
                T0,
                alpha("f1", T0),
                alpha("f2", Kind.START, "198.18.7.1", "198.18.8.1", T0),
                alpha("f2", Kind.UPDATE, "198.18.7.1", "198.18.8.1", T0)))
        .containsExactly(
            "ADD " + PAIR + " until 2592000s",
            "REFUSED prefix 198.18.7.0/24→198.18.8.0/24 until 2592000s"
                + " (device r1 has K = 1 active rules)");
    f.review(book, T0 + AGE); // the first filter ages out
    assertThat(
            run(
                f,
                T0 + AGE,
                alpha("f2", Kind.UPDATE, "198.18.7.1", "198.18.8.1", T0 + AGE - 1_000)))
        .containsExactly("ADD prefix 198.18.7.0/24→198.18.8.0/24 until 5183999s");
  }

  @Test
  void probeCheetahsEndedFlowsStaleAlphaFlowsAndFiltersOffBuildNothing() {
    PrefixFilters f = new PrefixFilters(on24());
    CheetahSighting probe =
        new CheetahSighting(
            "p1",
            Kind.START,
            "esnet-a",
            Address.parse("198.18.1.10"),
            Address.parse("198.18.2.20"),
            40000,
            5201,
            6,
            2e9,
            3,
            false,
            T0);
    assertThat(run(f, T0, probe)).isEmpty();
    assertThat(run(f, T0, alpha("f1", Kind.END, "198.18.1.10", "198.18.2.20", T0))).isEmpty();
    assertThat(run(f, T0 + AGE, alpha("old", T0))).isEmpty(); // aged out before it arrived
    assertThat(run(new PrefixFilters(settings(0, 100, 60)), T0, alpha("f1", T0))).isEmpty();
    assertThat(book.allActive()).isEmpty();
  }

  @Test
  void ipv6PairsUseSlash48AndTheSlash32OptionBuildsHostPairs() {
    PrefixFilters f = new PrefixFilters(on24());
    List<Decision> v6 =
        f.on(alpha("f6", Kind.START, "2001:db8:1:2::5", "2001:db8:ff:1::9", T0), "r1", book, T0);
    assertThat(show(v6))
        .containsExactly("ADD prefix 2001:db8:1::/48→2001:db8:ff::/48 until 2592000s");
    assertThat(v6.get(0).rule().prefixLen()).isEqualTo(48);

    MemoryRuleBook hosts = new MemoryRuleBook();
    PrefixFilters f32 = new PrefixFilters(settings(32, 100, 60));
    List<Decision> h4 = f32.on(alpha("f1", T0), "r1", hosts, T0);
    List<Decision> h6 =
        f32.on(alpha("f6", Kind.START, "2001:db8:1:2::5", "2001:db8:ff:1::9", T0), "r1", hosts, T0);
    assertThat(show(h4)).containsExactly("ADD prefix 198.18.1.10/32→198.18.2.20/32 until 2592000s");
    assertThat(h4.get(0).rule().prefixLen()).isEqualTo(128);
    assertThat(show(h6))
        .containsExactly("ADD prefix 2001:db8:1:2::5/128→2001:db8:ff:1::9/128 until 2592000s");
  }

  @Test
  void anAlphaTimeAheadOfTheClockCountsAsNow() {
    // An exporter clock a day ahead must not stretch the filter beyond the age.
    PrefixFilters f = new PrefixFilters(on24());
    assertThat(run(f, T0, alpha("f1", T0 + DAY)))
        .containsExactly("ADD " + PAIR + " until 2592000s");
  }

  @Test
  void theSameAlphaFlowGivesTheSameIdWhenEverItIsProcessed() {
    // A replay after a restart runs at another processing time: the id must not change.
    PrefixFilters f = new PrefixFilters(on24());
    String first = f.on(alpha("f1", T0), "r1", new MemoryRuleBook(), T0 + 1_000).get(0).commandId();
    String replay =
        f.on(alpha("f1", T0), "r1", new MemoryRuleBook(), T0 + 90_000).get(0).commandId();
    assertThat(replay).isEqualTo(first);
  }

  @Test
  void aRenewalNowTouchingAProtectedPrefixRemovesTheFilterAndRecordsTheRefusal() {
    PrefixFilters before = new PrefixFilters(on24());
    run(before, T0, alpha("f1", T0));
    run(before, T0 + DAY, alpha("f2", T0 + DAY));
    // Restarted with 198.18.2.0/25 protected.
    PrefixFilters f = new PrefixFilters(settings(24, 100, 60, "198.18.2.0/25"));
    assertThat(show(f.review(book, T0 + AGE - HOUR)))
        .containsExactly(
            "REMOVE " + PAIR + " until 2592000s (protected prefix 198.18.2.0/25)",
            "REFUSED " + PAIR + " until 2678400s (protected prefix 198.18.2.0/25)");
    assertThat(book.allActive()).isEmpty();
  }
}
