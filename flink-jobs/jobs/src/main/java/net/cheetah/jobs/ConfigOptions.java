package net.cheetah.jobs;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import net.cheetah.config.CheetahConfig;
import picocli.CommandLine.Option;

/**
 * --config and --set: the one parser of Cheetah's configuration options, a picocli mixin shared by
 * every command of the cli and by the job jar's {@link JobMain}.
 */
public final class ConfigOptions {
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

  public CheetahConfig load() {
    return CheetahConfig.load(Optional.ofNullable(file), overrides);
  }

  /**
   * Like {@link #load()}, with {@code commandDefaults} under the file and the overrides: a command
   * such as the demo sets values of its own that the user can still change.
   */
  public CheetahConfig load(Map<String, String> commandDefaults) {
    Map<String, String> merged = new LinkedHashMap<>(commandDefaults);
    merged.keySet().removeAll(keysInFile());
    merged.putAll(overrides);
    return CheetahConfig.load(Optional.ofNullable(file), merged);
  }

  /** The --config file, if one was given. */
  public Optional<Path> file() {
    return Optional.ofNullable(file);
  }

  /** The --set overrides, in the order given. */
  public Map<String, String> overrides() {
    return java.util.Collections.unmodifiableMap(overrides);
  }

  /**
   * The keys {@link #load(Map)} applies, as text: {@code commandDefaults}, then the --config
   * file's, then --set (for a program that reads the same configuration elsewhere: the cluster's
   * jobs).
   */
  public Map<String, String> keys(Map<String, String> commandDefaults) throws java.io.IOException {
    Map<String, String> all = new LinkedHashMap<>(commandDefaults);
    if (file != null) {
      java.util.Properties p = new java.util.Properties();
      try (java.io.Reader r = java.nio.file.Files.newBufferedReader(file)) {
        p.load(r);
      }
      p.stringPropertyNames().forEach(k -> all.put(k.trim(), p.getProperty(k).trim()));
    }
    all.putAll(overrides);
    return all;
  }

  /** Keys the --config file sets (none if it cannot be read: load() then reports that). */
  private java.util.Set<String> keysInFile() {
    if (file == null) {
      return java.util.Set.of();
    }
    java.util.Properties p = new java.util.Properties();
    try (java.io.Reader r = java.nio.file.Files.newBufferedReader(file)) {
      p.load(r);
    } catch (java.io.IOException e) {
      return java.util.Set.of();
    }
    return p.stringPropertyNames().stream()
        .map(String::trim)
        .collect(java.util.stream.Collectors.toSet());
  }
}
