package net.cheetah.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import net.cheetah.core.Topics;
import net.cheetah.core.flow.Address;
import net.cheetah.jobs.CheetahJob;
import net.cheetah.jobs.codec.Codec;
import net.cheetah.jobs.redirects.RedirectKeys;
import net.cheetah.runtime.FlinkRest;
import net.cheetah.runtime.Wait;
import net.cheetah.schemas.v1.CheetahEvent;
import net.cheetah.schemas.v1.CheetahEventType;
import net.cheetah.schemas.v1.DetectionSource;
import net.cheetah.schemas.v1.FlowRecord;
import net.cheetah.schemas.v1.FlowSource;
import net.cheetah.schemas.v1.RedirectAction;
import net.cheetah.schemas.v1.RedirectCommand;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;

/**
 * cheetahs.v1 → the redirect job → signed commands on redirects.commands.v1 (verified with the
 * stack's keys file), refusals and decisions in the warehouse, the rule in force in redirect_rules;
 * and the command path does not wait for checkpoints: with checkpoints every 5 minutes, the command
 * arrives within seconds. With prefix filters on, NetFlow α flows of one exporter also install one
 * (src /24, dst /24) filter at the exporter's device; probe cheetahs build none. A key rotation in
 * the keys file reaches the running job: later commands carry the new key, without a restart.
 */
@Tag("integration")
class RedirectEndToEndTest {
  static final String TEST = "redirects";

  @TempDir(cleanup = CleanupMode.ON_SUCCESS)
  Path dir;

  static CheetahEvent event(String flow, CheetahEventType type, long seq, String src) {
    long now = System.currentTimeMillis();
    return CheetahEvent.newBuilder()
        .setFlowId(flow)
        .setType(type)
        .setSource(DetectionSource.DETECTION_SOURCE_PROBE)
        .setEventMs(now)
        .setSeq(seq)
        .setLinkId("esnet-a")
        .setSrcAddr(Codec.addr(Address.parse(src)))
        .setDstAddr(Codec.addr(Address.parse("198.18.2.20")))
        .setSrcPort(40000)
        .setDstPort(5201)
        .setProto(6)
        .setStartMs(now - 1000)
        .setEndMs(now)
        .setRateBps(3e9)
        .setThresholdVersion(4)
        .build();
  }

  /** A NetFlow cheetah (an α flow) exported by {@link #EXPORTER}, without a link id. */
  static CheetahEvent alpha(String flow, CheetahEventType type, long seq, String src, String dst) {
    long now = System.currentTimeMillis();
    return CheetahEvent.newBuilder()
        .setFlowId(flow)
        .setType(type)
        .setSource(DetectionSource.DETECTION_SOURCE_NETFLOW)
        .setEventMs(now)
        .setSeq(seq)
        .setExporter(Codec.addr(Address.parse(EXPORTER)))
        .setSrcAddr(Codec.addr(Address.parse(src)))
        .setDstAddr(Codec.addr(Address.parse(dst)))
        .setSrcPort(50000)
        .setDstPort(2811)
        .setProto(6)
        .setStartMs(now - 60_000)
        .setEndMs(now)
        .setBytes(2_000_000_000L)
        .setRateBps(2.5e9)
        .build();
  }

  static final String EXPORTER = "10.0.0.1";

  @Test
  void aCheetahBecomesASignedCommandWithinSecondsAndItsEndRemovesTheRule() throws Exception {
    Tools tools = EndToEnd.tools();
    Map<String, String> settings =
        Map.of(
            "redirects.link-devices", "esnet-a=r1," + EXPORTER + "=r2",
            "redirects.prefix-filter-length", "24",
            "redirects.protected-prefixes", "198.18.9.0/24",
            "flink.checkpoint-interval-ms", "300000");
    try (Stack stack =
        new Stack(
            EndToEnd.config(settings),
            tools,
            dir.resolve("stack"),
            true,
            s -> EndToEnd.say(TEST, s))) {
      stack.start();
      EndToEnd.stopMerges(stack, tools);
      RedirectKeys keys = RedirectKeys.load(stack.redirectKeys());
      Properties p = new Properties();
      p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, stack.bootstrap());
      p.put(ProducerConfig.ACKS_CONFIG, "all");
      Properties c = new Properties();
      c.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, stack.bootstrap());
      c.put(ConsumerConfig.GROUP_ID_CONFIG, "redirect-test");
      c.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
      try (KafkaProducer<byte[], byte[]> producer =
              new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer());
          KafkaConsumer<byte[], byte[]> consumer =
              new KafkaConsumer<>(c, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
        consumer.subscribe(List.of(Topics.REDIRECTS_COMMANDS));
        long sent = System.nanoTime();
        send(producer, event("f-1", CheetahEventType.CHEETAH_EVENT_TYPE_START, 1, "198.18.1.10"));
        send(
            producer,
            event("f-protected", CheetahEventType.CHEETAH_EVENT_TYPE_START, 1, "198.18.9.9"));
        List<RedirectCommand> commands = new ArrayList<>();
        await(consumer, commands, 1);
        double seconds = (System.nanoTime() - sent) / 1e9;
        EndToEnd.say(TEST, String.format("first command %.2f s after the cheetah event", seconds));
        assertThat(seconds).isLessThan(60); // far below the 300 s checkpoint interval
        RedirectCommand add = commands.get(0);
        assertThat(keys.verify(add)).isTrue();
        assertThat(add.getAction()).isEqualTo(RedirectAction.REDIRECT_ACTION_SCAVENGER);
        assertThat(List.of(add.getDeviceId(), add.getCheetahFlowId(), add.getLinkId()))
            .containsExactly("r1", "f-1", "esnet-a");
        assertThat(add.getThresholdVersion()).isEqualTo(4);

        send(producer, event("f-1", CheetahEventType.CHEETAH_EVENT_TYPE_END, 3, "198.18.1.10"));
        await(consumer, commands, 2);
        RedirectCommand remove = commands.get(1);
        assertThat(keys.verify(remove)).isTrue();
        assertThat(remove.getAction()).isEqualTo(RedirectAction.REDIRECT_ACTION_REMOVE);
        assertThat(remove.getReplacesCommandId()).isEqualTo(add.getCommandId());
        assertThat(commands).noneMatch(x -> x.getCheetahFlowId().equals("f-protected"));

        // Two α flows of one /24 pair at the exporter: each isolated, one filter for the pair.
        // The end of the first comes last, so its removal shows every earlier decision is out.
        // Each event waits for the commands of the one before: the events are keyed by flow, so
        // they sit on different partitions, which the job may read in any order.
        send(
            producer,
            alpha(
                "a-1", CheetahEventType.CHEETAH_EVENT_TYPE_START, 1, "198.18.1.10", "198.18.2.20"));
        await(consumer, commands, 4);
        send(
            producer,
            alpha(
                "a-2", CheetahEventType.CHEETAH_EVENT_TYPE_START, 1, "198.18.1.99", "198.18.2.5"));
        await(consumer, commands, 5);
        send(
            producer,
            alpha("a-1", CheetahEventType.CHEETAH_EVENT_TYPE_END, 2, "198.18.1.10", "198.18.2.20"));
        await(consumer, commands, 6);
        List<RedirectCommand> r2 =
            commands.stream().filter(x -> x.getDeviceId().equals("r2")).toList();
        assertThat(r2)
            .extracting(
                x -> x.getAction() + " " + x.getCheetahFlowId() + " /" + x.getSrcPrefixLen())
            .containsExactly(
                "REDIRECT_ACTION_SCAVENGER a-1 /128",
                "REDIRECT_ACTION_SCAVENGER  /120",
                "REDIRECT_ACTION_SCAVENGER a-2 /128",
                "REDIRECT_ACTION_REMOVE a-1 /128");
        RedirectCommand filter = r2.get(1);
        assertThat(keys.verify(filter)).isTrue();
        assertThat(filter.getSrcPrefix()).isEqualTo(Codec.addr(Address.parse("198.18.1.0")));
        assertThat(filter.getDstPrefix()).isEqualTo(Codec.addr(Address.parse("198.18.2.0")));
        assertThat(filter.getDstPrefixLen()).isEqualTo(120);
        assertThat(List.of(filter.getSrcPort(), filter.getDstPort(), filter.getProto()))
            .containsExactly(0, 0, 0);
        assertThat(filter.getLinkId()).isEqualTo(EXPORTER);
        assertThat(filter.getReason())
            .isEqualTo(
                "prefix 198.18.1.0/24→198.18.2.0/24: α flow a-1 from 10.0.0.1 at 2.500 Gb/s");
        // It lives 30 days after the α flow (the event time, stamped just before sending).
        assertThat(filter.getExpiresMs() - filter.getIssuedMs())
            .isBetween(30 * 86_400_000L - 60_000, 30 * 86_400_000L);
      }
      WarehouseClient wh = new WarehouseClient(stack.warehouseUrl());
      String audit =
          Wait.forValue(
              "the decisions and the rule in the warehouse",
              Duration.ofMinutes(2),
              Duration.ofSeconds(1),
              () -> {
                try {
                  String d =
                      wh.query(
                          "SELECT cheetah_flow_id, outcome, action, refusal FROM redirect_decisions FINAL"
                              + " WHERE device_id = 'r1' ORDER BY cheetah_flow_id, action FORMAT TSV");
                  String r =
                      wh.query(
                          "SELECT state FROM redirect_rules FINAL WHERE device_id = 'r1' FORMAT TSV");
                  return d.lines().count() == 3 && r.equals("removed")
                      ? java.util.Optional.of(d)
                      : java.util.Optional.empty();
                } catch (Exception e) {
                  return java.util.Optional.empty();
                }
              });
      assertThat(audit)
          .isEqualTo(
              "f-1\tpublished\tremove\t\n"
                  + "f-1\tpublished\tscavenger\t\n"
                  + "f-protected\trefused\tscavenger\tprotected prefix 198.18.9.0/24");
      String filters =
          Wait.forValue(
              "the prefix filter in the warehouse",
              Duration.ofMinutes(1),
              Duration.ofSeconds(1),
              () -> {
                try {
                  String r =
                      wh.query(
                          "SELECT state, IPv6NumToString(src_prefix), src_prefix_len,"
                              + " IPv6NumToString(dst_prefix), dst_prefix_len, src_port, proto"
                              + " FROM redirect_rules FINAL WHERE device_id = 'r2' AND src_prefix_len < 128"
                              + " FORMAT TSV");
                  String d =
                      wh.query(
                          "SELECT count() FROM redirect_decisions FINAL WHERE device_id = 'r2'"
                              + " AND outcome = 'published' AND src_prefix_len = 120 FORMAT TSV");
                  return d.equals("1") ? java.util.Optional.of(r) : java.util.Optional.empty();
                } catch (Exception e) {
                  return java.util.Optional.empty();
                }
              });
      assertThat(filters).isEqualTo("active\t::ffff:198.18.1.0\t120\t::ffff:198.18.2.0\t120\t0\t0");
      rotatesItsKeyWithoutARestart(stack);
      // At least once by design, but nothing failed here: each decision and command once.
      EndToEnd.assertStoredOnce(
          stack, tools, StoredOnce.Result.REDIRECT_DECISIONS, StoredOnce.Result.REDIRECT_COMMANDS);
      EndToEnd.assertNoRestarts(stack);
    }
  }

  static final String ROTATED_ID = "rotated-1";
  // 32 bytes written by hand, not by RedirectKeys.
  static final String ROTATED_HEX =
      "f0e1d2c3b4a5968778695a4b3c2d1e0f00112233445566778899aabbccddeeff";

  /**
   * Key rotation while the job runs (docs/REDIRECTS.md, "Key rotation"): a command before the
   * rotation carries the stack's key id and verifies with its secret; the keys file is then
   * replaced (a new file renamed over it) with a second key made active, and within a few commands
   * (the job looks at the file at most once a second) the commands carry the new id and verify with
   * the new secret (HMAC-SHA256 with javax.crypto over the command with hmac cleared), and keep
   * doing so. The same job (id) runs throughout; the caller checks it never restarted.
   */
  private static void rotatesItsKeyWithoutARestart(Stack stack) throws Exception {
    FlinkRest rest = new FlinkRest(stack.flinkUrl());
    String job = redirectJobId(rest);
    Path file = stack.redirectKeys();
    JsonNode before = new ObjectMapper().readTree(Files.readAllBytes(file));
    String oldId = before.get("active").asText();
    String oldHex = before.get("keys").get(oldId).asText();
    Properties p = new Properties();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, stack.bootstrap());
    p.put(ProducerConfig.ACKS_CONFIG, "all");
    try (KafkaProducer<byte[], byte[]> producer =
            new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer());
        KafkaConsumer<byte[], byte[]> commands = consumer(stack, "read_committed")) {
      List<TopicPartition> parts = partitions(commands, Topics.REDIRECTS_COMMANDS);
      commands.assign(parts);
      commands.seekToEnd(parts);
      parts.forEach(commands::position); // the end now, before anything is sent
      send(producer, event("rot-0", CheetahEventType.CHEETAH_EVENT_TYPE_START, 1, "198.18.1.100"));
      RedirectCommand first = awaitCommand(commands, "rot-0");
      assertThat(first.getKeyId()).isEqualTo(oldId);
      assertThat(hmacHex(oldHex, first)).isEqualTo(hex(first.getHmac().toByteArray()));

      Path tmp = file.resolveSibling(file.getFileName() + ".rotating");
      Files.writeString(
          tmp,
          "{\"active\": \""
              + ROTATED_ID
              + "\", \"keys\": {\""
              + oldId
              + "\": \""
              + oldHex
              + "\", \""
              + ROTATED_ID
              + "\": \""
              + ROTATED_HEX
              + "\"}}");
      Files.move(tmp, file, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
      long rotated = System.nanoTime();

      // Until the job has looked at the file again (at most a second after it changed), a command
      // may still carry the old key; each one carries one of the two and verifies with its
      // secret. One cheetah every 300 ms (the device's new-rule rate allows 30 a minute).
      int switchedAt = -1;
      for (int i = 1; i <= 12 && switchedAt < 0; i++) {
        long next = rotated + i * 300_000_000L;
        Wait.forValue(
            "the next 300 ms",
            Duration.ofSeconds(10),
            Duration.ofMillis(20),
            () ->
                System.nanoTime() >= next
                    ? java.util.Optional.of(true)
                    : java.util.Optional.empty());
        String flow = "rot-" + i;
        send(
            producer,
            event(flow, CheetahEventType.CHEETAH_EVENT_TYPE_START, 1, "198.18.1." + (100 + i)));
        RedirectCommand c = awaitCommand(commands, flow);
        String secret = c.getKeyId().equals(ROTATED_ID) ? ROTATED_HEX : oldHex;
        assertThat(c.getKeyId()).as("key id of %s", flow).isIn(oldId, ROTATED_ID);
        assertThat(hmacHex(secret, c))
            .as("hmac of %s", flow)
            .isEqualTo(hex(c.getHmac().toByteArray()));
        if (c.getKeyId().equals(ROTATED_ID)) {
          switchedAt = i;
        }
      }
      double seconds = (System.nanoTime() - rotated) / 1e9;
      EndToEnd.say(
          TEST,
          String.format(
              java.util.Locale.ROOT,
              "key rotation: the new key signs from command %d after the file changed (%.2f s)",
              switchedAt,
              seconds));
      assertThat(switchedAt)
          .as("commands after the rotation until one carried the new key")
          .isPositive();
      send(
          producer,
          event("rot-after", CheetahEventType.CHEETAH_EVENT_TYPE_START, 1, "198.18.1.99"));
      RedirectCommand after = awaitCommand(commands, "rot-after");
      assertThat(after.getKeyId()).isEqualTo(ROTATED_ID);
      assertThat(hmacHex(ROTATED_HEX, after)).isEqualTo(hex(after.getHmac().toByteArray()));
    }
    assertThat(redirectJobId(rest))
        .as("the redirect job's id: the same job ran throughout")
        .isEqualTo(job);
  }

  private static String redirectJobId(FlinkRest rest) throws Exception {
    return rest.jobs().stream()
        .filter(j -> j.name().equals(net.cheetah.jobs.RedirectJob.NAME))
        .findFirst()
        .orElseThrow()
        .id();
  }

  private static String hmacHex(String secretHex, RedirectCommand signed) throws Exception {
    Mac m = Mac.getInstance("HmacSHA256");
    m.init(new SecretKeySpec(HexFormat.of().parseHex(secretHex), "HmacSHA256"));
    return hex(m.doFinal(signed.toBuilder().clearHmac().build().toByteArray()));
  }

  private static String hex(byte[] b) {
    return HexFormat.of().formatHex(b);
  }

  /**
   * Neither kind of cheetah waits for the checkpoint that commits cheetahs.v1
   * (docs/ARCHITECTURE.md, "Redirect commands"). With checkpoints every 5 minutes, a NetFlow
   * cheetah the cheetah job detects in flows.v1 becomes a command while its START is still
   * uncommitted on cheetahs.v1 (at or beyond the partition's last stable offset, which a
   * read_committed consumer stops at); so does a probe cheetah written to that partition behind it,
   * which a read_committed reader could not even see yet. An attempt during which a checkpoint
   * completed proves nothing and is made again.
   */
  @Test
  void commandsComeBeforeTheCheckpointThatCommitsTheirCheetah() throws Exception {
    Tools tools = EndToEnd.tools();
    Map<String, String> settings =
        Map.of(
            "redirects.link-devices", "esnet-a=r1," + EXPORTER + "=r2",
            "flink.checkpoint-interval-ms", "300000",
            // A small NetFlow cheetah (as in the isolation experiment): H = 2 MB in a 5 s interval;
            // after 1 s without records, event time follows the wall clock.
            "detection.h-bytes", "2e6",
            "detection.interval-ms", "5000",
            "detection.out-of-orderness-ms", "500",
            "detection.idle-advance-ms", "1000");
    try (Stack stack =
        new Stack(
            EndToEnd.config(settings),
            tools,
            dir.resolve("at-once"),
            true,
            s -> EndToEnd.say(TEST, s))) {
      stack.start();
      FlinkRest rest = new FlinkRest(stack.flinkUrl());
      String cheetahJob =
          rest.jobs().stream()
              .filter(j -> j.name().equals(CheetahJob.NAME))
              .findFirst()
              .orElseThrow()
              .id();
      Properties p = new Properties();
      p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, stack.bootstrap());
      p.put(ProducerConfig.ACKS_CONFIG, "all");
      try (KafkaProducer<byte[], byte[]> producer =
              new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer());
          KafkaConsumer<byte[], byte[]> uncommitted = consumer(stack, "read_uncommitted");
          KafkaConsumer<byte[], byte[]> committed = consumer(stack, "read_committed");
          KafkaConsumer<byte[], byte[]> commands = consumer(stack, "read_committed")) {
        List<TopicPartition> cheetahParts = partitions(uncommitted, Topics.CHEETAHS);
        uncommitted.assign(cheetahParts);
        uncommitted.seekToBeginning(cheetahParts);
        List<TopicPartition> commandParts = partitions(commands, Topics.REDIRECTS_COMMANDS);
        commands.assign(commandParts);
        commands.seekToBeginning(commandParts);
        for (int attempt = 1; ; attempt++) {
          long checkpoints = rest.completedCheckpoints(cheetahJob);
          int port = 40_000 + attempt;
          long now = System.currentTimeMillis();
          producer
              .send(
                  new ProducerRecord<>(
                      Topics.FLOWS,
                      0,
                      ("flow-" + port).getBytes(StandardCharsets.UTF_8),
                      flow(port, now).toByteArray()))
              .get();
          ConsumerRecord<byte[], byte[]> start =
              Wait.forValue(
                  "the NetFlow START of port " + port + " on " + Topics.CHEETAHS + ", uncommitted",
                  Duration.ofMinutes(1),
                  Duration.ofMillis(10),
                  () -> {
                    for (ConsumerRecord<byte[], byte[]> r :
                        uncommitted.poll(Duration.ofMillis(100))) {
                      CheetahEvent e = parse(r);
                      if (e.getSource() == DetectionSource.DETECTION_SOURCE_NETFLOW
                          && e.getType() == CheetahEventType.CHEETAH_EVENT_TYPE_START
                          && e.getSrcPort() == port) {
                        return java.util.Optional.of(r);
                      }
                    }
                    return java.util.Optional.empty();
                  });
          String flowId = parse(start).getFlowId();
          TopicPartition part = new TopicPartition(start.topic(), start.partition());
          RedirectCommand netflow = awaitCommand(commands, flowId);
          long stableAtNetflowCommand = committed.endOffsets(List.of(part)).get(part);

          // A probe cheetah behind the open transaction on the same partition.
          String probeFlow = "probe-behind-" + attempt;
          producer
              .send(
                  new ProducerRecord<>(
                      Topics.CHEETAHS,
                      start.partition(),
                      probeFlow.getBytes(StandardCharsets.UTF_8),
                      event(probeFlow, CheetahEventType.CHEETAH_EVENT_TYPE_START, 1, "198.18.1.77")
                          .toByteArray()))
              .get();
          RedirectCommand probe = awaitCommand(commands, probeFlow);
          long stableAtProbeCommand = committed.endOffsets(List.of(part)).get(part);
          if (rest.completedCheckpoints(cheetahJob) != checkpoints) {
            EndToEnd.say(TEST, "a checkpoint completed during attempt " + attempt + ": again");
            assertThat(attempt).as("attempts, each interrupted by a checkpoint").isLessThan(3);
            continue;
          }
          assertThat(List.of(netflow.getDeviceId(), netflow.getLinkId()))
              .containsExactly("r2", EXPORTER);
          assertThat(List.of(probe.getDeviceId(), probe.getLinkId()))
              .containsExactly("r1", "esnet-a");
          // Both commands were out while the START (at start.offset()) was not committed.
          assertThat(stableAtNetflowCommand).isLessThanOrEqualTo(start.offset());
          assertThat(stableAtProbeCommand).isLessThanOrEqualTo(start.offset());
          break;
        }
      }
      EndToEnd.assertNoRestarts(stack);
    }
  }

  /** A flows.v1 record of a NetFlow cheetah exported by {@link #EXPORTER}: 20 MB in 3 s. */
  private static FlowRecord flow(int srcPort, long now) {
    return FlowRecord.newBuilder()
        .setExporter(Codec.addr(Address.parse(EXPORTER)))
        .setSource(FlowSource.FLOW_SOURCE_NETFLOW_V9)
        .setReceivedMs(now)
        .setStartMs(now - 4_000)
        .setEndMs(now - 1_000)
        .setSrcAddr(Codec.addr(Address.parse("198.18.3.10")))
        .setDstAddr(Codec.addr(Address.parse("198.18.4.20")))
        .setSrcPort(srcPort)
        .setDstPort(2811)
        .setProto(6)
        .setBytes(20_000_000)
        .setPackets(14_000)
        .setSamplingRate(1)
        .setEtype(0x0800)
        .build();
  }

  private static KafkaConsumer<byte[], byte[]> consumer(Stack stack, String isolation) {
    Properties c = new Properties();
    c.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, stack.bootstrap());
    c.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, isolation);
    c.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    return new KafkaConsumer<>(c, new ByteArrayDeserializer(), new ByteArrayDeserializer());
  }

  private static List<TopicPartition> partitions(KafkaConsumer<byte[], byte[]> c, String topic) {
    return c.partitionsFor(topic).stream()
        .map(pi -> new TopicPartition(topic, pi.partition()))
        .toList();
  }

  private static CheetahEvent parse(ConsumerRecord<byte[], byte[]> r) {
    try {
      return CheetahEvent.parseFrom(r.value());
    } catch (com.google.protobuf.InvalidProtocolBufferException e) {
      throw new AssertionError("undecodable cheetah event at " + r.offset(), e);
    }
  }

  /** The first add command for {@code flowId}. */
  private static RedirectCommand awaitCommand(KafkaConsumer<byte[], byte[]> c, String flowId) {
    return Wait.forValue(
        "the command for " + flowId + " on " + Topics.REDIRECTS_COMMANDS,
        Duration.ofMinutes(1),
        Duration.ofMillis(10),
        () -> {
          for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(100))) {
            try {
              RedirectCommand x = RedirectCommand.parseFrom(r.value());
              if (x.getCheetahFlowId().equals(flowId)
                  && x.getAction() == RedirectAction.REDIRECT_ACTION_SCAVENGER) {
                return java.util.Optional.of(x);
              }
            } catch (com.google.protobuf.InvalidProtocolBufferException e) {
              throw new AssertionError("undecodable command", e);
            }
          }
          return java.util.Optional.empty();
        });
  }

  /**
   * A cheetah event where its detector sends it for the redirect job: the probe's on cheetahs.v1,
   * NetFlow ones on cheetahs.control.v1 (the cheetah job's at-once copy of its cheetahs.v1).
   */
  private static void send(KafkaProducer<byte[], byte[]> producer, CheetahEvent e)
      throws Exception {
    String topic =
        e.getSource() == DetectionSource.DETECTION_SOURCE_NETFLOW
            ? Topics.CHEETAHS_CONTROL
            : Topics.CHEETAHS;
    producer
        .send(
            new ProducerRecord<>(
                topic, e.getFlowId().getBytes(StandardCharsets.UTF_8), e.toByteArray()))
        .get();
  }

  private static void await(
      KafkaConsumer<byte[], byte[]> consumer, List<RedirectCommand> into, int n) {
    Wait.forValue(
        n + " command(s) on " + Topics.REDIRECTS_COMMANDS,
        Duration.ofMinutes(1),
        Duration.ofMillis(10),
        () -> {
          for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
            try {
              into.add(RedirectCommand.parseFrom(r.value()));
            } catch (com.google.protobuf.InvalidProtocolBufferException e) {
              throw new AssertionError("undecodable command", e);
            }
          }
          return into.size() >= n ? java.util.Optional.of(into.size()) : java.util.Optional.empty();
        });
  }
}
