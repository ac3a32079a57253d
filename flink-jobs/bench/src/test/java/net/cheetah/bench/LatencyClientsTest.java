package net.cheetah.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** What the latency benchmark hands to its clients' JVM, and what it reads back from it. */
class LatencyClientsTest {
  @Test
  void theClientsGetTheFeedingOptionsTheBenchmarkWasGiven() {
    LatencyBenchmark.Options o =
        LatencyBenchmark.Options.parse(
            new String[] {
              "--probe-linger-ms", "7", "--seconds", "600", "--rate", "1500",
              "--probe-every-ms", "100", "--checkpoint-ms", "5000", "--partitions", "3",
              "--phases", "at-once"
            });
    LatencyBenchmark.Options c =
        LatencyBenchmark.Options.parse(o.clientArgs().toArray(String[]::new));
    assertThat(List.of(c.seconds(), c.rate(), c.probeLingerMs(), c.partitions()))
        .containsExactly(600, 1500, 7, 3);
    assertThat(List.of(c.probeEveryMs(), c.checkpointMs())).containsExactly(100L, 5000L);
  }

  @Test
  void aFlowSeenComesBackAsItWasNotedNotSeenTimesIncluded() {
    LatencyClients.Seen s = new LatencyClients.Seen();
    s.probe = true;
    s.detectedMs = 1_795_000_000_123.25;
    s.commandMs = 1_795_000_000_140.5;
    var back = LatencyClients.Seen.parse(s.line("bench-probe-7")).orElseThrow();
    assertThat(back.getKey()).isEqualTo("bench-probe-7");
    assertThat(back.getValue().probe).isTrue();
    assertThat(back.getValue().detectedMs).isEqualTo(1_795_000_000_123.25);
    assertThat(back.getValue().onTopicMs).isNaN();
    assertThat(back.getValue().commandMs).isEqualTo(1_795_000_000_140.5);
    assertThat(LatencyClients.Seen.parse("latency: sent 60,000 goflow2 messages")).isEmpty();
  }
}
