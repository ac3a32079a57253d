package net.cheetah.cli.simulate;

import java.io.PrintWriter;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import net.cheetah.simulator.Background;
import net.cheetah.simulator.PointResult;
import net.cheetah.simulator.PointRunner;
import net.cheetah.simulator.Quantities;
import net.cheetah.simulator.Scenario;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code simulate}: what a cheetah of rate R does to a link's background on a two-queue port, per
 * parameter point, as the mean and 95 % confidence interval over seeded runs.
 */
@Command(
    name = "simulate",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    subcommands = {ReportCommand.class, BenchCommand.class},
    description = {
      "Simulates a cheetah TCP flow sharing a two-queue port (primary + scavenger, strict"
          + " priority) with bursty background, and prints per parameter point the mean and 95 %%"
          + " confidence interval (Student t over --runs seeded runs) of the background loss rate"
          + " and the cheetah's throughput.",
      "Rate, RTT and lambda take one value, a comma list, or a range start..end:step; every"
          + " combination is a point. Rates take SI suffixes (700M, 1G).",
      "Example: simulate --cheetah-rate 100M..900M:100M --rtt-ms 10,100 --lambda 10 --runs 60"
    })
public final class SimulateCommand implements Callable<Integer> {
  @Spec CommandLine.Model.CommandSpec spec;

  @Option(
      names = "--cheetah-rate",
      defaultValue = "700M",
      paramLabel = "BPS",
      description =
          "Cheetah rate limit(s) in bits/s; 0 = no limit (paced by its NIC)"
              + " (default: ${DEFAULT-VALUE}).")
  String cheetahRate;

  @Option(
      names = "--rtt-ms",
      defaultValue = "100",
      paramLabel = "MS",
      description = "Cheetah round-trip time(s) in ms (default: ${DEFAULT-VALUE}).")
  String rttMs;

  @Option(
      names = "--lambda",
      defaultValue = "10",
      paramLabel = "L",
      description = "Background burst arrival rate(s) in bursts/s (default: ${DEFAULT-VALUE}).")
  String lambda;

  @Option(
      names = "--redirect",
      description =
          "Put the cheetah in the scavenger queue; also runs the same seeds without"
              + " redirection and prints the throughput ratio.")
  boolean redirect;

  @Option(names = "--json", description = "Print one JSON object per point instead of a table.")
  boolean json;

  @Mixin StudyOptions study;

  public static void main(String[] args) {
    System.exit(new CommandLine(new SimulateCommand()).execute(args));
  }

  @Override
  public Integer call() throws Exception {
    return CommandErrors.guard("simulate", spec.commandLine().getErr(), this::simulate);
  }

  private Integer simulate() throws Exception {
    PrintWriter out = spec.commandLine().getOut();
    study.validate();
    List<Double> rates = Quantities.parseList(cheetahRate, "--cheetah-rate");
    List<Double> rtts = Quantities.parseList(rttMs, "--rtt-ms");
    List<Double> lambdas =
        study.bgBins.isPresent() ? List.of(Double.NaN) : Quantities.parseList(lambda, "--lambda");
    // Build every background first, so bad input is reported before any output.
    List<Background> backgrounds = new java.util.ArrayList<>();
    for (double l : lambdas) {
      backgrounds.add(study.background(l));
    }
    if (!json) {
      out.println("# " + study.describe());
      out.println(PointFormat.header(redirect));
    }
    try (PointRunner runner = new PointRunner(study.threadCount())) {
      for (int i = 0; i < lambdas.size(); i++) {
        double l = lambdas.get(i);
        Background bg = backgrounds.get(i);
        for (double rtt : rtts) {
          for (double rate : rates) {
            Scenario s = study.scenario(bg, Optional.of(study.cheetah(rate, rtt)), redirect);
            PointResult p = runner.run(s, study.runs, study.seed);
            out.println(json ? PointFormat.json(p, l) : PointFormat.row(p, l));
            out.flush();
          }
        }
      }
    }
    return 0;
  }
}
