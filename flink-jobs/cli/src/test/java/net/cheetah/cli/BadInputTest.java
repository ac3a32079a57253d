package net.cheetah.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Random;
import net.cheetah.core.Topics;
import net.cheetah.runtime.Wait;
import net.cheetah.schemas.goflow2.FlowMessage;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;

/**
 * Nothing is dropped silently and nothing crashes (flows.rejected.v1; docs/ARCHITECTURE.md, "Data
 * flow"): datagrams goflow2 cannot decode, NetFlow records that cannot be real flows, and garbage
 * on the collector's Kafka topic each become exactly one row of the warehouse's {@code rejected}
 * table, with the stage, the reason code and the refused bytes; afterwards the jobs still run, the
 * collector is alive, and a valid flow is stored.
 */
@Tag("integration")
class BadInputTest {
  static final String TEST = "bad-input";
  static final HexFormat HEX = HexFormat.of().withUpperCase();

  @TempDir(cleanup = CleanupMode.ON_SUCCESS)
  Path dir;

  /** A rejected row: stage, reason, payload (hex), exporter, source topic. */
  record Row(String stage, String reason, String payloadHex, String exporter, String topic) {}

  @Test
  void everyBadInputIsStoredAsRejectedAndTheStackKeepsWorking() throws Exception {
    long t0 = System.nanoTime();
    Tools tools = EndToEnd.tools();
    long unixSecs = System.currentTimeMillis() / 1000;
    int uptime = 1_000_000;

    // Datagrams goflow2 refuses, each with the reason its stdout contract documents.
    byte[] random = new byte[64];
    new Random(42).nextBytes(random);
    random[0] = 0x13; // version 0x1337: not NetFlow 5/9/10
    random[1] = 0x37;
    byte[] truncatedV5 = bytes(0x00, 0x05, 0x00, 0x01, 0x00, 0x0F, 0x42, 0x40, 0x00, 0x00);
    byte[] version42 = new byte[32];
    version42[1] = 42;
    byte[] unknownTemplate = v9DataWithoutTemplate(unixSecs, uptime);
    byte[] countTooLarge =
        v5(unixSecs, uptime, 2, List.of(rec("192.0.2.9", 9, 10, 15_000, -10_000, -5_000)));
    // A decodable v5 datagram whose records cannot be real flows (normalize refuses each).
    V5Record zeroPackets = rec("192.0.2.1", 1, 0, 1_000, -10_000, -5_000);
    V5Record inverted = rec("192.0.2.2", 2, 10, 15_000, -5_000, -10_000);
    V5Record tooSmall = rec("192.0.2.3", 3, 10, 100, -10_000, -5_000); // 10 B per packet < 20
    byte[] invalidRecords = v5(unixSecs, uptime, 3, List.of(zeroPackets, inverted, tooSmall));
    // Not a length-delimited goflow2 message: a varint length far beyond the record.
    byte[] garbage = {(byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, 0x07, 1, 2, 3, 4};
    V5Record valid = rec("192.0.2.50", 50, 10, 15_000, -10_000, -5_000);

    try (Stack stack =
            new Stack(
                EndToEnd.config(Map.of()),
                tools,
                dir.resolve("stack"),
                true,
                s -> EndToEnd.say(TEST, s));
        DatagramSocket udp = new DatagramSocket(new InetSocketAddress(EndToEnd.LOOPBACK, 0))) {
      stack.start();
      EndToEnd.stopMerges(stack, tools);
      InetSocketAddress target = new InetSocketAddress(EndToEnd.LOOPBACK, stack.netflowPort());
      for (byte[] d :
          List.of(random, truncatedV5, version42, unknownTemplate, countTooLarge, invalidRecords)) {
        udp.send(new DatagramPacket(d, d.length, target));
      }
      Properties p = new Properties();
      p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, stack.bootstrap());
      p.put(ProducerConfig.ACKS_CONFIG, "all");
      try (KafkaProducer<byte[], byte[]> producer =
          new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer())) {
        producer.send(new ProducerRecord<>(Topics.GOFLOW2, garbage)).get();
      }
      // Then a valid flow, from the same exporter socket.
      byte[] good = v5(unixSecs, uptime, 1, List.of(valid));
      udp.send(new DatagramPacket(good, good.length, target));

      WarehouseClient wh = new WarehouseClient(stack.warehouseUrl());
      int expectedRejected = 9;
      awaitCounts(stack, tools, wh, 1, expectedRejected);
      EndToEnd.awaitCaughtUp(stack);

      List<Row> rows = rejected(wh);
      String exporter = "::ffff:127.0.0.1";
      assertThat(rows.stream().filter(r -> r.stage().equals("goflow2")).toList())
          .as("datagrams refused by goflow2, with the datagram itself")
          .containsExactlyInAnyOrder(
              new Row("goflow2", "unsupported_version", HEX.formatHex(random), exporter, ""),
              new Row("goflow2", "truncated_datagram", HEX.formatHex(truncatedV5), exporter, ""),
              new Row("goflow2", "unsupported_version", HEX.formatHex(version42), exporter, ""),
              new Row(
                  "goflow2", "template_not_found", HEX.formatHex(unknownTemplate), exporter, ""),
              new Row("goflow2", "length_mismatch", HEX.formatHex(countTooLarge), exporter, ""));
      assertThat(stack.rejectedDatagrams()).as("rejected lines from the collector").isEqualTo(5);

      List<Row> normalize = rows.stream().filter(r -> r.stage().equals("normalize")).toList();
      assertThat(normalize)
          .as("normalize rejections")
          .extracting(Row::reason, Row::topic)
          .containsExactlyInAnyOrder(
              org.assertj.core.groups.Tuple.tuple("impossible_counts", Topics.GOFLOW2),
              org.assertj.core.groups.Tuple.tuple("impossible_counts", Topics.GOFLOW2),
              org.assertj.core.groups.Tuple.tuple("inverted_times", Topics.GOFLOW2),
              org.assertj.core.groups.Tuple.tuple("malformed_message", Topics.GOFLOW2));
      Row kafka =
          normalize.stream().filter(r -> r.reason().equals("malformed_message")).findFirst().get();
      assertThat(kafka.payloadHex())
          .as("the garbage Kafka record, verbatim")
          .isEqualTo(HEX.formatHex(garbage));
      assertThat(kafka.exporter()).isEqualTo("::");
      // Each refused record keeps the goflow2 message that carried it: the fields we sent.
      for (V5Record r : List.of(zeroPackets, inverted, tooSmall)) {
        String reason = r == inverted ? "inverted_times" : "impossible_counts";
        List<FlowMessage> ms = new ArrayList<>();
        for (Row row : normalize) {
          if (row.reason().equals(reason)) {
            FlowMessage m = FlowMessage.parseFrom(HEX.parseHex(row.payloadHex()));
            if (m.getSrcPort() == r.srcPort) {
              ms.add(m);
              assertThat(row.exporter()).isEqualTo(exporter);
            }
          }
        }
        assertThat(ms).as("the refused record of port %d (%s)", r.srcPort, reason).hasSize(1);
        FlowMessage m = ms.get(0);
        assertThat(m.getSrcAddr().toByteArray())
            .isEqualTo(java.net.InetAddress.getByName(r.src).getAddress());
        assertThat(m.getPackets()).isEqualTo(r.packets);
        assertThat(m.getBytes()).isEqualTo(r.bytes);
        assertThat(m.getTimeFlowStartNs() / 1_000_000).isEqualTo(unixSecs * 1000 + r.firstOffsetMs);
        assertThat(m.getTimeFlowEndNs() / 1_000_000).isEqualTo(unixSecs * 1000 + r.lastOffsetMs);
      }
      assertThat(rows).as("every rejected row").hasSize(expectedRejected);

      // Nothing crashed (every job running, none restarted: assertNoRestarts below), and the
      // valid flow went all the way through.
      assertThat(EndToEnd.descendants("cheetah-goflow2")).as("the collector process").isNotEmpty();
      assertThat(
              wh.query(
                  "SELECT toString(src_addr), src_port, dst_port, proto, bytes, packets,"
                      + " toUnixTimestamp64Milli(start_at), toUnixTimestamp64Milli(end_at), source,"
                      + " toString(exporter) FROM flows FORMAT TabSeparated"))
          .as("the one flow stored")
          .isEqualTo(
              String.join(
                  "\t",
                  "::ffff:192.0.2.50",
                  "50",
                  "443",
                  "6",
                  "15000",
                  "10",
                  Long.toString(unixSecs * 1000 - 10_000),
                  Long.toString(unixSecs * 1000 - 5_000),
                  "netflow_v5",
                  exporter));
      EndToEnd.assertStoredOnce(stack, tools, StoredOnce.Result.FLOWS);
      EndToEnd.assertNoRestarts(stack);
    }
    EndToEnd.say(TEST, String.format("passed in %.1f s", (System.nanoTime() - t0) / 1e9));
  }

  private static void awaitCounts(
      Stack stack, Tools tools, WarehouseClient wh, long flows, long rejected) {
    EndToEnd.Progress[] last = new EndToEnd.Progress[1];
    int[] stable = new int[1];
    try {
      Wait.forValue(
          flows + " flow(s) and " + rejected + " rejected rows in the warehouse",
          Duration.ofMinutes(2),
          Duration.ofSeconds(1),
          () -> {
            try {
              EndToEnd.Progress p = EndToEnd.Progress.of(tools, wh);
              stable[0] = p.equals(last[0]) ? stable[0] + 1 : 0;
              last[0] = p;
              return p.flows() >= flows && p.rejected() >= rejected && stable[0] >= 2
                  ? Optional.of(p)
                  : Optional.empty();
            } catch (IOException | InterruptedException e) {
              return Optional.empty();
            }
          });
    } catch (RuntimeException e) {
      throw new AssertionError(e.getMessage() + "; last seen " + last[0], e);
    }
  }

  private static List<Row> rejected(WarehouseClient wh) throws Exception {
    String s =
        wh.query(
            "SELECT stage, reason, hex(payload), toString(exporter), source_topic FROM rejected"
                + " ORDER BY stage, reason, hex(payload) FORMAT TabSeparated");
    List<Row> rows = new ArrayList<>();
    for (String line : s.split("\n")) {
      if (!line.isBlank()) {
        String[] f = line.split("\t", -1);
        rows.add(new Row(f[0], f[1], f[2], f[3], f[4]));
      }
    }
    return rows;
  }

  /** A v5 record: times as offsets (ms) from the header's export time. */
  record V5Record(
      String src, int srcPort, long packets, long bytes, long firstOffsetMs, long lastOffsetMs) {}

  static V5Record rec(String src, int port, long packets, long bytes, long first, long last) {
    return new V5Record(src, port, packets, bytes, first, last);
  }

  /** NetFlow v5: 24-byte header (declaring {@code count} records), 48-byte records. */
  static byte[] v5(long unixSecs, int uptime, int count, List<V5Record> records)
      throws IOException {
    ByteBuffer b = ByteBuffer.allocate(24 + 48 * records.size());
    b.putShort((short) 5).putShort((short) count).putInt(uptime).putInt((int) unixSecs).putInt(0);
    b.putInt(1).put((byte) 0).put((byte) 0).putShort((short) 0);
    for (V5Record r : records) {
      b.put(java.net.InetAddress.getByName(r.src).getAddress());
      b.put(java.net.InetAddress.getByName("198.51.100.7").getAddress());
      b.putInt(0).putShort((short) 1).putShort((short) 2);
      b.putInt((int) r.packets).putInt((int) r.bytes);
      b.putInt((int) (uptime + r.firstOffsetMs)).putInt((int) (uptime + r.lastOffsetMs));
      b.putShort((short) r.srcPort).putShort((short) 443);
      b.put((byte) 0).put((byte) 0x18).put((byte) 6).put((byte) 0);
      b.putShort((short) 64500).putShort((short) 64501).put((byte) 24).put((byte) 24);
      b.putShort((short) 0);
    }
    return b.array();
  }

  /** NetFlow v9 from source id 4242: one data flowset (id 300) whose template was never sent. */
  static byte[] v9DataWithoutTemplate(long unixSecs, int uptime) {
    ByteBuffer b = ByteBuffer.allocate(20 + 12);
    b.putShort((short) 9).putShort((short) 1).putInt(uptime).putInt((int) unixSecs);
    b.putInt(1).putInt(4242);
    b.putShort((short) 300).putShort((short) 12).putLong(0x0102030405060708L);
    return b.array();
  }

  /** Bytes from int literals. */
  static byte[] bytes(int... v) {
    byte[] b = new byte[v.length];
    for (int i = 0; i < v.length; i++) {
      b[i] = (byte) v[i];
    }
    return b;
  }
}
