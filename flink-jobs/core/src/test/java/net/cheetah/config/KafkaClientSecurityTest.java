package net.cheetah.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class KafkaClientSecurityTest {
  @Test
  void plaintextByDefaultGivesNoProperties() {
    CheetahConfig.Kafka k = CheetahConfig.defaultConfig().kafka();
    assertThat(k.securityProtocol()).isEqualTo("PLAINTEXT");
    assertThat(k.secured()).isFalse();
    assertThat(k.clientSecurity("cheetah-normalize")).isEmpty();
  }

  @Test
  void saslSslConnectsAsThePrincipalWithItsOwnPassword(@TempDir Path dir) throws Exception {
    Files.writeString(dir.resolve("cheetah-normalize"), "s3cret\n");
    Files.writeString(dir.resolve("cheetah-warehouse"), "other");
    CheetahConfig cfg =
        CheetahConfig.load(
            Optional.empty(),
            Map.of(
                "kafka.security.protocol", "SASL_SSL",
                "kafka.security.ca-file", "/ca.pem",
                "kafka.security.password-dir", dir.toString()));
    Map<String, String> p = cfg.kafka().clientSecurity("cheetah-normalize");
    assertThat(p)
        .containsEntry("security.protocol", "SASL_SSL")
        .containsEntry("sasl.mechanism", "SCRAM-SHA-512")
        .containsEntry(
            "sasl.jaas.config",
            "org.apache.kafka.common.security.scram.ScramLoginModule required"
                + " username=\"cheetah-normalize\" password=\"s3cret\";")
        .containsEntry("ssl.truststore.type", "PEM")
        .containsEntry("ssl.truststore.location", "/ca.pem");
  }

  @Test
  void aMissingPasswordFileNamesTheKeyThePrincipalAndTheFile(@TempDir Path dir) {
    CheetahConfig cfg =
        CheetahConfig.load(
            Optional.empty(),
            Map.of(
                "kafka.security.protocol",
                "SASL_SSL",
                "kafka.security.password-dir",
                dir.toString()));
    assertThatThrownBy(() -> cfg.kafka().clientSecurity("cheetah-probe"))
        .hasMessageContaining("kafka.security.password-dir")
        .hasMessageContaining("cheetah-probe")
        .hasMessageContaining(dir.resolve("cheetah-probe").toString());
  }

  @Test
  void saslSslWithoutPasswordsAndUnknownProtocolsAreRefused() {
    assertThatThrownBy(
            () ->
                CheetahConfig.load(Optional.empty(), Map.of("kafka.security.protocol", "SASL_SSL")))
        .hasMessageContaining("kafka.security.password-dir");
    assertThatThrownBy(
            () -> CheetahConfig.load(Optional.empty(), Map.of("kafka.security.protocol", "SSL")))
        .hasMessageContaining("PLAINTEXT or SASL_SSL");
  }
}
