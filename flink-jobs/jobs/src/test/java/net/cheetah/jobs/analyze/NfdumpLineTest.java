package net.cheetah.jobs.analyze;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import net.cheetah.core.flow.Address;
import net.cheetah.schemas.goflow2.FlowMessage;
import org.junit.jupiter.api.Test;

/** Lines as nfdump 1.7.1 printed them here for a hand-built NetFlow v5 datagram. */
class NfdumpLineTest {
  static final String TCP =
      "1795321405.000|          59.999|                              127.0.0.1|                            198.18.1.10|"
          + "                            198.18.2.20| 50000|  2811|6    |    1000| 1500000| 64500| 64501|     1|     2|...AP.SF|  0";

  @Test
  void readsAFlowWithEndFromStartPlusDuration() throws Exception {
    FlowMessage m = NfdumpLine.parse(TCP).orElseThrow();
    assertThat(m.getTimeFlowStartNs()).isEqualTo(1_795_321_405_000L * 1_000_000);
    assertThat(m.getTimeFlowEndNs()).isEqualTo(1_795_321_464_999L * 1_000_000);
    assertThat(Address.fromBytes(m.getSrcAddr().toByteArray()).toString()).isEqualTo("198.18.1.10");
    assertThat(Address.fromBytes(m.getSamplerAddress().toByteArray()).toString())
        .isEqualTo("127.0.0.1");
    assertThat(m.getSrcPort()).isEqualTo(50000);
    assertThat(m.getDstPort()).isEqualTo(2811);
    assertThat(m.getProto()).isEqualTo(6);
    assertThat(m.getPackets()).isEqualTo(1000);
    assertThat(m.getBytes()).isEqualTo(1_500_000);
    assertThat(m.getSrcAs()).isEqualTo(64500);
    assertThat(m.getEtype()).isEqualTo(0x0800);
    // ...AP.SF = ACK|PSH|SYN|FIN = 0x10|0x08|0x02|0x01
    assertThat(m.getTcpFlags()).isEqualTo(0x1B);
  }

  /**
   * nfdump prints an ICMP flow's destination port as TYPE.CODE even with -N (here ICMPv6 neighbour
   * solicitation, 135.0, seen on a test's veth); the archive holds TYPE·256 + CODE.
   */
  @Test
  void icmpTypeAndCodeAreReadBackIntoThePort() throws Exception {
    String line =
        "1795696906.300|0.000|127.0.0.1|0:0:0:0:0:0:0:0|ff02:0:0:0:0:1:ff02:b4c|0|135.0|58|1|72|0|0"
            + "|0|0|........|0";
    FlowMessage m = NfdumpLine.parse(line).orElseThrow();
    assertThat(m.getDstPort()).isEqualTo(135 * 256);
    assertThat(NfdumpLine.parse(line.replace("|135.0|", "|3.13|")).orElseThrow().getDstPort())
        .isEqualTo(3 * 256 + 13);
    assertThatThrownBy(() -> NfdumpLine.parse(line.replace("|135.0|", "|256.0|")))
        .isInstanceOf(NfdumpLine.BadLine.class)
        .hasMessageContaining("0..255");
    assertThatThrownBy(() -> NfdumpLine.parse(line.replace("|135.0|", "|1.x|")))
        .isInstanceOf(NfdumpLine.BadLine.class)
        .hasMessageContaining("ICMP code");
  }

  @Test
  void ipv6AddressesAreKept() throws Exception {
    String line = TCP.replace("198.18.1.10", "2001:db8::1").replace("198.18.2.20", "2001:db8::2");
    FlowMessage m = NfdumpLine.parse(line).orElseThrow();
    assertThat(m.getSrcAddr().size()).isEqualTo(16);
    assertThat(m.getEtype()).isEqualTo(0x86DD);
  }

  @Test
  void blankLinesAreSkipped() throws Exception {
    assertThat(NfdumpLine.parse("  ")).isEmpty();
  }

  /** nfdump -q prints it for an archive without flows: not a flow, and not a bad line either. */
  @Test
  void nfdumpsNoMatchingFlowsIsNotAFlowLine() throws Exception {
    assertThat(NfdumpLine.parse("No matching flows")).isEmpty();
  }

  @Test
  void badLinesSayWhatIsWrong() {
    assertThatThrownBy(() -> NfdumpLine.parse("Summary: total flows: 2"))
        .isInstanceOf(NfdumpLine.BadLine.class)
        .hasMessageContaining("16");
    assertThatThrownBy(() -> NfdumpLine.parse(TCP.replace("1000|", "-5|")))
        .hasMessageContaining("packets");
    assertThatThrownBy(() -> NfdumpLine.parse(TCP.replace("198.18.1.10", "host.example")))
        .hasMessageContaining("not an IP address");
    assertThatThrownBy(() -> NfdumpLine.parse(TCP.replace("59.999", "59.9999")))
        .hasMessageContaining("duration");
  }
}
