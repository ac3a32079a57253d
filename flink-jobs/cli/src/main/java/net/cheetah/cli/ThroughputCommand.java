package net.cheetah.cli;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import net.cheetah.analytics.throughput.FlowStream;
import net.cheetah.analytics.throughput.HostSample;
import net.cheetah.analytics.throughput.ThroughputAnalysis;
import net.cheetah.analytics.throughput.Transfer;
import net.cheetah.config.CheetahConfig;
import net.cheetah.jobs.ConfigOptions;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

@Command(
    name = "throughput",
    mixinStandardHelpOptions = true,
    description = {
      "Transfer throughput offline (docs/ARCHITECTURE.md, \"Transfer throughput\"): application"
          + " instances from the flows of nfcapd archives, matched to the transfers tools logged"
          + " (passive against active throughput by three formulas), forecasts, diurnal fits,"
          + " step changes and root causes of slow transfers (PRCA).",
      "Reads DIR/*.jsonl (transfers.v1 records, as ./cheetah ship-transfers writes them) and"
          + " DIR/hosts.csv if present (host resource samples); nfcapd archives as analyze reads"
          + " them (natively, else through nfdump).",
      "Writes instances.csv, comparison.csv, forecasts.csv, diurnal.csv, steps.csv and prca.csv"
          + " (header rows; columns in the README); inputs that cannot be read go to"
          + " rejected.txt with the reason.",
      "Exit status 1 when something was rejected (the results cover the rest)."
    })
final class ThroughputCommand implements Callable<Integer> {
  @Option(
      names = "--transfers",
      required = true,
      paramLabel = "DIR",
      description = "Directory of transfers.v1 JSON lines (*.jsonl) and an optional hosts.csv.")
  Path transfers;

  @Option(
      names = "--flows",
      required = true,
      paramLabel = "PATH",
      description = "An nfcapd file or a directory of them (searched recursively).")
  Path flows;

  @Option(
      names = "--out",
      required = true,
      paramLabel = "DIR",
      description = "Output directory (created).")
  Path out;

  @Mixin ConfigOptions config;

  @Override
  public Integer call() throws Exception {
    CheetahConfig cfg = config.load();
    ThroughputInputs in = new ThroughputInputs();
    List<Transfer> tr = in.transfers(transfers);
    List<HostSample> hosts = in.hosts(transfers);
    List<FlowStream> streams =
        in.streams(flows, Tools.fromEnvironment().nfdump(), cfg.detection().gapMs());
    ThroughputAnalysis.Result r = new ThroughputAnalysis(cfg.throughput()).run(streams, tr, hosts);
    Files.createDirectories(out);
    ThroughputCsv.writeAll(out, r);
    Path rejected = out.resolve("rejected.txt");
    Files.deleteIfExists(rejected);
    if (!in.rejected.isEmpty()) {
      Files.write(rejected, new ArrayList<>(in.rejected));
    }
    System.out.printf(
        Locale.ROOT,
        "throughput: %d transfer(s), %d host sample(s), %d stream(s) -> %d instance(s), %d matched%n"
            + "  %d series, %d step(s), %d PRCA report(s) -> %s%n%s",
        tr.size(),
        hosts.size(),
        streams.size(),
        r.instances().size(),
        r.matches().size(),
        r.series().size(),
        r.series().stream().mapToInt(s -> s.steps().size()).sum(),
        r.prca().size(),
        out,
        in.rejected.isEmpty() ? "" : "  " + in.rejected.size() + " rejected -> " + rejected + "\n");
    return in.rejected.isEmpty() ? 0 : 1;
  }
}
