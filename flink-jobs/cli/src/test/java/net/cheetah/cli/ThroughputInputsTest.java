package net.cheetah.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import net.cheetah.analytics.throughput.Transfer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The transfers.v1 lines and hosts.csv rows `cheetah throughput` reads, good and bad. */
class ThroughputInputsTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  static Transfer parse(String json) throws Exception {
    return ThroughputInputs.transfer(JSON.readTree(json));
  }

  @Test
  void aShippedRecord() throws Exception {
    Transfer t =
        parse(
            "{\"src_host\":\"10.0.1.1\",\"dst_host\":\"10.0.2.1\",\"tool\":\"iperf3\",\"streams\":2,"
                + "\"bytes\":\"250000000\",\"seconds\":10.0,\"start_ms\":1000,\"end_ms\":11000,"
                + "\"tcp_buffer_bytes\":262144}");
    assertThat(t)
        .isEqualTo(
            new Transfer(
                "10.0.1.1", "10.0.2.1", "iperf3", 2, 250_000_000, 10.0, 1000, 11_000, 262_144));
    assertThat(t.activeBps()).isEqualTo(200e6); // 250e6 x 8 / 10
  }

  @Test
  void optionalFieldsDefaultToZero() throws Exception {
    Transfer t =
        parse(
            "{\"src_host\":\"a\",\"dst_host\":\"b\",\"tool\":\"scp\",\"bytes\":1,\"seconds\":0,\"start_ms\":5,\"end_ms\":5}");
    assertThat(t.streams()).isZero();
    assertThat(t.bufferBytes()).isZero();
    assertThat(t.activeBps()).isNaN(); // no elapsed time: no rate
  }

  @Test
  void badRecordsNameTheirField() {
    String ok =
        "\"src_host\":\"a\",\"dst_host\":\"b\",\"tool\":\"t\",\"seconds\":1,\"start_ms\":0,\"end_ms\":1000";
    assertThatThrownBy(() -> parse("{" + ok + "}")).hasMessage("bytes must be a whole number");
    assertThatThrownBy(() -> parse("{" + ok + ",\"bytes\":-5}")).hasMessage("bytes must be >= 0");
    assertThatThrownBy(() -> parse("{" + ok + ",\"bytes\":1,\"streams\":-1}"))
        .hasMessage("streams must be >= 0");
    // uint64 above a Java long: refused, not wrapped.
    assertThatThrownBy(() -> parse("{" + ok + ",\"bytes\":18446744073709551615}"))
        .hasMessage("bytes 18446744073709551615 is too large (at most 9223372036854775807)");
    assertThatThrownBy(
            () ->
                parse(
                    "{"
                        + ok.replace("\"end_ms\":1000", "\"end_ms\":0")
                            .replace("\"start_ms\":0", "\"start_ms\":9")
                        + ",\"bytes\":1}"))
        .hasMessage("end_ms 0 is before start_ms 9");
    assertThatThrownBy(
            () ->
                parse(
                    "{" + ok.replace("\"src_host\":\"a\"", "\"src_host\":\" \"") + ",\"bytes\":1}"))
        .hasMessage("src_host is missing or empty");
    assertThatThrownBy(() -> parse("[1]")).hasMessage("a line must be a JSON object");
  }

  @Test
  void hostsCsvRowsAndRejects(@TempDir Path dir) throws Exception {
    Files.writeString(
        dir.resolve("hosts.csv"),
        ThroughputInputs.HOSTS_HEADER
            + "\n10.0.2.7,1000,20,99,,1e9\n10.0.2.7,x,1,2,3,0\n,5,1,1,1,0\n");
    ThroughputInputs in = new ThroughputInputs();
    var samples = in.hosts(dir);
    assertThat(samples)
        .singleElement()
        .satisfies(
            s -> {
              assertThat(s.host()).isEqualTo("10.0.2.7");
              assertThat(s.diskPercent()).isEqualTo(99);
              assertThat(s.nicPercent()).isNaN();
              assertThat(s.nicBps()).isEqualTo(1e9);
            });
    assertThat(in.rejected).hasSize(2).allMatch(l -> l.startsWith("bad_host_sample: "));
  }

  @Test
  void aHostsCsvWithAnotherHeaderIsRejectedWhole(@TempDir Path dir) throws Exception {
    Files.writeString(dir.resolve("hosts.csv"), "host,cpu\n10.0.2.7,5\n");
    ThroughputInputs in = new ThroughputInputs();
    assertThat(in.hosts(dir)).isEmpty();
    assertThat(in.rejected).singleElement().asString().startsWith("bad_header: ");
  }
}
