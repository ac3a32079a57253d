package net.cheetah.cli.simulate;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** The CLI as a user runs it: output per point, JSON, errors, the report's figures. */
class SimulateCommandTest {
  private record Run(int code, String out, String err) {}

  private static Run run(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    CommandLine cli = new CommandLine(new SimulateCommand());
    cli.setOut(new PrintWriter(out));
    cli.setErr(new PrintWriter(err));
    int code = cli.execute(args);
    return new Run(code, out.toString(), err.toString());
  }

  @Test
  void sweepPrintsOneRowPerPointWithMeanAndInterval() {
    Run r =
        run(
            "--cheetah-rate",
            "300M,500M",
            "--rtt-ms",
            "10",
            "--lambda",
            "50,600",
            "--runs",
            "2",
            "--duration-s",
            "3",
            "--warmup-s",
            "1");
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(r.out().lines().filter(l -> l.matches("\\s+\\d.*±.*"))).hasSize(4);
    assertThat(r.out()).contains("bg_loss (mean ± ci95)").contains("300.0").contains("600.0");
  }

  @Test
  void jsonRedirectPrintsTheThroughputRatio() {
    Run r =
        run(
            "--redirect",
            "--json",
            "--runs",
            "2",
            "--duration-s",
            "3",
            "--warmup-s",
            "1",
            "--lambda",
            "600");
    assertThat(r.code()).as(r.err()).isZero();
    String line = r.out().strip();
    assertThat(line).startsWith("{").endsWith("}").contains("\"redirect\":true");
    assertThat(line).contains("\"throughput_ratio\":{\"mean\":").contains("\"bg_loss_rate\"");
  }

  @Test
  void badInputIsOneClearLineAndStatus2(@TempDir Path dir) throws Exception {
    Run badRate = run("--cheetah-rate", "fast");
    assertThat(badRate.code()).isEqualTo(2);
    assertThat(badRate.err())
        .contains("--cheetah-rate")
        .contains("'fast'")
        .doesNotContain("Exception");
    assertThat(badRate.out()).isEmpty();

    Path bins = dir.resolve("bins.csv");
    Files.writeString(bins, "bytes\n1500\nlots\n");
    Run badBins = run("--bg-bins", bins.toString(), "--runs", "2");
    assertThat(badBins.code()).isEqualTo(2);
    assertThat(badBins.err()).contains("line 3").contains("'lots'");

    Run missing = run("--bg-bins", dir.resolve("none.csv").toString());
    assertThat(missing.err()).contains("no such file");
  }

  @Test
  void reportWritesFourSvgFigures(@TempDir Path dir) throws Exception {
    Run r =
        run(
            "report",
            "--out",
            dir.toString(),
            "--runs",
            "2",
            "--duration-s",
            "3",
            "--warmup-s",
            "1",
            "--lambdas",
            "10,600",
            "--rates",
            "300M,800M",
            "--rtts-ms",
            "10,100");
    assertThat(r.code()).as(r.err()).isZero();
    for (String f :
        new String[] {
          "sim-burstiness.svg",
          "sim-loss-vs-rate.svg",
          "sim-loss-vs-burstiness.svg",
          "sim-redirect-ratio.svg"
        }) {
      assertThat(Files.readString(dir.resolve(f)))
          .startsWith("<svg")
          .containsAnyOf("RTT 100 ms", "measured");
    }
  }
}
