package net.cheetah.cli;

import java.util.Map;
import java.util.concurrent.Callable;
import net.cheetah.config.CheetahConfig;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

@Command(
    name = "config",
    mixinStandardHelpOptions = true,
    description = "Print every configuration key, its default, and the value in effect.")
final class ConfigCommand implements Callable<Integer> {
  @Mixin ConfigOptions config;

  @Override
  public Integer call() {
    Map<String, String> effective =
        CheetahConfig.effectiveValues(java.util.Optional.ofNullable(config.file), config.overrides);
    config.load(); // validates the values, not only the keys
    effective.forEach(
        (k, v) -> {
          String d = CheetahConfig.defaultValues().get(k);
          System.out.println(k + "=" + v + (v.equals(d) ? "" : "    # default " + d));
        });
    return 0;
  }
}
