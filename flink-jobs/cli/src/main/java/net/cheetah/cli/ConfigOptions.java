package net.cheetah.cli;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import net.cheetah.config.CheetahConfig;
import picocli.CommandLine.Option;

/** --config and --set, shared by every command. */
final class ConfigOptions {
  @Option(
      names = "--config",
      paramLabel = "FILE",
      description = "Java properties file with configuration keys (see ./cheetah config).")
  Path file;

  @Option(
      names = "--set",
      paramLabel = "KEY=VALUE",
      description =
          "Override one configuration key, e.g. --set detection.h-bytes=2e9 (repeatable).")
  Map<String, String> overrides = new LinkedHashMap<>();

  CheetahConfig load() {
    return CheetahConfig.load(Optional.ofNullable(file), overrides);
  }

  /**
   * Like {@link #load()}, with {@code commandDefaults} under the file and the overrides: a command
   * such as the demo sets values of its own that the user can still change.
   */
  CheetahConfig load(Map<String, String> commandDefaults) {
    Map<String, String> merged = new LinkedHashMap<>(commandDefaults);
    if (file != null) {
      merged
          .keySet()
          .removeAll(
              CheetahConfig.effectiveValues(Optional.of(file), Map.of()).entrySet().stream()
                  .filter(e -> !e.getValue().equals(CheetahConfig.defaultValues().get(e.getKey())))
                  .map(Map.Entry::getKey)
                  .toList());
    }
    merged.putAll(overrides);
    return CheetahConfig.load(Optional.ofNullable(file), merged);
  }
}
