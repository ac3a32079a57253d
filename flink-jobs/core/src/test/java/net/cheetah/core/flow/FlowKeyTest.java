package net.cheetah.core.flow;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class FlowKeyTest {
  private static FlowKey key(String exporter, String src, String dst, int sp, int dp, int proto) {
    return new FlowKey(
        Address.parse(exporter), Address.parse(src), Address.parse(dst), sp, dp, proto);
  }

  /**
   * The hash codes are those the JDK generated for the records before equals and hashCode were
   * written out (printed with JDK 17 from commit 0a3d998): a key's hash picks its key group, so a
   * different one would strand every key of an existing checkpoint or savepoint in a group where
   * the restored job never looks.
   */
  @Test
  void hashCodesAreTheRecordsOwn() {
    FlowKey v4 = key("192.0.2.1", "10.1.2.3", "10.9.8.7", 443, 51234, 6);
    FlowKey v6 = key("2001:db8::1", "2001:db8:1::42", "fe80::1", 0, 65535, 17);
    FlowKey edge = key("0.0.0.0", "255.255.255.255", "::", 1, 2, 255);
    assertThat(v4.hashCode()).isEqualTo(105697509);
    assertThat(v6.hashCode()).isEqualTo(514852146);
    assertThat(edge.hashCode()).isEqualTo(-1083626401);
    assertThat(new int[] {v4.src().hashCode(), v4.dst().hashCode()})
        .containsExactly(167902716, 168425464);
    assertThat(new int[] {v6.src().hashCode(), v6.dst().hashCode()})
        .containsExactly(-536761974, -780140543);
    assertThat(new int[] {edge.src().hashCode(), edge.dst().hashCode()}).containsExactly(-65536, 0);
  }

  @Test
  void equalWhenEveryComponentIs() {
    FlowKey k = key("192.0.2.1", "10.1.2.3", "10.9.8.7", 443, 51234, 6);
    assertThat(k).isEqualTo(key("192.0.2.1", "10.1.2.3", "10.9.8.7", 443, 51234, 6));
    assertThat(k).isNotEqualTo(key("192.0.2.2", "10.1.2.3", "10.9.8.7", 443, 51234, 6));
    assertThat(k).isNotEqualTo(key("192.0.2.1", "10.1.2.4", "10.9.8.7", 443, 51234, 6));
    assertThat(k).isNotEqualTo(key("192.0.2.1", "10.1.2.3", "10.9.8.8", 443, 51234, 6));
    assertThat(k).isNotEqualTo(key("192.0.2.1", "10.1.2.3", "10.9.8.7", 444, 51234, 6));
    assertThat(k).isNotEqualTo(key("192.0.2.1", "10.1.2.3", "10.9.8.7", 443, 51235, 6));
    assertThat(k).isNotEqualTo(key("192.0.2.1", "10.1.2.3", "10.9.8.7", 443, 51234, 17));
    // Source and destination are not interchangeable; IPv4 is not its IPv6 look-alike.
    assertThat(k).isNotEqualTo(key("192.0.2.1", "10.9.8.7", "10.1.2.3", 443, 51234, 6));
    assertThat(Address.parse("10.1.2.3")).isNotEqualTo(Address.parse("::10.1.2.3"));
    assertThat(k).isNotEqualTo(null).isNotEqualTo("a string");
  }
}
