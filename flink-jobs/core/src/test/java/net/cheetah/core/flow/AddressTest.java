package net.cheetah.core.flow;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class AddressTest {
  @Test
  void ipv6IsPrintedInRfc5952Form() {
    assertThat(Address.parse("2001:db8:0:0:0:0:0:1")).hasToString("2001:db8::1");
    assertThat(Address.parse("::")).hasToString("::");
    assertThat(Address.parse("::1")).hasToString("::1");
    assertThat(Address.parse("2001:db8:0:1:0:0:0:1")).hasToString("2001:db8:0:1::1");
    // The first of two equally long zero runs is compressed; a single zero group is not.
    assertThat(Address.parse("1:0:0:1:0:0:1:1")).hasToString("1::1:0:0:1:1");
    assertThat(Address.parse("1:0:1:1:1:1:1:1")).hasToString("1:0:1:1:1:1:1:1");
    assertThat(Address.parse("FE80::ABCD")).hasToString("fe80::abcd");
  }

  @Test
  void ipv4MappedAddressesPrintAsIpv4() {
    assertThat(Address.parse("198.18.1.10")).hasToString("198.18.1.10");
  }
}
