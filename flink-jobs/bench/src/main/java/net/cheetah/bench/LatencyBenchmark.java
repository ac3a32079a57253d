package net.cheetah.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.stream.Stream;
import net.cheetah.config.CheetahConfig;
import net.cheetah.core.Topics;
import net.cheetah.core.flow.Address;
import net.cheetah.jobs.JobSettings;
import net.cheetah.jobs.RedirectJob;
import net.cheetah.jobs.StreamJob;
import net.cheetah.jobs.codec.Codec;
import net.cheetah.jobs.flink.JobEnvironment;
import net.cheetah.jobs.redirects.RedirectKeys;
import net.cheetah.runtime.EmbeddedFlink;
import net.cheetah.runtime.EmbeddedKafka;
import net.cheetah.runtime.TopicLayout;
import net.cheetah.schemas.v1.CheetahEvent;
import net.cheetah.schemas.v1.CheetahEventType;
import net.cheetah.schemas.v1.DetectionSource;
import net.cheetah.schemas.v1.RedirectAction;
import net.cheetah.schemas.v1.RedirectCommand;
import org.apache.flink.api.common.JobID;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
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
 * Detection-to-command latency of redirects in the embedded runtime (issue 13, item 5): an in-JVM
 * broker and a Flink MiniCluster set up as `cheetah up` sets them up (loopback, free ports, a temp
 * dir, {@link JobEnvironment}: exactly-once checkpoints every flink.checkpoint-interval-ms),
 * running the stack's jobs. It feeds, live and paced, NetFlow (goflow2 messages of {@link
 * SyntheticWorkload} on flows.goflow2.v1, so the cheetah job detects cheetahs as it goes) and probe
 * cheetahs (START events, source PROBE, on cheetahs.v1 from a plain producer with the settings of
 * the probe's cheetah-event producer: acks=all, lz4, and its linger, which run.sh reads from the
 * probe's source, ingest/probe/src/kafka_export.c CHEETAH_LINGER_MS; docs/PROBE.md, "Kafka").
 *
 * <p>Detection, per kind, is when the cheetah START was decided, on the machine's wall clock:
 *
 * <ul>
 *   <li>probe: the START record's Kafka timestamp (CreateTime: the producer stamps it when the
 *       probe hands the event over, before any linger);
 *   <li>NetFlow: the first time a read_uncommitted consumer sees the START on cheetahs.v1 (sent by
 *       the cheetah job's transactional producer as it is emitted, linger.ms 5, visible uncommitted
 *       at once) or on cheetahs.control.v1, whichever comes first. The Kafka timestamps of the
 *       jobs' records are event times, so they cannot serve. This is later than the operator's
 *       emission by the producer's linger and one fetch, so it understates the latency by a few ms.
 * </ul>
 *
 * The command's time is when the same consumer first sees a SCAVENGER/DSCP_MARK command for that
 * flow (cheetah_flow_id) on redirects.commands.v1. Latency = command seen - detection.
 *
 * <p>Each phase (an input of the redirect job, {@link RedirectJob.Input}) runs on its own fresh
 * broker and cluster, one after the other in the same run: by default the input before issue 13
 * (every cheetah from cheetahs.v1, committed) and today's. Prints {@code SUMMARY latency} lines.
 */
public final class LatencyBenchmark {

  record Options(
      int seconds,
      int rate,
      long probeEveryMs,
      int probeLingerMs,
      long checkpointMs,
      int partitions,
      List<RedirectJob.Input> phases,
      boolean keep) {

    static Options parse(String[] args) {
      int seconds = 60;
      int rate = 3000;
      long probeEveryMs = 200;
      int probeLingerMs = -1;
      long checkpointMs = CheetahConfig.defaultConfig().flink().checkpointIntervalMs();
      int partitions = CheetahConfig.defaultConfig().kafka().partitions();
      List<RedirectJob.Input> phases =
          List.of(RedirectJob.Input.COMMITTED, RedirectJob.Input.AT_ONCE);
      boolean keep = false;
      for (int i = 0; i < args.length; i++) {
        String a = args[i];
        switch (a) {
          case "--seconds" -> seconds = Integer.parseInt(value(args, ++i, a));
          case "--rate" -> rate = Integer.parseInt(value(args, ++i, a));
          case "--probe-every-ms" -> probeEveryMs = Long.parseLong(value(args, ++i, a));
          case "--probe-linger-ms" -> probeLingerMs = Integer.parseInt(value(args, ++i, a));
          case "--checkpoint-ms" -> checkpointMs = Long.parseLong(value(args, ++i, a));
          case "--partitions" -> partitions = Integer.parseInt(value(args, ++i, a));
          case "--phases" -> phases = phases(value(args, ++i, a));
          case "--keep-data" -> keep = true;
          case "-h", "--help" -> {
            System.out.println(usage());
            System.exit(0);
          }
          default -> throw new IllegalArgumentException("unknown option " + a + "\n" + usage());
        }
      }
      if (seconds < 10 || rate < 100 || probeEveryMs < 10 || checkpointMs < 100 || partitions < 1) {
        throw new IllegalArgumentException(
            "need --seconds >= 10, --rate >= 100, --probe-every-ms >= 10, --checkpoint-ms >= 100,"
                + " --partitions >= 1\n"
                + usage());
      }
      if (probeLingerMs < 0) {
        throw new IllegalArgumentException(
            "need --probe-linger-ms >= 0 (flink-jobs/bench/run.sh latency passes the probe's)\n"
                + usage());
      }
      return new Options(
          seconds, rate, probeEveryMs, probeLingerMs, checkpointMs, partitions, phases, keep);
    }

    private static List<RedirectJob.Input> phases(String text) {
      List<RedirectJob.Input> l = new ArrayList<>();
      for (String p : text.split(",")) {
        switch (p.trim()) {
          case "committed" -> l.add(RedirectJob.Input.COMMITTED);
          case "at-once" -> l.add(RedirectJob.Input.AT_ONCE);
          default ->
              throw new IllegalArgumentException(
                  "--phases: '" + p + "' is neither committed nor at-once\n" + usage());
        }
      }
      return l;
    }

    private static String value(String[] args, int i, String option) {
      if (i >= args.length) {
        throw new IllegalArgumentException(option + " needs a value\n" + usage());
      }
      return args[i];
    }

    static String usage() {
      return String.join(
          "\n",
          "usage: LatencyBenchmark --probe-linger-ms MS [--seconds S] [--rate R] [--probe-every-ms MS]",
          "                        [--checkpoint-ms MS] [--partitions P]",
          "                        [--phases committed,at-once] [--keep-data]",
          "  --seconds S          feeding time per phase (default 60)",
          "  --rate R             goflow2 messages per second (default 3000)",
          "  --probe-every-ms MS  one probe cheetah START every MS (default 200)",
          "  --probe-linger-ms MS linger.ms of the emulated probe's cheetah-event producer",
          "                       (run.sh passes the probe's own, CHEETAH_LINGER_MS of",
          "                       ingest/probe/src/kafka_export.c; 50 emulates the probe before",
          "                       cheetah events had a producer of their own)",
          "  --checkpoint-ms MS   flink.checkpoint-interval-ms (default: the stack's, 2000)",
          "  --partitions P       partitions of every topic (default: kafka.partitions, 2)",
          "  --phases LIST        the redirect job's inputs, in order (default committed,at-once):",
          "                       committed = every cheetah from cheetahs.v1, read_committed",
          "                       (before issue 13); at-once = NetFlow from cheetahs.control.v1,",
          "                       probe from cheetahs.v1 read_uncommitted (today)",
          "  --keep-data          keep the temp dirs (broker log, checkpoints)");
    }
  }

  /** Links and their devices: the generator's two exporters and the probe's link. */
  static final String PROBE_LINK = "bench-probe-link";

  static final String LINK_DEVICES = "192.0.2.1=r-a,192.0.2.2=r-b," + PROBE_LINK + "=r-p";

  private final Options o;
  private final Consumer<String> say = s -> System.err.println("latency: " + s);
  private final List<Path> dirs = new ArrayList<>();
  private EmbeddedKafka kafka;
  private EmbeddedFlink flink;

  LatencyBenchmark(Options o) {
    this.o = o;
  }

  public static void main(String[] args) throws Exception {
    Options o;
    try {
      o = Options.parse(args);
    } catch (IllegalArgumentException e) {
      System.err.println(e.getMessage());
      System.exit(64);
      return;
    }
    LatencyBenchmark b = new LatencyBenchmark(o);
    Thread hook = new Thread(b::stop, "latency-stop");
    Runtime.getRuntime().addShutdownHook(hook);
    int status = 0;
    try {
      List<String> summaries = new ArrayList<>();
      for (RedirectJob.Input input : o.phases()) {
        summaries.addAll(b.phase(input));
        b.stop();
      }
      summaries.forEach(System.out::println);
    } catch (Exception e) {
      System.err.println("latency: failed: " + e);
      e.printStackTrace();
      status = 1;
    } finally {
      b.stop();
      b.deleteDirs();
      try {
        Runtime.getRuntime().removeShutdownHook(hook);
      } catch (IllegalStateException e) {
        // already shutting down (Ctrl-C): the hook has stopped everything
      }
    }
    System.exit(status); // Flink and Kafka leave non-daemon threads behind after close()
  }

  /** What the watcher saw of one flow: its kind, detection and command times (epoch ms). */
  static final class Seen {
    boolean probe;
    double detectedMs = Double.NaN; // NaN until its START is seen
    double onTopicMs = Double.NaN; // probe: when its START was seen on cheetahs.v1
    double commandMs = Double.NaN;
  }

  List<String> phase(RedirectJob.Input input) throws Exception {
    String phase = input == RedirectJob.Input.COMMITTED ? "committed" : "at-once";
    Path dir = Files.createTempDirectory("cheetah-bench-latency-");
    dirs.add(dir);
    say.accept("phase " + phase + ": data in " + dir + "; starting Kafka (KRaft, in-JVM)");
    kafka = new EmbeddedKafka(EmbeddedKafka.Config.defaults(dir).withPorts(0, 0));
    kafka.start();
    String bootstrap = kafka.bootstrapServers();
    new TopicLayout(TopicLayout.Config.embedded().withPartitions(o.partitions(), o.partitions()))
        .createAll(kafka);
    CheetahConfig cfg =
        CheetahConfig.load(
            Optional.empty(),
            Map.of(
                "flink.checkpoint-interval-ms",
                Long.toString(o.checkpointMs()),
                "redirects.link-devices",
                LINK_DEVICES,
                // Every START becomes a command: no guardrail refuses in this benchmark.
                "redirects.max-rules-per-device",
                "1000000",
                "redirects.max-new-rules-per-minute",
                "1000000"));
    JobSettings settings = new JobSettings(bootstrap, cfg, dir);
    RedirectKeys.create(settings.redirectKeysFile(), "bench");

    say.accept("starting the Flink MiniCluster and the stack's jobs");
    flink =
        new EmbeddedFlink(
            EmbeddedFlink.Config.defaults(dir)
                .withFreePorts()
                .withTaskSlots(cfg.flink().slots())
                .withOverrides(JobEnvironment.settings(cfg, dir)));
    flink.start();
    List<StreamJob> jobs = new ArrayList<>();
    for (StreamJob j : StreamJob.stack()) {
      jobs.add(j instanceof RedirectJob ? new RedirectJob(input) : j);
    }
    List<JobID> ids = new ArrayList<>();
    for (StreamJob j : jobs) {
      StreamExecutionEnvironment env = flink.newEnvironment();
      JobEnvironment.configure(env, cfg, dir);
      j.addTo(env, settings);
      ids.add(flink.submit(env, j.name()));
    }
    for (JobID id : ids) {
      flink.awaitRunning(id, Duration.ofSeconds(120));
    }
    say.accept("jobs running; feeding " + o.seconds() + " s");

    Map<String, Seen> seen = new HashMap<>();
    AtomicReference<Throwable> failed = new AtomicReference<>();
    Watcher watcher = new Watcher(bootstrap, seen, failed);
    watcher.start();
    ProbeFeed probe = new ProbeFeed(bootstrap, failed);
    long[] gc0 = gc();
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
    long[] gc1 = gc();
    if (failed.get() != null) {
      throw new IllegalStateException("the feed or the watcher failed", failed.get());
    }
    String load = Files.readString(Path.of("/proc/loadavg")).trim().split(" ", 4)[0];
    List<String> out = new ArrayList<>();
    synchronized (seen) {
      for (boolean isProbe : new boolean[] {false, true}) {
        String kind = isProbe ? "probe" : "netflow";
        List<Seen> l =
            seen.values().stream()
                .filter(s -> !Double.isNaN(s.detectedMs) && s.probe == isProbe)
                .toList();
        long detected = l.stream().filter(s -> !Double.isNaN(s.detectedMs)).count();
        double[] lat =
            l.stream()
                .filter(s -> !Double.isNaN(s.detectedMs) && !Double.isNaN(s.commandMs))
                .mapToDouble(s -> s.commandMs - s.detectedMs)
                .sorted()
                .toArray();
        String fromTopic = "";
        if (isProbe) {
          double[] t =
              l.stream()
                  .filter(s -> !Double.isNaN(s.onTopicMs) && !Double.isNaN(s.commandMs))
                  .mapToDouble(s -> s.commandMs - s.onTopicMs)
                  .sorted()
                  .toArray();
          fromTopic =
              String.format(
                  Locale.ROOT,
                  " from_topic_p50_ms=%.1f from_topic_p99_ms=%.1f probe_linger_ms=%d",
                  quantile(t, 0.5),
                  quantile(t, 0.99),
                  o.probeLingerMs());
        }
        out.add(
            String.format(
                Locale.ROOT,
                "SUMMARY latency phase=%s kind=%s starts=%d commands=%d p50_ms=%.1f p99_ms=%.1f"
                    + " max_ms=%.1f min_ms=%.1f%s checkpoint_ms=%d rate=%d gc_count=%d gc_ms=%d"
                    + " load1=%s",
                phase,
                kind,
                detected,
                lat.length,
                quantile(lat, 0.5),
                quantile(lat, 0.99),
                lat.length == 0 ? Double.NaN : lat[lat.length - 1],
                lat.length == 0 ? Double.NaN : lat[0],
                fromTopic,
                o.checkpointMs(),
                o.rate(),
                gc1[0] - gc0[0],
                gc1[1] - gc0[1],
                load));
      }
    }
    out.forEach(say);
    synchronized (seen) {
      // A START whose command never came within the wait: which one, and when, to look into.
      double first =
          seen.values().stream()
              .mapToDouble(s -> s.detectedMs)
              .filter(d -> !Double.isNaN(d))
              .min()
              .orElse(0);
      seen.forEach(
          (flow, s) -> {
            if (!Double.isNaN(s.detectedMs) && Double.isNaN(s.commandMs)) {
              say.accept(
                  String.format(
                      Locale.ROOT,
                      "no command for %s cheetah %s, detected %.1f s into the phase",
                      s.probe ? "probe" : "NetFlow",
                      flow,
                      (s.detectedMs - first) / 1000));
            }
          });
    }
    return out;
  }

  /** Garbage collections of this JVM (the whole stack runs in it) so far: {count, ms}. */
  private static long[] gc() {
    long n = 0;
    long ms = 0;
    for (var b : java.lang.management.ManagementFactory.getGarbageCollectorMXBeans()) {
      n += Math.max(0, b.getCollectionCount());
      ms += Math.max(0, b.getCollectionTime());
    }
    return new long[] {n, ms};
  }

  /** The q-quantile (nearest rank) of sorted values; NaN when there are none. */
  static double quantile(double[] sorted, double q) {
    if (sorted.length == 0) {
      return Double.NaN;
    }
    int rank = (int) Math.ceil(q * sorted.length);
    return sorted[Math.max(0, Math.min(sorted.length - 1, rank - 1))];
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
          .setLinkId(PROBE_LINK)
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

  synchronized void stop() {
    if (flink != null) {
      try {
        flink.close();
      } catch (RuntimeException e) {
        say.accept("stopping Flink: " + e.getMessage());
      }
      flink = null;
    }
    if (kafka != null) {
      try {
        kafka.close();
      } catch (RuntimeException e) {
        say.accept("stopping Kafka: " + e.getMessage());
      }
      kafka = null;
    }
  }

  private void deleteDirs() {
    if (o.keep()) {
      dirs.forEach(d -> say.accept("kept " + d));
      return;
    }
    for (Path dir : dirs) {
      try (Stream<Path> s = Files.walk(dir)) {
        for (Path x : s.sorted(Comparator.reverseOrder()).toList()) {
          Files.deleteIfExists(x);
        }
      } catch (IOException e) {
        say.accept("could not delete " + dir + ": " + e.getMessage());
      }
    }
  }
}
