package net.cheetah.config;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The Java Kafka client properties of {@link CheetahConfig.Kafka#clientSecurity}: how a component
 * connects as its own principal (docs/DEPLOY.md, "Security"). Plain strings (no Kafka types), so
 * that the core module stays free of Kafka.
 */
final class KafkaClientSecurity {
  private KafkaClientSecurity() {}

  /** SCRAM's mechanism, as Strimzi's KafkaUser {@code scram-sha-512} and the cluster's brokers. */
  static final String MECHANISM = "SCRAM-SHA-512";

  static Map<String, String> properties(CheetahConfig.Kafka k, String principal) {
    Map<String, String> p = new LinkedHashMap<>();
    if (!k.secured()) {
      return p;
    }
    if (principal.isBlank() || !principal.matches("[A-Za-z0-9._-]+")) {
      throw new IllegalArgumentException(
          "'" + principal + "' is not a Kafka principal name (letters, digits, . _ -)");
    }
    Path file = Path.of(k.passwordDir()).resolve(principal);
    String password;
    try {
      password = Files.readString(file, StandardCharsets.UTF_8).strip();
    } catch (IOException e) {
      throw new IllegalArgumentException(
          CheetahConfig.Kafka.PASSWORD_DIR.name()
              + ": cannot read the SCRAM password of principal "
              + principal
              + " from "
              + file
              + " ("
              + e
              + "); give the directory holding one file per principal",
          e);
    }
    if (password.isEmpty() || password.contains("\"") || password.contains("\\")) {
      throw new IllegalArgumentException(
          file
              + ": the SCRAM password of "
              + principal
              + " is empty or holds a quote or backslash");
    }
    p.put("security.protocol", "SASL_SSL");
    p.put("sasl.mechanism", MECHANISM);
    p.put(
        "sasl.jaas.config",
        "org.apache.kafka.common.security.scram.ScramLoginModule required username=\""
            + principal
            + "\" password=\""
            + password
            + "\";");
    if (!k.caFile().isBlank()) {
      p.put("ssl.truststore.type", "PEM");
      p.put("ssl.truststore.location", k.caFile());
    }
    return p;
  }
}
