package net.cheetah.cli.simulate;

import java.io.PrintWriter;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.Callable;
import net.cheetah.simulator.PointRunner;
import net.cheetah.simulator.PortSimulation;
import net.cheetah.simulator.Quantities;
import net.cheetah.simulator.RunResult;
import net.cheetah.simulator.Scenario;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code simulate bench}: simulated packet events per second, per core and on all threads. */
@Command(
    name = "bench",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    description = {
      "Measures simulated packet events per second: first on one thread (per core), then the"
          + " runs of one point on --threads threads. Uses --runs runs of a 700 Mb/s, 100 ms"
          + " cheetah at each --lambda; the first run of each is a JIT warm-up and not counted."
    })
public final class BenchCommand implements Callable<Integer> {
  @Spec CommandLine.Model.CommandSpec spec;

  @Option(
      names = "--lambda",
      defaultValue = "10,600",
      description = "Burst arrival rates to measure (default: ${DEFAULT-VALUE}).")
  String lambda;

  @Mixin StudyOptions study;

  @Override
  public Integer call() throws Exception {
    return CommandErrors.guard("simulate bench", spec.commandLine().getErr(), this::bench);
  }

  private Integer bench() throws Exception {
    PrintWriter out = spec.commandLine().getOut();
    study.validate();
    out.println("# " + study.describe());
    for (double l : Quantities.parseList(lambda, "--lambda")) {
      Scenario s =
          study.scenario(study.background(l), Optional.of(study.cheetah(700e6, 100)), false);
      PortSimulation.run(s, PointRunner.runSeed(study.seed, -1));
      // CPU time as well as wall time: on a shared machine the wall clock counts other work.
      java.lang.management.ThreadMXBean cpu =
          java.lang.management.ManagementFactory.getThreadMXBean();
      long events = 0;
      long t0 = System.nanoTime();
      long c0 = cpu.getCurrentThreadCpuTime();
      for (int i = 0; i < study.runs; i++) {
        events += PortSimulation.run(s, PointRunner.runSeed(study.seed, i)).events();
      }
      double single = (System.nanoTime() - t0) / 1e9;
      double singleCpu = (cpu.getCurrentThreadCpuTime() - c0) / 1e9;
      long t1;
      double parallel;
      long parallelEvents;
      try (PointRunner runner = new PointRunner(study.threadCount())) {
        runner.runAll(s, Math.min(study.runs, study.threadCount()), study.seed);
        t1 = System.nanoTime();
        List<RunResult> all = runner.runAll(s, study.runs, study.seed);
        parallel = (System.nanoTime() - t1) / 1e9;
        parallelEvents = all.stream().mapToLong(RunResult::events).sum();
      }
      out.printf(
          Locale.ROOT,
          "lambda %6.1f: %d runs, %.3g events; 1 thread: %.2f s wall = %.2f M events/s, %.2f s"
              + " CPU = %.2f M events per CPU-second; %d threads: %.2f s wall = %.2f M events/s%n",
          l,
          study.runs,
          (double) events,
          single,
          events / single / 1e6,
          singleCpu,
          events / singleCpu / 1e6,
          study.threadCount(),
          parallel,
          parallelEvents / parallel / 1e6);
      out.flush();
    }
    return 0;
  }
}
