package net.cheetah.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import net.cheetah.core.Topics;
import net.cheetah.runtime.EmbeddedKafka;
import net.cheetah.runtime.FreePorts;
import net.cheetah.runtime.TopicLayout;
import net.cheetah.schemas.v1.AckStatus;
import net.cheetah.schemas.v1.RedirectAck;
import net.cheetah.schemas.v1.RedirectAction;
import net.cheetah.schemas.v1.RedirectCommand;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code ./cheetah guard} against a real broker with every topic: the RWND_CAP command it publishes
 * carries the fields of docs/REDIRECTS.md ("Incast guards"), checked by hand, and its hmac is
 * HMAC-SHA256 over its encoding with hmac cleared, computed here with javax.crypto from the keys
 * file's secret; a protected receiver is refused with nothing published; remove names the guard it
 * ends; list shows the guards in force with their acks.
 */
@Tag("integration")
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class GuardCommandTest {
  static final String KEY_ID = "guard-test-1";
  // 32 bytes, written by hand (not by RedirectKeys), as the adapters' keys file would hold it.
  static final String SECRET_HEX =
      "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f";

  @TempDir static Path dir;
  static EmbeddedKafka kafka;
  static Path keysFile;

  @BeforeAll
  static void broker() throws Exception {
    kafka =
        new EmbeddedKafka(
            EmbeddedKafka.Config.defaults(dir.resolve("kafka"))
                .withPorts(FreePorts.pick(), FreePorts.pick()));
    kafka.start();
    new TopicLayout(TopicLayout.Config.embedded()).createAll(kafka);
    keysFile = dir.resolve("redirects.json");
    Files.writeString(
        keysFile,
        "{\"active\": \"" + KEY_ID + "\", \"keys\": {\"" + KEY_ID + "\": \"" + SECRET_HEX + "\"}}");
  }

  @AfterAll
  static void stop() {
    if (kafka != null) {
      kafka.close();
    }
  }

  /** Exit code, stdout and stderr of one ./cheetah command line, run as main runs it. */
  record Run(int exit, String out, String err) {}

  static Run cheetah(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    picocli.CommandLine cl = Main.commandLine();
    cl.setOut(new PrintWriter(out, true));
    cl.setErr(new PrintWriter(err, true));
    int exit = cl.execute(args);
    return new Run(exit, out.toString(), err.toString());
  }

  /** guard SUBCOMMAND with the test's broker, keys and protected prefixes. */
  static Run guard(String... args) {
    List<String> all = new ArrayList<>(List.of("guard"));
    all.addAll(Arrays.asList(args));
    all.addAll(
        List.of(
            "--bootstrap",
            kafka.bootstrapServers(),
            "--set",
            "redirects.keys-file=" + keysFile,
            "--set",
            "redirects.protected-prefixes=198.18.0.0/15,2001:db8::/32",
            "--set",
            "data-dir=" + dir.resolve("data")));
    return cheetah(all.toArray(String[]::new));
  }

  @Test
  void setPublishesASignedRwndCapCommandAndItsAuditRecord() throws Exception {
    String device = "tor-1/port-r1";
    long before = System.currentTimeMillis();
    Run run =
        guard(
            "set",
            "--device",
            device,
            "--receiver",
            "10.9.0.1",
            "--buffer",
            "256KiB",
            "--ttl",
            "2h");
    long after = System.currentTimeMillis();
    assertThat(run.exit()).as("exit of guard set; stderr: %s", run.err()).isZero();

    List<ConsumerRecord<byte[], byte[]>> records = records(Topics.REDIRECTS_COMMANDS, device);
    assertThat(records).as("commands for %s", device).hasSize(1);
    ConsumerRecord<byte[], byte[]> rec = records.get(0);
    RedirectCommand c = RedirectCommand.parseFrom(rec.value());
    assertThat(c.getAction()).isEqualTo(RedirectAction.REDIRECT_ACTION_RWND_CAP);
    assertThat(c.getDeviceId()).isEqualTo(device);
    // 10.9.0.1 as IPv4-mapped IPv6: ten zero bytes, ff ff, then the four bytes; a host (/128).
    assertThat(c.getDstPrefix().toByteArray())
        .isEqualTo(
            new byte[] {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, (byte) 0xff, (byte) 0xff, 10, 9, 0, 1});
    assertThat(c.getDstPrefixLen()).isEqualTo(128);
    assertThat(c.getSrcPrefix().isEmpty()).as("no source").isTrue();
    assertThat(c.getSrcPrefixLen()).isZero();
    assertThat(c.getSrcPort()).isZero();
    assertThat(c.getDstPort()).isZero();
    assertThat(c.getProto()).as("TCP").isEqualTo(6);
    assertThat(c.getRwndBytes()).as("256 KiB").isEqualTo(262_144L);
    assertThat(c.getIssuedMs()).isBetween(before, after);
    assertThat(c.getExpiresMs()).as("issued + 2 h").isEqualTo(c.getIssuedMs() + 7_200_000L);
    assertThat(c.getDryRun()).isFalse();
    assertThat(c.getReplacesCommandId()).isEmpty();
    assertThat(c.getReason()).contains("incast guard").contains("10.9.0.1");
    // The id: a hash of the cause (docs/REDIRECTS.md, "Incast guards"), computed here.
    String cause =
        "guard 10.9.0.1 buffer 262144 issued " + c.getIssuedMs() + " expires " + c.getExpiresMs();
    assertThat(c.getCommandId()).isEqualTo(sha256Prefix("add|" + device + "|" + cause));
    // The signature, computed independently: HMAC-SHA256 over the encoding with hmac cleared.
    assertThat(c.getKeyId()).isEqualTo(KEY_ID);
    byte[] signed = c.toBuilder().clearHmac().build().toByteArray();
    assertThat(c.getHmac().toByteArray())
        .as("hmac verifies with the keys file's secret")
        .isEqualTo(hmac(HexFormat.of().parseHex(SECRET_HEX), signed));
    assertThat(c.getHmac().toByteArray())
        .as("and not with another secret")
        .isNotEqualTo(hmac(new byte[32], signed));
    // The audit record: the same signed bytes on redirects.decisions.v1, keyed by the device.
    List<ConsumerRecord<byte[], byte[]>> audit = records(Topics.REDIRECTS_DECISIONS, device);
    assertThat(audit).hasSize(1);
    assertThat(audit.get(0).value()).isEqualTo(rec.value());
    assertThat(run.out()).contains(c.getCommandId()).contains("262144 B");
  }

  @Test
  void aProtectedReceiverIsRefusedAndNothingIsPublished() throws Exception {
    Map<TopicPartition, Long> before = ends();
    for (String receiver : List.of("198.18.7.7", "2001:db8:0:1::7")) {
      Run run = guard("set", "--device", "tor-9/port-p", "--receiver", receiver);
      assertThat(run.exit()).as("exit of guard set --receiver %s", receiver).isEqualTo(2);
      assertThat(run.err())
          .contains("refused")
          .contains(receiver.contains(":") ? "2001:db8::/32" : "198.18.0.0/15")
          .contains("redirects.protected-prefixes");
      assertThat(run.out()).isEmpty();
    }
    assertThat(ends()).as("end offsets of the redirect topics").isEqualTo(before);
    assertThat(records(Topics.REDIRECTS_COMMANDS, "tor-9/port-p")).isEmpty();
  }

  @Test
  void removeEndsTheGuardInForce() throws Exception {
    String device = "tor-2/port-r2";
    assertThat(guard("set", "--device", device, "--receiver", "fd00::9").exit()).isZero();
    RedirectCommand add =
        RedirectCommand.parseFrom(records(Topics.REDIRECTS_COMMANDS, device).get(0).value());
    assertThat(add.getRwndBytes()).as("default buffer: the queue's limit").isZero();
    assertThat(add.getExpiresMs() - add.getIssuedMs())
        .as("default ttl: redirects.guard-ttl-ms")
        .isEqualTo(86_400_000L);
    assertThat(add.getDstPrefix().toByteArray())
        .isEqualTo(HexFormat.of().parseHex("fd000000000000000000000000000009"));

    Run run = guard("remove", "--device", device, "--receiver", "fd00:0::9");
    assertThat(run.exit()).as("exit of guard remove; stderr: %s", run.err()).isZero();
    List<ConsumerRecord<byte[], byte[]>> records = records(Topics.REDIRECTS_COMMANDS, device);
    assertThat(records).hasSize(2);
    RedirectCommand remove = RedirectCommand.parseFrom(records.get(1).value());
    assertThat(remove.getAction()).isEqualTo(RedirectAction.REDIRECT_ACTION_REMOVE);
    assertThat(remove.getReplacesCommandId()).isEqualTo(add.getCommandId());
    assertThat(remove.getCommandId()).isEqualTo(sha256Prefix("remove|" + add.getCommandId()));
    assertThat(remove.getDeviceId()).isEqualTo(device);
    assertThat(remove.getDstPrefix()).as("the match repeated").isEqualTo(add.getDstPrefix());
    assertThat(remove.getDstPrefixLen()).isEqualTo(128);
    assertThat(remove.getExpiresMs()).as("expires with its rule").isEqualTo(add.getExpiresMs());
    assertThat(remove.getHmac().toByteArray())
        .isEqualTo(
            hmac(
                HexFormat.of().parseHex(SECRET_HEX),
                remove.toBuilder().clearHmac().build().toByteArray()));
    assertThat(records(Topics.REDIRECTS_DECISIONS, device)).hasSize(2);

    assertThat(guard("list", "--device", device).out()).contains("no guard in force");
    Run again = guard("remove", "--device", device, "--receiver", "fd00::9");
    assertThat(again.exit()).as("nothing left to remove").isEqualTo(2);
    assertThat(again.err()).contains("no guard of receiver fd00::9 at device tor-2/port-r2");
    assertThat(records(Topics.REDIRECTS_COMMANDS, device)).hasSize(2);
  }

  @Test
  void listShowsTheGuardsInForceWithTheirAcks() throws Exception {
    String device = "tor-3/port-r3";
    assertThat(
            guard("set", "--device", device, "--receiver", "10.9.0.3", "--buffer", "65536").exit())
        .isZero();
    // A guard that expires at once is never listed.
    assertThat(guard("set", "--device", device, "--receiver", "10.9.0.4", "--ttl", "1ms").exit())
        .isZero();
    String id =
        RedirectCommand.parseFrom(records(Topics.REDIRECTS_COMMANDS, device).get(0).value())
            .getCommandId();
    ack(
        RedirectAck.newBuilder()
            .setCommandId(id)
            .setDeviceId(device)
            .setStatus(AckStatus.ACK_STATUS_APPLIED)
            .setAdapter("incast")
            .setAckedMs(System.currentTimeMillis())
            .build());

    Run run = guard("list", "--device", device);
    assertThat(run.exit()).as("stderr: %s", run.err()).isZero();
    List<String> rows = run.out().lines().filter(l -> l.startsWith(device)).toList();
    assertThat(rows).as("rows of %s", run.out()).hasSize(1);
    assertThat(rows.get(0))
        .contains("10.9.0.3")
        .contains("65536 B")
        .contains(id)
        .contains("APPLIED (incast)");

    // Set again: the guard in force is replaced (its REMOVE first), the new one has no ack yet.
    Run replace = guard("set", "--device", device, "--receiver", "10.9.0.3", "--buffer", "131072");
    assertThat(replace.exit()).isZero();
    assertThat(replace.out()).contains("removed guard " + id);
    List<ConsumerRecord<byte[], byte[]>> records = records(Topics.REDIRECTS_COMMANDS, device);
    RedirectCommand remove = RedirectCommand.parseFrom(records.get(2).value());
    RedirectCommand renewed = RedirectCommand.parseFrom(records.get(3).value());
    assertThat(remove.getAction()).isEqualTo(RedirectAction.REDIRECT_ACTION_REMOVE);
    assertThat(remove.getReplacesCommandId()).isEqualTo(id);
    assertThat(renewed.getRwndBytes()).isEqualTo(131_072L);
    List<String> after = guard("list").out().lines().filter(l -> l.startsWith(device)).toList();
    assertThat(after).hasSize(1);
    assertThat(after.get(0))
        .contains(renewed.getCommandId())
        .contains("131072 B")
        .contains("no ack yet");
  }

  @Test
  void withoutABrokerOrKeysTheErrorSaysWhatToDo() {
    // No --bootstrap: the embedded stack's broker at 127.0.0.1:kafka.port is the default.
    String brokerPort =
        kafka.bootstrapServers().substring(kafka.bootstrapServers().lastIndexOf(':') + 1);
    Run found =
        cheetah("guard", "list", "--set", "kafka.port=" + brokerPort, "--set", "data-dir=" + dir);
    assertThat(found.exit()).as("stderr: %s", found.err()).isZero();
    int port = FreePorts.pick();
    Run run = cheetah("guard", "list", "--set", "kafka.port=" + port, "--set", "data-dir=" + dir);
    assertThat(run.exit()).isEqualTo(2);
    assertThat(run.err())
        .contains("no Kafka broker answers at 127.0.0.1:" + port)
        .contains("./cheetah up")
        .contains("--bootstrap");
    Run noKeys =
        cheetah(
            "guard",
            "set",
            "--device",
            "d",
            "--receiver",
            "10.0.0.1",
            "--set",
            "data-dir=" + dir.resolve("empty"));
    assertThat(noKeys.exit()).isEqualTo(2);
    assertThat(noKeys.err()).contains("no redirect keys file").contains("redirects.keys-file");
    Run name = guard("set", "--device", "d", "--receiver", "localhost");
    assertThat(name.exit()).isEqualTo(2);
    assertThat(name.err()).contains("--receiver must be one IPv4 or IPv6 address");
  }

  static String sha256Prefix(String s) throws Exception {
    byte[] d = MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8));
    return HexFormat.of().formatHex(d, 0, 16);
  }

  static byte[] hmac(byte[] secret, byte[] data) throws Exception {
    Mac m = Mac.getInstance("HmacSHA256");
    m.init(new SecretKeySpec(secret, "HmacSHA256"));
    return m.doFinal(data);
  }

  static void ack(RedirectAck a) throws Exception {
    Properties p = new Properties();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
    p.put(ProducerConfig.ACKS_CONFIG, "all");
    try (KafkaProducer<byte[], byte[]> producer =
        new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer())) {
      producer
          .send(
              new ProducerRecord<>(
                  Topics.REDIRECTS_ACKS,
                  a.getDeviceId().getBytes(StandardCharsets.UTF_8),
                  a.toByteArray()))
          .get();
    }
  }

  static KafkaConsumer<byte[], byte[]> consumer() {
    Properties p = new Properties();
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
    p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    return new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer());
  }

  /** End offsets of every partition of the redirect command and decision topics. */
  static Map<TopicPartition, Long> ends() {
    try (KafkaConsumer<byte[], byte[]> c = consumer()) {
      List<TopicPartition> parts =
          Stream.of(Topics.REDIRECTS_COMMANDS, Topics.REDIRECTS_DECISIONS)
              .flatMap(t -> partitions(c, t).stream())
              .toList();
      return c.endOffsets(parts, Duration.ofSeconds(30));
    }
  }

  static List<TopicPartition> partitions(KafkaConsumer<byte[], byte[]> c, String topic) {
    return c.partitionsFor(topic, Duration.ofSeconds(30)).stream()
        .map(i -> new TopicPartition(topic, i.partition()))
        .toList();
  }

  /** Every record of {@code topic} keyed by {@code key}, in offset order. */
  static List<ConsumerRecord<byte[], byte[]>> records(String topic, String key) {
    List<ConsumerRecord<byte[], byte[]>> out = new ArrayList<>();
    try (KafkaConsumer<byte[], byte[]> c = consumer()) {
      List<TopicPartition> parts = partitions(c, topic);
      c.assign(parts);
      c.seekToBeginning(parts);
      Map<TopicPartition, Long> end = c.endOffsets(parts, Duration.ofSeconds(30));
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      while (parts.stream().anyMatch(tp -> c.position(tp) < end.get(tp))) {
        assertThat(System.nanoTime()).as("read %s to its end in 60 s", topic).isLessThan(deadline);
        for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(200))) {
          if (Arrays.equals(r.key(), key.getBytes(StandardCharsets.UTF_8))) {
            out.add(r);
          }
        }
      }
    }
    out.sort(
        (a, b) ->
            a.partition() != b.partition()
                ? Integer.compare(a.partition(), b.partition())
                : Long.compare(a.offset(), b.offset()));
    return out;
  }
}
