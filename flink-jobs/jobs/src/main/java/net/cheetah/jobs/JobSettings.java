package net.cheetah.jobs;

import java.nio.file.Path;
import java.util.Objects;
import net.cheetah.config.CheetahConfig;

/**
 * What every streaming job is given ({@link StreamJob#addTo}): the broker, the whole configuration
 * (each job reads its own component's record) and the data directory in use.
 */
public record JobSettings(String bootstrap, CheetahConfig config, Path dataDir) {
  public JobSettings {
    Objects.requireNonNull(bootstrap, "bootstrap");
    Objects.requireNonNull(config, "config");
    Objects.requireNonNull(dataDir, "dataDir");
  }

  /** The redirect signing keys: redirects.keys-file, or DATA/keys/redirects.json. */
  public Path redirectKeysFile() {
    return redirectKeysFile(config, dataDir);
  }

  public static Path redirectKeysFile(CheetahConfig config, Path dataDir) {
    String configured = config.redirects().keysFile();
    return configured.isBlank()
        ? dataDir.resolve("keys").resolve("redirects.json")
        : Path.of(configured);
  }
}
