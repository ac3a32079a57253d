package net.cheetah.jobs;

import java.io.PrintStream;
import java.util.List;
import java.util.Optional;
import net.cheetah.config.CheetahConfig;
import net.cheetah.jobs.flink.JobEnvironment;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * The job jar's entry point (flink-jobs/jobs/target/cheetah-jobs.jar; README, "The job jar"): runs
 * one of the stack's jobs ({@link StreamJob#stack()}) on whatever cluster executes it, built
 * exactly as the embedded stack builds it ({@link JobEnvironment}, then the job's graph), with the
 * same configuration options. The same main runs under {@code flink run}, the JobManager's REST API
 * ({@code /jars/:id/run} with programArgs) and the Kubernetes operator's application mode
 * (entryClass and args).
 *
 * <p>It never calls {@code System.exit}: under the REST API and in application mode it runs inside
 * the JobManager. A bad argument prints one line to stderr and throws (a plain {@code java} run
 * then exits non-zero, {@code flink run} exits 1, the REST API answers with the message).
 */
@Command(
    name = "cheetah-jobs",
    sortOptions = false,
    description =
        "Runs one of Cheetah's streaming jobs (listed below) on the Flink cluster that executes"
            + " this jar, with the configuration of ./cheetah config.")
public final class JobMain {
  @Option(
      names = "--job",
      paramLabel = "NAME",
      description = "the job to run (one of the list below)")
  String job;

  @Option(
      names = {"-h", "--help"},
      usageHelp = true,
      description = "show this help and the jobs, and exit")
  boolean help;

  @Mixin ConfigOptions config = new ConfigOptions();

  /** A job and what it is given, ready to be added to an environment. */
  record Plan(StreamJob job, CheetahConfig config, JobSettings settings) {}

  public static void main(String[] args) throws Exception {
    Optional<Plan> plan;
    try {
      plan = plan(args, System.out);
    } catch (IllegalArgumentException e) {
      System.err.println("cheetah-jobs: error: " + e.getMessage());
      throw e;
    }
    if (plan.isEmpty()) {
      return; // --help
    }
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
    build(plan.get(), env);
    env.execute(plan.get().job().name());
  }

  /**
   * Reads the arguments: the job to run with its settings, or empty after printing the help to
   * {@code out}. Throws IllegalArgumentException, saying what to do, for anything it cannot run.
   */
  static Optional<Plan> plan(String[] args, PrintStream out) {
    JobMain m = new JobMain();
    CommandLine cl = new CommandLine(m);
    try {
      cl.parseArgs(args);
    } catch (CommandLine.ParameterException e) {
      throw new IllegalArgumentException(e.getMessage() + " (see --help)", e);
    }
    if (cl.isUsageHelpRequested()) {
      cl.usage(out);
      out.println();
      out.println("Jobs (--job NAME), upstream first:");
      for (StreamJob j : StreamJob.stack()) {
        out.println("  " + j.name());
      }
      out.println("  " + FabricJob.NAME + " (only with fabric.topology-file, docs/FABRIC.md)");
      return Optional.empty();
    }
    if (m.job == null) {
      throw new IllegalArgumentException("--job NAME is required; jobs: " + names());
    }
    StreamJob job =
        StreamJob.all().stream()
            .filter(j -> j.name().equals(m.job))
            .findFirst()
            .orElseThrow(
                () ->
                    new IllegalArgumentException(
                        "unknown job '" + m.job + "'; jobs: " + names() + " (see --help)"));
    CheetahConfig cfg = m.config.load();
    String bootstrap = cfg.kafka().bootstrap();
    if (bootstrap.isBlank()) {
      throw new IllegalArgumentException(
          CheetahConfig.Kafka.BOOTSTRAP.name()
              + " is empty: a job on a cluster reads and writes external brokers; give them with"
              + " --set "
              + CheetahConfig.Kafka.BOOTSTRAP.name()
              + "=HOST:PORT[,HOST:PORT...] or in the --config file");
    }
    return Optional.of(
        new Plan(job, cfg, new JobSettings(bootstrap, cfg, cfg.dataDir().toAbsolutePath())));
  }

  /** The environment setup every job gets ({@link JobEnvironment}), then the job's graph. */
  static void build(Plan plan, StreamExecutionEnvironment env) {
    JobEnvironment.configure(env, plan.config(), plan.settings().dataDir());
    plan.job().addTo(env, plan.settings());
  }

  private static String names() {
    List<String> names = StreamJob.all().stream().map(StreamJob::name).toList();
    return String.join(", ", names);
  }
}
