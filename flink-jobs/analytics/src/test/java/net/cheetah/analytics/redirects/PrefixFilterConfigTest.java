package net.cheetah.analytics.redirects;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import java.util.Optional;
import net.cheetah.config.CheetahConfig;
import net.cheetah.core.redirect.RedirectSettings;
import org.junit.jupiter.api.Test;

/** redirects.prefix-filter-* keys: off by default, 30 days, and errors that name the key. */
class PrefixFilterConfigTest {
  static RedirectSettings load(Map<String, String> set) {
    return CheetahConfig.load(Optional.empty(), set).redirects().settings();
  }

  @Test
  void prefixFiltersAreOffByDefaultAndAgeOutAfterThirtyDays() {
    RedirectSettings s = load(Map.of());
    assertThat(s.prefixFiltersOn()).isFalse();
    assertThat(s.prefixFilterAgeMs()).isEqualTo(30L * 86_400_000);
  }

  @Test
  void lengthsMapToIpv6Lengths() {
    RedirectSettings s24 = load(Map.of("redirects.prefix-filter-length", "24"));
    RedirectSettings s32 = load(Map.of("redirects.prefix-filter-length", "32"));
    net.cheetah.core.flow.Address v4 = net.cheetah.core.flow.Address.parse("198.18.1.10");
    net.cheetah.core.flow.Address v6 = net.cheetah.core.flow.Address.parse("2001:db8::1");
    assertThat(new int[] {s24.filterLengthFor(v4), s24.filterLengthFor(v6)})
        .containsExactly(120, 48);
    assertThat(new int[] {s32.filterLengthFor(v4), s32.filterLengthFor(v6)})
        .containsExactly(128, 128);
  }

  @Test
  void badValuesNameTheKeyAndTheChoices() {
    assertThatThrownBy(() -> load(Map.of("redirects.prefix-filter-length", "16")))
        .isInstanceOf(CheetahConfig.ConfigException.class)
        .hasMessageContaining("redirects.prefix-filter-length")
        .hasMessageContaining("0 (off), 24")
        .hasMessageContaining("got 16");
    assertThatThrownBy(() -> load(Map.of("redirects.prefix-filter-age-ms", "2592000001")))
        .hasMessageContaining("redirects.prefix-filter-age-ms")
        .hasMessageContaining("kept 31 days");
    assertThatThrownBy(() -> load(Map.of("redirects.prefix-filter-age-ms", "0")))
        .hasMessageContaining("redirects.prefix-filter-age-ms");
  }
}
