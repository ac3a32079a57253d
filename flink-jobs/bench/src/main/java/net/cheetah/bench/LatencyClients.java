package net.cheetah.bench;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import net.cheetah.core.Topics;
import net.cheetah.core.flow.Address;
import net.cheetah.jobs.codec.Codec;
import net.cheetah.schemas.v1.CheetahEvent;
import net.cheetah.schemas.v1.CheetahEventType;
import net.cheetah.schemas.v1.DetectionSource;
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

/**
 * The clients of {@link LatencyBenchmark}, in a JVM of their own as the collector and the probe are
 * processes of their own: the NetFlow feed, the probe feed and the watcher that notes when each
 * START and each command is seen. In the stack's JVM they stopped whenever it collected garbage, so
 * no probe event was made during a pause and none waited for one: the p99 left out what a real
 * probe's events meet (coordinated omission). Here the probe's events keep coming and their
 * CreateTime keeps the wall clock while the stack is stopped.
 *
 * <p>Usage: {@code LatencyClients BOOTSTRAP [the benchmark's options]}. Feeds for --seconds, waits
 * for the commands of the STARTs seen (up to three checkpoint intervals and 10 s), then prints a
 * {@code SEEN} line per flow on stdout and exits 0; 1 when a feed or the watcher failed.
 */
public final class LatencyClients {
  private final LatencyBenchmark.Options o;
  private final Consumer<String> say = s -> System.err.println("latency: " + s);

  private LatencyClients(LatencyBenchmark.Options o) {
    this.o = o;
  }

  public static void main(String[] args) {
    try {
      LatencyBenchmark.Options o =
          LatencyBenchmark.Options.parse(Arrays.copyOfRange(args, 1, args.length));
      new LatencyClients(o).run(args[0], System.out);
      System.exit(0);
    } catch (Throwable t) {
      System.err.println("latency clients: failed: " + t);
      t.printStackTrace();
      System.exit(1);
    }
  }

  private void run(String bootstrap, PrintStream out) throws Exception {
    Map<String, Seen> seen = new HashMap<>();
    AtomicReference<Throwable> failed = new AtomicReference<>();
    Watcher watcher = new Watcher(bootstrap, seen, failed);
    watcher.start();
    ProbeFeed probe = new ProbeFeed(bootstrap, failed);
    probe.start();
    feedNetflow(bootstrap, failed);
    probe.finish();
    // Commands of the last STARTs: the committed input needs up to a checkpoint more.
    long until = System.nanoTime() + Duration.ofMillis(3 * o.checkpointMs() + 10_000).toNanos();
    while (System.nanoTime() < until && failed.get() == null) {
      synchronized (seen) {
        if (seen.values().stream()
            .allMatch(s -> Double.isNaN(s.detectedMs) || !Double.isNaN(s.commandMs))) {
          break;
        }
      }
      Thread.sleep(100); // polling what the watcher has collected, not synchronising
    }
    watcher.finish();
    if (failed.get() != null) {
      throw new IllegalStateException("the feed or the watcher failed", failed.get());
    }
    synchronized (seen) {
      seen.forEach((flow, s) -> out.println(s.line(flow)));
    }
    out.flush();
  }

  /** What the watcher saw of one flow: its kind, detection and command times (epoch ms). */
  static final class Seen {
    boolean probe;
    double detectedMs = Double.NaN; // NaN until its START is seen
    double onTopicMs = Double.NaN; // probe: when its START was seen on cheetahs.v1
    double commandMs = Double.NaN;

    /** One line of the clients' output: SEEN flow probe(0|1) detectedMs onTopicMs commandMs. */
    String line(String flow) {
      return "SEEN "
          + flow
          + " "
          + (probe ? 1 : 0)
          + " "
          + detectedMs
          + " "
          + onTopicMs
          + " "
          + commandMs;
    }

    static Optional<Map.Entry<String, Seen>> parse(String line) {
      String[] f = line.split(" ");
      if (f.length != 6 || !f[0].equals("SEEN")) {
        return Optional.empty();
      }
      Seen s = new Seen();
      s.probe = f[2].equals("1");
      s.detectedMs = Double.parseDouble(f[3]);
      s.onTopicMs = Double.parseDouble(f[4]);
      s.commandMs = Double.parseDouble(f[5]);
      return Optional.of(Map.entry(f[1], s));
    }
  }

  /** Wall-clock epoch ms with sub-ms resolution (currentTimeMillis anchored to nanoTime). */
  private static final long BASE_MS = System.currentTimeMillis();

  private static final long BASE_NANOS = System.nanoTime();

  static double nowMs() {
    return BASE_MS + (System.nanoTime() - BASE_NANOS) / 1e6;
  }

  /** The research-site mix, denser in transfers: a few NetFlow cheetahs every second. */
  private void feedNetflow(String bootstrap, AtomicReference<Throwable> failed)
      throws InterruptedException {
    Properties p = new Properties();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ProducerConfig.ACKS_CONFIG, "all");
    p.put(ProducerConfig.LINGER_MS_CONFIG, "5");
    // As EndToEndBenchmark's preload: in order without the idempotent producer on a fresh broker.
    p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "false");
    p.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, "1");
    SyntheticWorkload w = new SyntheticWorkload(new SyntheticWorkload.Params(1, 300, 3_000, 8, 20));
    long total = (long) o.rate() * o.seconds();
    long t0 = System.nanoTime();
    long[] sent = {0};
    try (KafkaProducer<byte[], byte[]> producer =
        new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer())) {
      long step = 100; // pace in blocks of 100 messages
      while (sent[0] < total && failed.get() == null) {
        long due = t0 + (long) (sent[0] * 1e9 / o.rate());
        long wait = due - System.nanoTime();
        if (wait > 0) {
          Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000)); // pacing, not synchronising
        }
        w.generate(
            Math.min(step, total - sent[0]),
            m ->
                producer.send(
                    new ProducerRecord<>(
                        Topics.GOFLOW2, m.exporter() % o.partitions(), m.key(), m.value()),
                    (md, e) -> {
                      if (e != null) {
                        failed.compareAndSet(null, e);
                      }
                    }));
        sent[0] += Math.min(step, total - sent[0]);
      }
    }
    SyntheticWorkload.Totals t = w.totals();
    say.accept(
        String.format(
            Locale.ROOT,
            "sent %,d goflow2 messages in %.1f s (%,d transfer records)",
            t.records(),
            (System.nanoTime() - t0) / 1e9,
            t.transferRecords()));
  }

  /** Probe cheetahs: a START every probeEveryMs on the probe's link, its END a second later. */
  private final class ProbeFeed extends Thread {
    private final KafkaProducer<byte[], byte[]> producer;
    private final AtomicReference<Throwable> failed;
    private volatile boolean done;

    ProbeFeed(String bootstrap, AtomicReference<Throwable> failed) {
      super("probe-feed");
      Properties p = new Properties();
      p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
      p.put(ProducerConfig.ACKS_CONFIG, "all");
      p.put(ProducerConfig.LINGER_MS_CONFIG, Integer.toString(o.probeLingerMs()));
      p.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, "lz4");
      this.producer = new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer());
      this.failed = failed;
    }

    @Override
    public void run() {
      try {
        long t0 = System.nanoTime();
        for (int n = 0; !done && failed.get() == null; n++) {
          long due = t0 + n * o.probeEveryMs() * 1_000_000L;
          long wait = due - System.nanoTime();
          if (wait > 0) {
            Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000)); // pacing
          }
          send(event(n, CheetahEventType.CHEETAH_EVENT_TYPE_START, 1));
          int ended = n - (int) Math.max(1, 1000 / o.probeEveryMs());
          if (ended >= 0) {
            send(event(ended, CheetahEventType.CHEETAH_EVENT_TYPE_END, 2));
          }
        }
      } catch (Throwable t) {
        failed.compareAndSet(null, t);
      } finally {
        producer.close();
      }
    }

    void finish() throws InterruptedException {
      done = true;
      join();
    }

    private void send(CheetahEvent e) {
      producer.send(
          new ProducerRecord<>(
              Topics.CHEETAHS, e.getFlowId().getBytes(StandardCharsets.UTF_8), e.toByteArray()),
          (md, ex) -> {
            if (ex != null) {
              failed.compareAndSet(null, ex);
            }
          });
    }

    private CheetahEvent event(int n, CheetahEventType type, long seq) {
      long now = System.currentTimeMillis();
      return CheetahEvent.newBuilder()
          .setFlowId("bench-probe-" + n)
          .setType(type)
          .setSource(DetectionSource.DETECTION_SOURCE_PROBE)
          .setEventMs(now)
          .setSeq(seq)
          .setLinkId(LatencyBenchmark.PROBE_LINK)
          .setSrcAddr(Codec.addr(Address.parse("198.51.100." + (1 + n % 250))))
          .setDstAddr(Codec.addr(Address.parse("203.0.113.7")))
          .setSrcPort(10_000 + n % 50_000)
          .setDstPort(5201)
          .setProto(6)
          .setStartMs(now - 1000)
          .setEndMs(now)
          .setRateBps(3e9)
          .setThresholdVersion(1)
          .build();
    }
  }

  /** Reads cheetahs.v1, cheetahs.control.v1 and the commands uncommitted, noting when. */
  private static final class Watcher extends Thread {
    private final KafkaConsumer<byte[], byte[]> consumer;
    private final Map<String, Seen> seen;
    private final AtomicReference<Throwable> failed;
    private volatile boolean done;

    Watcher(String bootstrap, Map<String, Seen> seen, AtomicReference<Throwable> failed) {
      super("latency-watcher");
      Properties c = new Properties();
      c.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
      c.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_uncommitted");
      c.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
      c.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, "5");
      this.consumer =
          new KafkaConsumer<>(c, new ByteArrayDeserializer(), new ByteArrayDeserializer());
      List<TopicPartition> parts = new ArrayList<>();
      for (String t :
          List.of(Topics.CHEETAHS, Topics.CHEETAHS_CONTROL, Topics.REDIRECTS_COMMANDS)) {
        consumer.partitionsFor(t).forEach(pi -> parts.add(new TopicPartition(t, pi.partition())));
      }
      consumer.assign(parts);
      consumer.seekToBeginning(parts);
      this.seen = seen;
      this.failed = failed;
    }

    @Override
    public void run() {
      try {
        while (!done) {
          var records = consumer.poll(Duration.ofMillis(5));
          double at = nowMs();
          synchronized (seen) {
            for (ConsumerRecord<byte[], byte[]> r : records) {
              take(r, at);
            }
          }
        }
      } catch (Throwable t) {
        failed.compareAndSet(null, t);
      } finally {
        consumer.close();
      }
    }

    private void take(ConsumerRecord<byte[], byte[]> r, double at) throws IOException {
      if (r.topic().equals(Topics.REDIRECTS_COMMANDS)) {
        RedirectCommand c = RedirectCommand.parseFrom(r.value());
        if (c.getAction() != RedirectAction.REDIRECT_ACTION_REMOVE
            && !c.getCheetahFlowId().isEmpty()) {
          Seen s = seen.computeIfAbsent(c.getCheetahFlowId(), k -> new Seen());
          if (Double.isNaN(s.commandMs)) {
            s.commandMs = at;
          }
        }
        return;
      }
      CheetahEvent e = CheetahEvent.parseFrom(r.value());
      if (e.getType() != CheetahEventType.CHEETAH_EVENT_TYPE_START) {
        return;
      }
      boolean probe = e.getSource() == DetectionSource.DETECTION_SOURCE_PROBE;
      Seen s = seen.computeIfAbsent(e.getFlowId(), k -> new Seen());
      s.probe = probe;
      if (probe) {
        s.detectedMs = r.timestamp();
        s.onTopicMs = at;
      } else if (Double.isNaN(s.detectedMs) || at < s.detectedMs) {
        s.detectedMs = at;
      }
    }

    void finish() throws InterruptedException {
      done = true;
      join();
    }
  }
}
