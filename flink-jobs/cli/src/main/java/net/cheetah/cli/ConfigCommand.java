package net.cheetah.cli;

import java.io.PrintWriter;
import java.util.Map;
import java.util.concurrent.Callable;
import net.cheetah.config.CheetahConfig;
import net.cheetah.config.Key;
import net.cheetah.jobs.ConfigOptions;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

@Command(
    name = "config",
    mixinStandardHelpOptions = true,
    description = "Print every configuration key, its default, and the value in effect.")
final class ConfigCommand implements Callable<Integer> {
  /** The README's configuration tables sit between these lines (ConfigTableTest compares them). */
  static final String BEGIN =
      "<!-- BEGIN ./cheetah config --markdown (generated: edit the keys) -->";

  static final String END = "<!-- END ./cheetah config --markdown -->";

  @Mixin ConfigOptions config;

  @Option(
      names = "--markdown",
      description =
          "Print the README's configuration tables instead: every key with its default, rule and"
              + " meaning, by component.")
  boolean markdown;

  @Spec CommandSpec spec;

  @Override
  public Integer call() {
    PrintWriter out = spec.commandLine().getOut();
    if (markdown) {
      out.print(markdown());
      out.flush();
      return 0;
    }
    Map<String, String> effective =
        CheetahConfig.effectiveValues(config.file(), config.overrides());
    config.load(); // validates the values, not only the keys
    Map<String, String> defaults = CheetahConfig.defaultValues();
    effective.forEach(
        (k, v) -> {
          String d = defaults.get(k);
          out.println(k + "=" + v + (v.equals(d) ? "" : "    # default " + d));
        });
    out.flush();
    return 0;
  }

  /** One table per component: key, default, the rule its value obeys, meaning. */
  static String markdown() {
    StringBuilder b = new StringBuilder();
    for (CheetahConfig.Section s : CheetahConfig.SECTIONS) {
      b.append("**").append(s.title()).append("**\n\n");
      b.append("| key | default | must be | meaning |\n| --- | --- | --- | --- |\n");
      for (Key<?> k : s.keys()) {
        b.append("| `")
            .append(k.name())
            .append("` | ")
            .append(k.defaultValue().isEmpty() ? "(empty)" : cell(k.defaultValue()))
            .append(" | ")
            .append(cell(k.ruleText()))
            .append(" | ")
            .append(cell(k.doc()))
            .append(" |\n");
      }
      b.append('\n');
    }
    return b.toString();
  }

  private static String cell(String text) {
    return text.replace("|", "\\|");
  }
}
