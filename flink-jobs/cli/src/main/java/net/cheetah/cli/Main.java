package net.cheetah.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

@Command(
    name = "cheetah",
    mixinStandardHelpOptions = true,
    version = "cheetah 0.1.0",
    description =
        "Find and tame heavy-hitter traffic: NetFlow/IPFIX -> Kafka -> Flink -> ClickHouse.",
    subcommands = {
      DemoCommand.class,
      UpCommand.class,
      AnalyzeCommand.class,
      ThroughputCommand.class,
      BackfillCommand.class,
      SqlCommand.class,
      ConfigCommand.class,
      BrokerCommand.class,
      ClusterCommand.class,
      GuardCommand.class,
      KeysCommand.class,
      FabricCommand.class,
      net.cheetah.cli.simulate.SimulateCommand.class
    })
public final class Main {
  private Main() {}

  public static void main(String[] args) {
    System.exit(commandLine().execute(args));
  }

  /** The command line with its subcommands and error handling, as main runs it (and tests). */
  static CommandLine commandLine() {
    CommandLine cl = new CommandLine(new Main());
    // Errors a user can fix print as one line, not a stack trace.
    cl.setExecutionExceptionHandler(
        (ex, cmd, parsed) -> {
          if (ex instanceof IllegalArgumentException
              || ex instanceof IllegalStateException
              || ex instanceof java.io.IOException) {
            cmd.getErr()
                .println(cmd.getCommandSpec().qualifiedName() + ": error: " + ex.getMessage());
            return 2;
          }
          throw ex;
        });
    return cl;
  }
}
