package net.cheetah.cli.simulate;

import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.function.ToDoubleFunction;
import net.cheetah.simulator.Estimate;
import net.cheetah.simulator.PointResult;
import net.cheetah.simulator.PointRunner;
import net.cheetah.simulator.Quantities;
import net.cheetah.simulator.RunResult;
import net.cheetah.simulator.Scenario;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code simulate report}: runs the fidelity study and renders its four figures as SVG
 * (docs/SIMULATOR.md): burstiness vs λ; background loss vs cheetah rate; loss vs burstiness at the
 * focus rate; the redirected cheetah's throughput ratio vs burstiness.
 */
@Command(
    name = "report",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    description = {
      "Runs the fidelity study and writes sim-burstiness.svg, sim-loss-vs-rate.svg,"
          + " sim-loss-vs-burstiness.svg and sim-redirect-ratio.svg into --out; prints every"
          + " point as a table row on stdout.",
      "Example: simulate report --out docs/img --runs 20"
    })
public final class ReportCommand implements Callable<Integer> {
  private static final String[] COLORS = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd"};

  @Spec CommandLine.Model.CommandSpec spec;

  @Option(names = "--out", required = true, description = "Directory for the SVG figures.")
  Path out;

  @Option(
      names = "--lambdas",
      defaultValue = "10,20,50,100,200,400,600",
      description = "Burst arrival rates of the burstiness axis (default: ${DEFAULT-VALUE}).")
  String lambdas;

  @Option(
      names = "--rates",
      defaultValue = "50M..900M:50M",
      description = "Cheetah rates of the loss-vs-rate figure (default: ${DEFAULT-VALUE}).")
  String rates;

  @Option(
      names = "--rtts-ms",
      defaultValue = "10,100",
      description = "Cheetah RTTs, one line each (default: ${DEFAULT-VALUE}).")
  String rtts;

  @Option(
      names = "--focus-rate",
      defaultValue = "700M",
      description = "Cheetah rate of the burstiness figures (default: ${DEFAULT-VALUE}).")
  String focusRate;

  @Option(
      names = "--focus-lambda",
      defaultValue = "10",
      description = "Burst arrival rate of the loss-vs-rate figure (default: ${DEFAULT-VALUE}).")
  double focusLambda;

  @Mixin StudyOptions study;

  @Override
  public Integer call() throws Exception {
    return CommandErrors.guard("simulate report", spec.commandLine().getErr(), this::report);
  }

  private Integer report() throws Exception {
    PrintWriter log = spec.commandLine().getOut();
    List<Double> lambdaGrid = Quantities.parseList(lambdas, "--lambdas");
    List<Double> rateGrid = Quantities.parseList(rates, "--rates");
    List<Double> rttGrid = Quantities.parseList(rtts, "--rtts-ms");
    double focus = Quantities.parse(focusRate, "--focus-rate");
    Files.createDirectories(out);
    study.validate();
    log.println("# " + study.describe());
    log.println(PointFormat.header(true));
    long t0 = System.nanoTime();
    List<SvgChart.Series> lossVsRate = new ArrayList<>();
    List<SvgChart.Series> lossVsBurstiness = new ArrayList<>();
    List<SvgChart.Series> ratioVsBurstiness = new ArrayList<>();
    SvgChart.Series burstiness = null;
    try (PointRunner runner = new PointRunner(study.threadCount())) {
      for (int k = 0; k < rttGrid.size(); k++) {
        double rtt = rttGrid.get(k);
        String name = String.format(Locale.ROOT, "RTT %.0f ms", rtt);
        String color = COLORS[k % COLORS.length];
        List<PointResult> byRate = new ArrayList<>();
        for (double rate : rateGrid) {
          byRate.add(point(runner, focusLambda, rate, rtt, log));
        }
        lossVsRate.add(series(name, color, byRate, p -> rateOf(p) / 1e6, lossPercent()));
        List<PointResult> plain = new ArrayList<>();
        List<PointResult> ratios = new ArrayList<>();
        for (double l : lambdaGrid) {
          PointResult p = point(runner, l, focus, rtt, log);
          Scenario redirected = p.scenario().withRedirect(true);
          List<RunResult> r = runner.runAll(redirected, study.runs, study.seed);
          PointResult q =
              PointRunner.aggregate(redirected, r)
                  .withThroughputRatio(PointRunner.throughputRatio(r, p.runs()));
          log.println(PointFormat.row(q, l));
          log.flush();
          plain.add(p);
          ratios.add(q);
        }
        lossVsBurstiness.add(
            series(name, color, plain, p -> p.bgBurstiness().mean(), lossPercent()));
        ratioVsBurstiness.add(
            series(
                name,
                color,
                ratios,
                p -> p.bgBurstiness().mean(),
                p -> p.throughputRatio().orElseThrow()));
        if (burstiness == null) {
          double[] x = lambdaGrid.stream().mapToDouble(Double::doubleValue).toArray();
          double[] y = plain.stream().mapToDouble(p -> p.bgBurstiness().mean()).toArray();
          double[] ci = plain.stream().mapToDouble(p -> p.bgBurstiness().halfWidth95()).toArray();
          burstiness = new SvgChart.Series("measured CoV per T1 bin", COLORS[0], x, y, ci);
        }
      }
    }
    String where = String.format(Locale.ROOT, "%d runs of %s s", study.runs, study.durationSeconds);
    write(
        "sim-burstiness.svg",
        SvgChart.render(
            "Background burstiness vs burst arrival rate (r_bg fixed; " + where + ")",
            "burst arrival rate λ (bursts/s, log scale)",
            "burstiness (CoV of bytes per T1)",
            true,
            List.of(burstiness)));
    write(
        "sim-loss-vs-rate.svg",
        SvgChart.render(
            String.format(Locale.ROOT, "Background loss vs cheetah rate (λ = %.0f/s)", focusLambda),
            "cheetah rate (Mb/s)",
            "background loss (%)",
            false,
            lossVsRate));
    write(
        "sim-loss-vs-burstiness.svg",
        SvgChart.render(
            String.format(
                Locale.ROOT, "Background loss vs burstiness (%.0f Mb/s cheetah)", focus / 1e6),
            "burstiness (CoV of bytes per T1)",
            "background loss (%)",
            false,
            lossVsBurstiness));
    write(
        "sim-redirect-ratio.svg",
        SvgChart.render(
            String.format(
                Locale.ROOT,
                "Redirected cheetah: throughput ratio vs burstiness (%.0f Mb/s)",
                focus / 1e6),
            "burstiness (CoV of bytes per T1)",
            "throughput redirected / not redirected",
            false,
            ratioVsBurstiness));
    log.printf(
        Locale.ROOT,
        "# figures written to %s in %.1f s wall%n",
        out.toAbsolutePath(),
        (System.nanoTime() - t0) / 1e9);
    return 0;
  }

  private PointResult point(
      PointRunner runner, double lambda, double rate, double rtt, PrintWriter log)
      throws Exception {
    Scenario s =
        study.scenario(study.background(lambda), Optional.of(study.cheetah(rate, rtt)), false);
    PointResult p = PointRunner.aggregate(s, runner.runAll(s, study.runs, study.seed));
    log.println(PointFormat.row(p, lambda));
    log.flush();
    return p;
  }

  private static double rateOf(PointResult p) {
    return p.scenario().cheetah().orElseThrow().rateLimitBps();
  }

  private static java.util.function.Function<PointResult, Estimate> lossPercent() {
    return p ->
        new Estimate(
            p.bgLossRate().mean() * 100, p.bgLossRate().halfWidth95() * 100, p.bgLossRate().n());
  }

  private static SvgChart.Series series(
      String name,
      String color,
      List<PointResult> points,
      ToDoubleFunction<PointResult> x,
      java.util.function.Function<PointResult, Estimate> y) {
    return new SvgChart.Series(
        name,
        color,
        points.stream().mapToDouble(x).toArray(),
        points.stream().mapToDouble(p -> y.apply(p).mean()).toArray(),
        points.stream().mapToDouble(p -> y.apply(p).halfWidth95()).toArray());
  }

  private void write(String name, String svg) throws java.io.IOException {
    Files.writeString(out.resolve(name), svg);
  }
}
