package net.cheetah.jobs;

import java.nio.file.Path;
import java.util.Objects;
import net.cheetah.config.CheetahConfig;
import net.cheetah.jobs.flink.KafkaIO;

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

  /**
   * The brokers as the job's own Kafka principal sees them: its name (cheetah-normalize, ...),
   * which is also the prefix of its consumer groups and transactional ids, so that the ACLs of
   * docs/DEPLOY.md, "Security" (derived from schemas/topics.yaml) let it do what it does.
   */
  public KafkaIO.Access kafka(String principal) {
    return new KafkaIO.Access(bootstrap, config.kafka().clientSecurity(principal));
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
