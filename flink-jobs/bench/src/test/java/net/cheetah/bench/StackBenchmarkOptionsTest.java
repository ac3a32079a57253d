package net.cheetah.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The options of `run.sh stack` (the benchmark itself is not a test: it is run by hand). */
class StackBenchmarkOptionsTest {

  @Test
  void defaultsAndValues() {
    StackBenchmark.Options d = StackBenchmark.Options.parse(new String[] {"--cheetah", "./x"});
    assertThat(d.records()).isEqualTo(1_000_000);
    assertThat(d.timeoutS()).isEqualTo(900);
    assertThat(d.keep()).isFalse();
    assertThat(d.sets()).isEmpty();

    StackBenchmark.Options o =
        StackBenchmark.Options.parse(
            new String[] {
              "--cheetah",
              "/a/cheetah",
              "--records",
              "10_000",
              "--timeout-s",
              "60",
              "--keep-data",
              "--set",
              "flink.checkpoint-interval-ms=5000"
            });
    assertThat(o.records()).isEqualTo(10_000);
    assertThat(o.cheetah()).isEqualTo(Path.of("/a/cheetah"));
    assertThat(o.timeoutS()).isEqualTo(60);
    assertThat(o.keep()).isTrue();
    assertThat(o.sets()).isEqualTo(Map.of("flink.checkpoint-interval-ms", "5000"));
  }

  @Test
  void badOptionsSayWhatIsWrong() {
    assertThatThrownBy(() -> parse("--cheetah", "c", "--bogus"))
        .hasMessageStartingWith("unknown option --bogus");
    assertThatThrownBy(() -> parse("--cheetah", "c", "--records", "many"))
        .hasMessageStartingWith("--records needs a whole number, got 'many'");
    assertThatThrownBy(() -> parse("--cheetah", "c", "--records"))
        .hasMessageStartingWith("--records needs a value");
    assertThatThrownBy(() -> parse("--cheetah", "c", "--records", "0"))
        .hasMessageStartingWith("need --records >= 1");
    assertThatThrownBy(() -> parse("--records", "5")).hasMessageStartingWith("need --cheetah PATH");
    assertThatThrownBy(() -> parse("--cheetah", "c", "--set", "novalue"))
        .hasMessageStartingWith("--set needs KEY=VALUE");
    // The ports and the data directory are the benchmark's: a fixed one could collide.
    for (String key : StackBenchmark.OWN_PORTS) {
      assertThatThrownBy(() -> parse("--cheetah", "c", "--set", key + "=1"))
          .hasMessageContaining("the benchmark chooses it");
    }
    assertThatThrownBy(() -> parse("--cheetah", "c", "--set", "data-dir=/tmp/x"))
        .hasMessageContaining("the benchmark chooses it");
    assertThatThrownBy(() -> parse("--help")).isInstanceOf(StackBenchmark.Help.class);
  }

  private static StackBenchmark.Options parse(String... args) {
    return StackBenchmark.Options.parse(args);
  }
}
