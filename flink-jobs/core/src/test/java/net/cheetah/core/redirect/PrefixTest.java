package net.cheetah.core.redirect;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import net.cheetah.core.flow.Address;
import org.junit.jupiter.api.Test;

class PrefixTest {
  @Test
  void ipv4PrefixesAreIpv4MappedAndMatchTheirAddressesOnly() {
    Prefix p = Prefix.parse("198.18.1.0/24");
    assertThat(p.length()).isEqualTo(120);
    assertThat(p.contains(Address.parse("198.18.1.255"))).isTrue();
    assertThat(p.contains(Address.parse("198.18.2.0"))).isFalse();
    assertThat(p.toString()).isEqualTo("198.18.1.0/24");
    assertThat(Prefix.parse("198.18.1.77/24")).isEqualTo(p);
  }

  @Test
  void ipv6AndHostPrefixes() {
    assertThat(Prefix.parse("2001:db8::/32").contains(Address.parse("2001:db8:ffff::1"))).isTrue();
    assertThat(Prefix.parse("2001:db8::/32").contains(Address.parse("2001:db9::1"))).isFalse();
    assertThat(Prefix.parse("192.0.2.7").contains(Address.parse("192.0.2.7"))).isTrue();
    assertThat(Prefix.parse("0.0.0.0/0").contains(Address.parse("203.0.113.1"))).isTrue();
    assertThat(Prefix.parse("::/0").contains(Address.parse("2001:db8::1"))).isTrue();
    assertThat(Prefix.parse("198.18.0.0/15").overlaps(Prefix.parse("198.19.4.0/24"))).isTrue();
  }

  @Test
  void badPrefixesSayWhy() {
    assertThatThrownBy(() -> Prefix.parse("198.18.0.0/33"))
        .hasMessageContaining("IPv4 prefix length");
    assertThatThrownBy(() -> Prefix.parse("198.18.0.0/x")).hasMessageContaining("not a prefix");
  }
}
