package net.cheetah.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import net.cheetah.core.Topics;
import net.cheetah.runtime.EmbeddedKafka;
import net.cheetah.runtime.FreePorts;
import net.cheetah.runtime.TopicLayout;
import net.cheetah.runtime.Wait;
import net.cheetah.schemas.v1.RedirectAction;
import net.cheetah.schemas.v1.RedirectCommand;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code ./cheetah keys} against a real broker with every topic: add, activate, rotate, list and
 * retire rewrite the keys file as docs/REDIRECTS.md ("Key rotation") says (read back here with a
 * JSON parser, not RedirectKeys); retire refuses while a command signed with the key (by hand, with
 * javax.crypto) is in force on redirects.commands.v1, and goes through once it has expired, or with
 * --force; no output of any command holds a secret.
 */
@Tag("integration")
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class KeysCommandTest {
  static final String OLD_HEX = "5a".repeat(16) + "c3".repeat(16);

  @TempDir static Path dir;
  static EmbeddedKafka kafka;

  /** Every output of every command of this test, to look for secrets in. */
  static final List<String> outputs = new ArrayList<>();

  @BeforeAll
  static void broker() throws Exception {
    kafka =
        new EmbeddedKafka(
            EmbeddedKafka.Config.defaults(dir.resolve("kafka"))
                .withPorts(FreePorts.pick(), FreePorts.pick()));
    kafka.start();
    new TopicLayout(TopicLayout.Config.embedded()).createAll(kafka);
  }

  @AfterAll
  static void stop() {
    if (kafka != null) {
      kafka.close();
    }
  }

  static GuardCommandTest.Run keys(Path file, String... args) {
    List<String> all = new ArrayList<>(List.of("keys"));
    all.addAll(List.of(args));
    all.addAll(List.of("--keys", file.toString(), "--set", "data-dir=" + dir.resolve("data")));
    if (List.of("list", "retire").contains(args[0])) {
      all.addAll(List.of("--bootstrap", kafka.bootstrapServers()));
    }
    GuardCommandTest.Run run = GuardCommandTest.cheetah(all.toArray(String[]::new));
    outputs.add(run.out() + run.err());
    return run;
  }

  static GuardCommandTest.Run cheetah(String... args) {
    GuardCommandTest.Run run = GuardCommandTest.cheetah(args);
    outputs.add(run.out() + run.err());
    return run;
  }

  /** The file's keys (id to hex) and its active id, read as plain JSON. */
  record Doc(String active, Map<String, String> keys) {}

  static Doc read(Path file) throws Exception {
    JsonNode root = new ObjectMapper().readTree(Files.readAllBytes(file));
    Map<String, String> keys = new LinkedHashMap<>();
    Iterator<Map.Entry<String, JsonNode>> it = root.get("keys").fields();
    while (it.hasNext()) {
      Map.Entry<String, JsonNode> e = it.next();
      keys.put(e.getKey(), e.getValue().asText());
    }
    return new Doc(root.get("active").asText(), keys);
  }

  /** An add (or a REMOVE of {@code replaces}) for {@code device}, signed by hand. */
  static RedirectCommand signed(
      String id, String device, String replaces, long expiresMs, String keyId, String secretHex)
      throws Exception {
    RedirectCommand.Builder b =
        RedirectCommand.newBuilder()
            .setCommandId(id)
            .setIssuedMs(System.currentTimeMillis())
            .setExpiresMs(expiresMs)
            .setDeviceId(device)
            .setAction(
                replaces.isEmpty()
                    ? RedirectAction.REDIRECT_ACTION_SCAVENGER
                    : RedirectAction.REDIRECT_ACTION_REMOVE)
            .setReplacesCommandId(replaces)
            .setKeyId(keyId);
    byte[] mac =
        GuardCommandTest.hmac(
            HexFormat.of().parseHex(secretHex), b.build().toByteArray()); // hmac still empty
    return b.setHmac(com.google.protobuf.ByteString.copyFrom(mac)).build();
  }

  static void publish(RedirectCommand... commands) throws Exception {
    Properties p = new Properties();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
    p.put(ProducerConfig.ACKS_CONFIG, "all");
    try (KafkaProducer<byte[], byte[]> producer =
        new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer())) {
      for (RedirectCommand c : commands) {
        producer
            .send(
                new ProducerRecord<>(
                    Topics.REDIRECTS_COMMANDS,
                    c.getDeviceId().getBytes(StandardCharsets.UTF_8),
                    c.toByteArray()))
            .get();
      }
    }
  }

  static String time(long ms) {
    return Instant.ofEpochMilli(ms).truncatedTo(ChronoUnit.SECONDS).toString();
  }

  @Test
  void rotationAndARetireThatWaitsForTheOldKeysCommandsToExpire() throws Exception {
    Path file = dir.resolve("rotation/redirects.json");
    Files.createDirectories(file.getParent());
    Files.writeString(file, "{\"active\": \"old\", \"keys\": {\"old\": \"" + OLD_HEX + "\"}}");
    long now = System.currentTimeMillis();
    long longExpiry = now + 2 * 3_600_000L;
    long shortExpiry = now + 600_000;
    // Signed with the old key: a long-lived add, a shorter-lived add, and an add that a REMOVE
    // (also old) ends: that REMOVE still counts, the add it ends does not.
    publish(
        signed("rot-long", "rot-r1", "", longExpiry, "old", OLD_HEX),
        signed("rot-short", "rot-r1", "", shortExpiry, "old", OLD_HEX),
        signed("rot-ended", "rot-r2", "", now + 3_600_000L, "old", OLD_HEX),
        signed("rot-end", "rot-r2", "rot-ended", now + 3_600_000L, "old", OLD_HEX),
        // expired already: never counts
        signed("rot-past", "rot-r3", "", now - 1, "old", OLD_HEX));

    GuardCommandTest.Run list = keys(file, "list");
    assertThat(list.exit()).as("list: %s", list.err()).isZero();
    assertThat(list.out())
        .containsPattern("(?m)^old +active +3 +" + time(longExpiry) + "$")
        .contains("keys file " + file);

    GuardCommandTest.Run add = keys(file, "add", "--id", "new");
    assertThat(add.exit()).as("add: %s", add.err()).isZero();
    Doc afterAdd = read(file);
    assertThat(afterAdd.active()).isEqualTo("old");
    assertThat(afterAdd.keys()).containsEntry("old", OLD_HEX).containsKey("new");
    String newHex = afterAdd.keys().get("new");
    assertThat(HexFormat.of().parseHex(newHex)).hasSize(32);
    assertThat(newHex).isNotEqualTo(OLD_HEX);
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file)))
        .isEqualTo("rw-------");

    GuardCommandTest.Run activate = keys(file, "activate", "new");
    assertThat(activate.exit()).as("activate: %s", activate.err()).isZero();
    assertThat(read(file)).isEqualTo(new Doc("new", Map.of("old", OLD_HEX, "new", newHex)));

    // The active key cannot go; the old one not while its commands are in force.
    GuardCommandTest.Run active = keys(file, "retire", "new");
    assertThat(active.exit()).isEqualTo(2);
    assertThat(active.err()).contains("'new' is the active key");
    byte[] before = Files.readAllBytes(file);
    GuardCommandTest.Run refused = keys(file, "retire", "old");
    assertThat(refused.exit()).isEqualTo(2);
    assertThat(refused.err())
        .contains("refused: 3 command(s) in force on redirects.commands.v1 carry key old")
        .contains("the last expiring " + time(longExpiry));
    assertThat(Files.readAllBytes(file)).isEqualTo(before);

    // The long add ended by a REMOVE signed with the new key: the shorter add and the old REMOVE
    // (an hour) remain.
    publish(signed("rot-long-end", "rot-r1", "rot-long", now + 1_800_000L, "new", newHex));
    GuardCommandTest.Run fewer = keys(file, "retire", "old");
    assertThat(fewer.exit()).isEqualTo(2);
    assertThat(fewer.err())
        .contains("refused: 2 command(s)")
        .contains("the last expiring " + time(now + 3_600_000L));
    GuardCommandTest.Run listed = keys(file, "list");
    assertThat(listed.out())
        .containsPattern("(?m)^old +2 +" + time(now + 3_600_000L) + "$")
        .containsPattern("(?m)^new +active +1 +" + time(now + 1_800_000L) + "$");

    // --force retires it anyway, with a warning naming what verifiers will now refuse.
    GuardCommandTest.Run forced = keys(file, "retire", "old", "--force");
    assertThat(forced.exit()).as("retire --force: %s", forced.err()).isZero();
    assertThat(forced.err()).contains("--force: 2 command(s) in force").contains("carry key old");
    assertThat(read(file)).isEqualTo(new Doc("new", Map.of("new", newHex)));
    // list now names the commands in force whose key the file no longer lists
    assertThat(keys(file, "list").out())
        .contains("2 command(s) in force carry key 'old', which this file does not list");
    assertNoSecretIn(OLD_HEX, newHex);
  }

  @Test
  void retireGoesThroughOnceTheLastCommandOfTheKeyHasExpired() throws Exception {
    Path file = dir.resolve("expiry/redirects.json");
    Files.createDirectories(file.getParent());
    Files.writeString(file, "{\"active\": \"k1\", \"keys\": {\"k1\": \"" + OLD_HEX + "\"}}");
    GuardCommandTest.Run rotate = keys(file, "rotate", "--id", "k2");
    assertThat(rotate.exit()).as("rotate: %s", rotate.err()).isZero();
    assertThat(rotate.out()).contains("key k2 is active", "(was k1, still listed)");
    Doc d = read(file);
    assertThat(d.active()).isEqualTo("k2");
    assertThat(d.keys().keySet()).containsExactly("k1", "k2");

    long expires = System.currentTimeMillis() + 15_000;
    publish(signed("exp-1", "exp-r1", "", expires, "k1", OLD_HEX));
    GuardCommandTest.Run refused = keys(file, "retire", "k1");
    assertThat(refused.exit()).isEqualTo(2);
    assertThat(refused.err())
        .contains("refused: 1 command(s)", "the last expiring " + time(expires));
    Wait.forValue(
        "the k1 command's expiry",
        Duration.ofSeconds(40),
        Duration.ofMillis(200),
        () -> System.currentTimeMillis() > expires ? Optional.of(true) : Optional.empty());
    GuardCommandTest.Run retired = keys(file, "retire", "k1");
    assertThat(retired.exit()).as("retire: %s", retired.err()).isZero();
    assertThat(retired.out()).contains("retired key k1");
    assertThat(read(file).keys().keySet()).containsExactly("k2");
    assertNoSecretIn(OLD_HEX, d.keys().get("k2"));
  }

  @Test
  void badRequestsAreClearErrorsAndLeaveTheFileAlone() throws Exception {
    Path file = dir.resolve("bad/redirects.json");
    Files.createDirectories(file.getParent());
    Files.writeString(file, "{\"active\": \"k1\", \"keys\": {\"k1\": \"" + OLD_HEX + "\"}}");
    byte[] before = Files.readAllBytes(file);
    GuardCommandTest.Run missing = keys(dir.resolve("nowhere.json"), "list");
    assertThat(missing.exit()).isEqualTo(2);
    assertThat(missing.err()).contains("no redirect keys file at " + dir.resolve("nowhere.json"));
    GuardCommandTest.Run unknown = keys(file, "activate", "nope");
    assertThat(unknown.exit()).isEqualTo(2);
    assertThat(unknown.err()).contains("no key 'nope' in the keys file (it lists k1)");
    GuardCommandTest.Run retireUnknown = keys(file, "retire", "nope");
    assertThat(retireUnknown.exit()).isEqualTo(2);
    assertThat(retireUnknown.err()).contains("no key 'nope'");
    GuardCommandTest.Run twice = keys(file, "add", "--id", "k1");
    assertThat(twice.exit()).isEqualTo(2);
    assertThat(twice.err()).contains("key id 'k1' is already listed");
    GuardCommandTest.Run badId = keys(file, "add", "--id", "a b\"");
    assertThat(badId.exit()).isEqualTo(2);
    assertThat(badId.err()).contains("--id must be");
    assertThat(Files.readAllBytes(file)).isEqualTo(before);
    // A broken file: named, its secret not quoted.
    Path broken = dir.resolve("bad/broken.json");
    Files.writeString(broken, "{\"active\": \"k1\", \"keys\": {\"k1\": " + OLD_HEX + "}}");
    GuardCommandTest.Run b = keys(broken, "list");
    assertThat(b.exit()).isEqualTo(2);
    assertThat(b.err()).contains(broken.toString(), "is not valid JSON");
    // Without a broker: list shows "?", retire is refused unless --force.
    Path two = dir.resolve("bad/two.json");
    Files.writeString(
        two,
        "{\"active\": \"k1\", \"keys\": {\"k1\": \""
            + OLD_HEX
            + "\", \"k0\": \""
            + "0f".repeat(32)
            + "\"}}");
    String dead = "127.0.0.1:" + FreePorts.pick();
    GuardCommandTest.Run blind =
        cheetah("keys", "list", "--keys", two.toString(), "--bootstrap", dead);
    assertThat(blind.exit()).as("list without a broker: %s", blind.err()).isZero();
    assertThat(blind.out())
        .containsPattern("(?m)^k0 +\\? +\\?$")
        .contains("commands in force: unknown (no Kafka broker answers at --bootstrap " + dead);
    GuardCommandTest.Run unchecked =
        cheetah("keys", "retire", "k0", "--keys", two.toString(), "--bootstrap", dead);
    assertThat(unchecked.exit()).isEqualTo(2);
    assertThat(unchecked.err()).contains("no Kafka broker answers", "--force skips the check");
    assertThat(read(two).keys()).containsOnlyKeys("k1", "k0");
    GuardCommandTest.Run forced =
        cheetah("keys", "retire", "k0", "--force", "--keys", two.toString(), "--bootstrap", dead);
    assertThat(forced.exit()).as("retire --force: %s", forced.err()).isZero();
    assertThat(forced.err()).contains("warning: not checked");
    assertThat(read(two).keys()).containsOnlyKeys("k1");
    assertNoSecretIn("0f".repeat(32));
    assertNoSecretIn(OLD_HEX);
  }

  static void assertNoSecretIn(String... secrets) {
    for (String out : outputs) {
      for (String s : secrets) {
        assertThat(out.toLowerCase(java.util.Locale.ROOT))
            .doesNotContain(s.substring(0, 16))
            .doesNotContain(s.substring(16, 48));
      }
    }
  }
}
