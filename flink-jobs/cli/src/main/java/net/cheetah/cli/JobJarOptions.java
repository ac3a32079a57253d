package net.cheetah.cli;

import java.nio.file.Path;
import picocli.CommandLine.Option;

/** How a cluster command submits the jobs: the shaded job jar and every job's parallelism. */
final class JobJarOptions {
  @Option(
      names = "--jar",
      paramLabel = "FILE",
      description = "The shaded job jar (default " + Cluster.JOB_JAR + ", built by setup).")
  Path jar;

  @Option(
      names = "--parallelism",
      defaultValue = "2",
      description = "Parallelism of every job (default ${DEFAULT-VALUE}).")
  int parallelism;

  /** The jar given, or the one setup built under the Cheetah home. */
  Path jar(Tools tools) {
    return jar != null ? jar : tools.home().resolve(Cluster.JOB_JAR);
  }
}
