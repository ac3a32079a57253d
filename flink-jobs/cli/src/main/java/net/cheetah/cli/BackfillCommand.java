package net.cheetah.cli;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.Callable;
import net.cheetah.config.CheetahConfig;
import net.cheetah.core.Topics;
import net.cheetah.core.flow.Ids;
import net.cheetah.jobs.ConfigOptions;
import net.cheetah.jobs.analyze.NfdumpDecoder;
import net.cheetah.jobs.analyze.NfdumpLine;
import net.cheetah.jobs.codec.Codec;
import net.cheetah.jobs.normalize.Normalizer;
import net.cheetah.schemas.v1.ArchiveProgress;
import net.cheetah.schemas.v1.BackfillProgress;
import net.cheetah.schemas.v1.FlowSource;
import net.cheetah.schemas.v1.RejectedRecord;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(
    name = "backfill",
    mixinStandardHelpOptions = true,
    description = {
      "Stream nfcapd archives (read with nfdump) into flows.v1, in Kafka transactions of",
      "--batch records. Each transaction also holds the backfill's progress (a record on",
      "backfill.progress.v1), so a batch and its progress are committed together: run the",
      "same command again after an interruption (kill -9 included) and it resumes after the",
      "last committed batch, read back from Kafka, never sending one twice. Invalid flows go to",
      "flows.rejected.v1 with their reason, and so does an archive nfdump cannot read whole",
      "(its lines before the damage are sent; exit status 1). Needs a broker: ./cheetah up,",
      "or --set kafka.bootstrap=HOST:PORT."
    })
final class BackfillCommand implements Callable<Integer> {
  @Parameters(paramLabel = "PATH", description = "An nfcapd file or a directory of them.")
  Path input;

  @Option(
      names = "--rate",
      defaultValue = "0",
      description =
          "At most this many records per second (0 = no limit; default ${DEFAULT-VALUE}).")
  long rate;

  @Option(
      names = "--batch",
      defaultValue = "20000",
      description = "Records per Kafka transaction (default ${DEFAULT-VALUE}).")
  int batch;

  @Option(
      names = "--id",
      paramLabel = "NAME",
      description =
          "Names this backfill: the key of its progress on backfill.progress.v1 and its Kafka"
              + " transactional id (default: a hash of PATH's absolute path).")
  String id;

  @Option(
      names = "--restart",
      description = "Forget the committed progress of this --id and send everything again.")
  boolean restart;

  @Mixin ConfigOptions config;

  @Override
  public Integer call() throws Exception {
    CheetahConfig cfg = config.load();
    Tools tools = Tools.fromEnvironment();
    List<Path> archives = NfdumpDecoder.archives(input);
    String bootstrap = Broker.bootstrap(cfg);
    String backfill = id != null ? id : defaultId(input);
    if (backfill.isBlank()) {
      throw new IllegalArgumentException("--id must not be empty");
    }
    Properties p = new Properties();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, "cheetah-backfill-" + backfill);
    p.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, "lz4");
    p.put(ProducerConfig.LINGER_MS_CONFIG, "10");
    p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, "15000");
    // Event time must stay in order within a partition even when a batch is retried (seen after
    // resuming from a killed run: the broker refused the new producer's first sequences and the
    // client re-sent them behind later batches, so downstream watermarks passed records early).
    p.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, "1");
    p.put(ProducerConfig.BATCH_SIZE_CONFIG, Integer.toString(512 * 1024));
    long totalBytes = archives.stream().mapToLong(a -> sizeOf(a)).sum();
    Normalizer normalizer = new Normalizer("backfill");
    long[] counts = new long[3]; // sent, rejected, skipped (already sent)
    List<Path> unreadable = new ArrayList<>();
    long t0 = System.nanoTime();
    try (KafkaProducer<byte[], byte[]> producer =
            new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer());
        Progress bar = new Progress("backfill", totalBytes / 1024, "KiB")) {
      try {
        // Fences a previous run of this backfill: its open transaction is aborted, one it was
        // committing completes. Only then is the committed progress final.
        producer.initTransactions();
      } catch (org.apache.kafka.common.errors.TimeoutException e) {
        throw new IllegalStateException(
            "no Kafka broker answered at "
                + bootstrap
                + "; start ./cheetah up first, or pass --set kafka.bootstrap=HOST:PORT");
      }
      Map<String, Long> done = committedProgress(bootstrap, backfill);
      if (restart && !done.isEmpty()) {
        // Forgotten in one transaction (a tombstone per archive), before anything is sent again:
        // a restarted backfill killed later resumes from its own progress, not the old one.
        producer.beginTransaction();
        for (String archive : done.keySet()) {
          producer.send(
              new ProducerRecord<>(Topics.BACKFILL_PROGRESS, key(backfill, archive), null));
        }
        producer.commitTransaction();
        System.err.printf(
            Locale.ROOT,
            "backfill: --restart: forgot the committed progress of %s (%d archive(s))%n",
            backfill,
            done.size());
        done.clear();
      }
      long skippedFiles =
          archives.stream().filter(a -> done.getOrDefault(a.toString(), 0L) < 0).count();
      long skippedLines =
          archives.stream().mapToLong(a -> Math.max(0, done.getOrDefault(a.toString(), 0L))).sum();
      if (!done.isEmpty()) {
        System.err.printf(
            Locale.ROOT,
            "backfill: resuming %s from its progress committed on %s: %d of %d archive(s) sent"
                + " whole, %d line(s) of the others%n",
            backfill,
            Topics.BACKFILL_PROGRESS,
            skippedFiles,
            archives.size(),
            skippedLines);
      }
      RateLimiter limiter = new RateLimiter(rate);
      for (Path a : archives) {
        String name = a.toString();
        long already = done.getOrDefault(name, 0L);
        if (already < 0) {
          bar.advance(sizeOf(a) / 1024);
          continue;
        }
        long[] line = {0};
        long[] inBatch = {0};
        producer.beginTransaction();
        Optional<String> problem =
            new NfdumpDecoder(tools.nfdump())
                .lines(
                    a,
                    l -> {
                      if (l.isBlank()) {
                        return;
                      }
                      line[0]++;
                      if (line[0] <= already) {
                        counts[2]++;
                        return;
                      }
                      limiter.acquire();
                      send(producer, normalizer, a, line[0], l, counts);
                      if (++inBatch[0] >= batch) {
                        done.put(name, line[0]);
                        commit(producer, backfill, name, line[0]);
                        inBatch[0] = 0;
                        producer.beginTransaction();
                      }
                    });
        if (problem.isPresent()) {
          // Kept with the lines it did give; not marked as sent whole, so a run after the file
          // is repaired resumes after the lines already sent.
          System.err.println("backfill: " + problem.get());
          producer.send(
              new ProducerRecord<>(
                  Topics.REJECTED,
                  RejectedRecord.newBuilder()
                      .setStage("backfill")
                      .setReason("unreadable_archive")
                      .setDetail(problem.get())
                      .setSourceTopic(name)
                      .setSourceOffset(line[0])
                      .build()
                      .toByteArray()));
          counts[1]++;
          unreadable.add(a);
          done.put(name, line[0]);
        } else {
          done.put(name, -1L); // whole file sent
        }
        commit(producer, backfill, name, done.get(name));
        bar.advance(sizeOf(a) / 1024);
      }
    }
    double secs = (System.nanoTime() - t0) / 1e9;
    System.out.printf(
        Locale.ROOT,
        "backfill: %,d flow records sent to %s, %,d rejected to %s, %,d skipped as already sent; %.1f s (%,.0f records/s)%n",
        counts[0],
        Topics.FLOWS,
        counts[1],
        Topics.REJECTED,
        counts[2],
        secs,
        (counts[0] + counts[1]) / secs);
    if (!unreadable.isEmpty()) {
      System.err.printf(
          Locale.ROOT,
          "backfill: %d of %d archive(s) could not be read whole (each kept in %s as"
              + " unreadable_archive, with the lines before the damage sent): %s%n",
          unreadable.size(),
          archives.size(),
          Topics.REJECTED,
          unreadable);
      return 1;
    }
    return 0;
  }

  private static void send(
      KafkaProducer<byte[], byte[]> producer,
      Normalizer n,
      Path archive,
      long lineNo,
      String line,
      long[] counts) {
    Normalizer.Origin origin = new Normalizer.Origin(archive.toString(), 0, lineNo);
    try {
      var m = NfdumpLine.parse(line);
      if (m.isEmpty()) {
        return;
      }
      n.normalize(
          m.get(),
          origin,
          f -> {
            var r = f.toBuilder().setSource(FlowSource.FLOW_SOURCE_NFDUMP_BACKFILL).build();
            producer.send(
                new ProducerRecord<>(
                    Topics.FLOWS, Codec.key(Codec.flow(r).key().tupleHash()), r.toByteArray()));
            counts[0]++;
          },
          bad -> {
            producer.send(new ProducerRecord<>(Topics.REJECTED, bad.toByteArray()));
            counts[1]++;
          });
    } catch (NfdumpLine.BadLine e) {
      RejectedRecord bad =
          RejectedRecord.newBuilder()
              .setStage("backfill")
              .setReason("unreadable_line")
              .setDetail(e.getMessage())
              .setPayload(com.google.protobuf.ByteString.copyFrom(line, StandardCharsets.UTF_8))
              .setSourceTopic(archive.toString())
              .setSourceOffset(lineNo)
              .build();
      producer.send(new ProducerRecord<>(Topics.REJECTED, bad.toByteArray()));
      counts[1]++;
    }
  }

  /** The default --id: a hash of the input's absolute path. */
  static String defaultId(Path input) {
    return Long.toHexString(Ids.mix(0, input.toAbsolutePath().normalize().toString().hashCode()));
  }

  /**
   * Commits the open transaction with the archive's progress in it: the batch and the position
   * after it become visible together, or (killed before the commit completes) neither does. One
   * record per archive (key: backfill id and archive), so that the compacted topic keeps the latest
   * position of each and a record stays small however many archives a backfill has.
   */
  private static void commit(
      KafkaProducer<byte[], byte[]> producer, String backfill, String archive, long lines) {
    BackfillProgress progress =
        BackfillProgress.newBuilder()
            .setBackfillId(backfill)
            .setWrittenMs(System.currentTimeMillis())
            .addArchives(
                ArchiveProgress.newBuilder()
                    .setPath(archive)
                    .setLines(Math.max(0, lines))
                    .setWhole(lines < 0))
            .build();
    producer.send(
        new ProducerRecord<>(
            Topics.BACKFILL_PROGRESS, key(backfill, archive), progress.toByteArray()));
    producer.commitTransaction();
    CrashPoint.afterCommit();
  }

  /** The key of an archive's progress record: the backfill's id, a newline, the archive. */
  private static byte[] key(String backfill, String archive) {
    return (backfill + "\n" + archive).getBytes(StandardCharsets.UTF_8);
  }

  /**
   * The backfill's committed progress, read back from {@link Topics#BACKFILL_PROGRESS} (committed
   * records only, to the end): lines sent per archive, -1 for an archive sent whole; empty when the
   * backfill never committed a batch.
   */
  static Map<String, Long> committedProgress(String bootstrap, String backfill) {
    Properties c = new Properties();
    c.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    c.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    c.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    c.put(ConsumerConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "30000");
    Map<String, Long> done = new LinkedHashMap<>();
    try (KafkaConsumer<byte[], byte[]> consumer =
        new KafkaConsumer<>(c, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      List<TopicPartition> parts =
          Optional.ofNullable(consumer.partitionsFor(Topics.BACKFILL_PROGRESS))
              .orElse(List.of())
              .stream()
              .map(i -> new TopicPartition(i.topic(), i.partition()))
              .toList();
      if (parts.isEmpty()) {
        throw new IllegalStateException(
            "the broker at "
                + bootstrap
                + " has no topic "
                + Topics.BACKFILL_PROGRESS
                + " (where a backfill commits its progress): start the stack with ./cheetah up,"
                + " which creates every topic, or create it on your cluster");
      }
      consumer.assign(parts);
      consumer.seekToBeginning(parts);
      Map<TopicPartition, Long> ends = consumer.endOffsets(parts); // read_committed: stable end

      long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(60);
      while (parts.stream().anyMatch(tp -> consumer.position(tp) < ends.get(tp))) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException(
              "could not read " + Topics.BACKFILL_PROGRESS + " to its end within 60 s");
        }
        for (var r : consumer.poll(java.time.Duration.ofMillis(500))) {
          if (r.value() == null) { // a tombstone: --restart forgot this archive's progress
            String k = new String(r.key(), StandardCharsets.UTF_8);
            if (k.startsWith(backfill + "\n")) {
              done.remove(k.substring(backfill.length() + 1));
            }
            continue;
          }
          BackfillProgress progress;
          try {
            progress = BackfillProgress.parseFrom(r.value());
          } catch (com.google.protobuf.InvalidProtocolBufferException e) {
            throw new IllegalStateException(
                "unreadable progress of backfill "
                    + backfill
                    + " at "
                    + r.topic()
                    + "/"
                    + r.partition()
                    + "@"
                    + r.offset()
                    + ": "
                    + e.getMessage()
                    + ". Run with another --id to send everything again.",
                e);
          }
          if (progress.getBackfillId().equals(backfill)) {
            // In offset order: the last record of an archive is its committed position.
            progress
                .getArchivesList()
                .forEach(a -> done.put(a.getPath(), a.getWhole() ? -1L : (long) a.getLines()));
          }
        }
      }
    }
    return done;
  }

  private static long sizeOf(Path p) {
    try {
      return Files.size(p);
    } catch (java.io.IOException e) {
      return 0;
    }
  }

  /**
   * A test hook (BackfillCrashTest): with {@code CHEETAH_TEST_KILL_AFTER_COMMIT=N} in the
   * environment, the backfill SIGKILLs itself right after its N-th commit returns, before it sends
   * anything else: the moment where a progress saved outside the transaction would be missing.
   */
  static final class CrashPoint {
    static final String ENV = "CHEETAH_TEST_KILL_AFTER_COMMIT";
    private static final long AFTER = Long.parseLong(System.getenv().getOrDefault(ENV, "0"));
    private static long commits;

    private CrashPoint() {}

    static void afterCommit() {
      if (AFTER > 0 && ++commits == AFTER) {
        System.err.println("backfill: " + ENV + "=" + AFTER + ": killing myself with SIGKILL");
        try {
          new ProcessBuilder("kill", "-KILL", Long.toString(ProcessHandle.current().pid()))
              .inheritIO()
              .start()
              .waitFor();
          Thread.sleep(60_000); // the signal is on its way
        } catch (java.io.IOException | InterruptedException e) {
          Runtime.getRuntime().halt(137);
        }
      }
    }
  }

  /** Spaces records evenly at {@code perSecond} (0 = unlimited). */
  static final class RateLimiter {
    private final long intervalNs;
    private long next = System.nanoTime();

    RateLimiter(long perSecond) {
      this.intervalNs = perSecond <= 0 ? 0 : 1_000_000_000L / perSecond;
    }

    void acquire() throws InterruptedException {
      if (intervalNs == 0) {
        return;
      }
      long now = System.nanoTime();
      if (next > now) {
        java.util.concurrent.locks.LockSupport.parkNanos(next - now);
      }
      next = Math.max(next, now) + intervalNs;
    }
  }
}
