package net.cheetah.cli;

import java.util.concurrent.Callable;
import net.cheetah.config.CheetahConfig;
import net.cheetah.jobs.ConfigOptions;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(
    name = "cluster",
    mixinStandardHelpOptions = true,
    description = {
      "A real cluster on this machine, each part a separate process on 127.0.0.1 that outlives",
      "the command: three Kafka brokers (KRaft, a quorum of three; every topic 3 replicas,",
      "min.insync.replicas 2), a Flink standalone session cluster (a JobManager and two",
      "TaskManagers), the warehouse and goflow2. State, data and logs in DATA/cluster.",
      "  ./cheetah cluster up && ./cheetah cluster submit && ./cheetah cluster status",
      "  ./cheetah cluster demo     (the demo's workload and truth check on it)",
      "  ./cheetah cluster down"
    },
    subcommands = {
      ClusterCommand.Up.class,
      ClusterCommand.Submit.class,
      ClusterCommand.Status.class,
      ClusterCommand.Down.class,
      ClusterCommand.Kill.class,
      ClusterCommand.SecurityCheck.class,
      ClusterDemoCommand.class,
      ClusterChaosCommand.class
    })
final class ClusterCommand implements Callable<Integer> {
  @Override
  public Integer call() {
    new picocli.CommandLine(this).usage(System.err);
    return 2;
  }

  static void say(String s) {
    System.err.println("cluster: " + s);
  }

  static Cluster cluster(CheetahConfig cfg) {
    return new Cluster(cfg, Tools.fromEnvironment(), ClusterCommand::say);
  }

  @Command(
      name = "up",
      mixinStandardHelpOptions = true,
      description = {
        "Start the cluster's processes (daemons; logs in DATA/cluster/logs) and create every topic",
        "of schemas/topics.yaml on the brokers. If the cluster exists (DATA/cluster/state.json),",
        "start again whatever of it is not running (after down, a kill or a reboot), with its",
        "recorded ports and data; if everything runs, say so. Jobs: ./cheetah cluster submit."
      })
  static final class Up implements Callable<Integer> {
    @Option(
        names = "--free-ports",
        description =
            "Free loopback ports for goflow2, the warehouse and the Flink REST API too, instead of"
                + " netflow.udp-port, warehouse.http-port and flink.rest-port (the brokers' and"
                + " Flink's internal ports are always free ones, recorded in the state).")
    boolean freePorts;

    @Option(
        names = "--slots",
        defaultValue = "12",
        description =
            "Task slots per TaskManager (default ${DEFAULT-VALUE}: one TaskManager can run all six"
                + " jobs at parallelism 2 when the other is lost).")
    int slots;

    @Option(
        names = "--task-managers",
        defaultValue = "" + Cluster.TASK_MANAGERS,
        description =
            "TaskManagers of a new cluster (default ${DEFAULT-VALUE}; the benchmark compares 1).")
    int taskManagers;

    @Option(
        names = "--secure",
        description =
            "A new cluster gets Kafka security (docs/DEPLOY.md, \"Security\"): a CA and the"
                + " brokers' certificate (DATA/cluster/security), TLS on every listener, SCRAM-SHA-512"
                + " with one principal per component and the ACLs of schemas/topics.yaml's"
                + " producers/consumers; every component and job gets its credentials.")
    boolean secure;

    @Mixin ConfigOptions config;

    @Override
    public Integer call() throws Exception {
      if (slots < 1 || taskManagers < 1) {
        throw new IllegalArgumentException("--slots and --task-managers must be >= 1");
      }
      Cluster c = cluster(config.load());
      c.up(freePorts, slots, taskManagers, secure);
      c.status().forEach(System.out::println);
      return 0;
    }
  }

  @Command(
      name = "submit",
      mixinStandardHelpOptions = true,
      description = {
        "Upload the shaded job jar to the JobManager and run every streaming job from it through",
        "the REST API (/jars/upload, /jars/:id/run), each from the savepoint down took if any.",
        "The jobs get --config DATA/cluster/jobs.properties: the --config file and --set keys",
        "given here, with kafka.bootstrap (the three brokers), data-dir, flink.checkpoint-dir,",
        "flink.savepoint-dir and flink.parallelism set for the cluster."
      })
  static final class Submit implements Callable<Integer> {
    @Mixin JobJarOptions jobJar;

    @Mixin ConfigOptions config;

    @Override
    public Integer call() throws Exception {
      CheetahConfig cfg = config.load();
      Tools tools = Tools.fromEnvironment();
      cluster(cfg).submit(config.keys(java.util.Map.of()), jobJar.jar(tools), jobJar.parallelism);
      return 0;
    }
  }

  @Command(
      name = "status",
      mixinStandardHelpOptions = true,
      description = {
        "Print each process (pid, alive, ports), the brokers' in-sync replicas (every partition",
        "whose ISR is short of its replicas is listed), and each job's state and restart count",
        "(the REST API's numRestarts). Exit 0 when every process is alive, 1 otherwise."
      })
  static final class Status implements Callable<Integer> {
    @Mixin ConfigOptions config;

    @Override
    public Integer call() throws Exception {
      Cluster c = cluster(config.load());
      c.status().forEach(System.out::println);
      return c.state()
              .map(s -> s.processes().stream().allMatch(ClusterState.Proc::alive))
              .orElse(false)
          ? 0
          : 1;
    }
  }

  @Command(
      name = "down",
      mixinStandardHelpOptions = true,
      description = {
        "Stop the cluster cleanly, each process by its recorded PID: goflow2 first, then each job",
        "with a savepoint (the next submit resumes from it), the warehouse once it stored",
        "everything committed, the TaskManagers, the JobManager and the brokers. Data is kept",
        "(./cheetah cluster up starts it again) unless --wipe."
      })
  static final class Down implements Callable<Integer> {
    @Option(names = "--wipe", description = "Then remove DATA/cluster (data, logs and state).")
    boolean wipe;

    @Mixin ConfigOptions config;

    @Override
    public Integer call() throws Exception {
      Cluster c = cluster(config.load());
      c.down();
      if (wipe) {
        c.wipe();
      }
      return 0;
    }
  }

  @Command(
      name = "kill",
      mixinStandardHelpOptions = true,
      description = {
        "Send SIGKILL to one process of the cluster, as a crash would end it (fault tests).",
        "./cheetah cluster up starts it again."
      })
  static final class Kill implements Callable<Integer> {
    @Parameters(
        paramLabel = "PROCESS",
        description = "kafka-1..3, jobmanager, taskmanager-1..2, warehouse or goflow2")
    String name;

    @Mixin ConfigOptions config;

    @Override
    public Integer call() throws Exception {
      cluster(config.load()).kill(name);
      return 0;
    }
  }

  @Command(
      name = "security-check",
      mixinStandardHelpOptions = true,
      description = {
        "Probe a cluster started with up --secure as outsiders and as its components would:",
        "plaintext, TLS-only and wrong-password clients refused; the adapters' principal cannot",
        "write redirects.commands.v1 (and can read it and write redirects.acks.v1); only the",
        "redirect job's may; the brokers hold exactly the chart's ACLs. Exit 0 if all pass."
      })
  static final class SecurityCheck implements Callable<Integer> {
    @Mixin ConfigOptions config;

    @Override
    public Integer call() throws Exception {
      Cluster c = cluster(config.load());
      java.util.List<String> failed =
          new ClusterSecurityCheck(c.requireUp(), s -> System.out.println(s))
              .run(KafkaPrincipals.read(Tools.fromEnvironment().home()));
      System.out.println(
          failed.isEmpty() ? "security-check: all passed" : "security-check: FAILED " + failed);
      return failed.isEmpty() ? 0 : 1;
    }
  }
}
