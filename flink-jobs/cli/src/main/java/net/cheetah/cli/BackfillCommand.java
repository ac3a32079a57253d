package net.cheetah.cli;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
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
import net.cheetah.schemas.v1.FlowSource;
import net.cheetah.schemas.v1.RejectedRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
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
      "--batch records. Progress is saved after every committed batch: run the same command",
      "again after an interruption and it resumes where it stopped. Invalid flows go to",
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
      description = "Records per Kafka transaction and progress save (default ${DEFAULT-VALUE}).")
  int batch;

  @Option(
      names = "--state",
      paramLabel = "FILE",
      description = "Progress file (default: DATA_DIR/backfill/<hash of PATH>.progress).")
  Path state;

  @Option(names = "--restart", description = "Ignore saved progress and send everything again.")
  boolean restart;

  @Mixin ConfigOptions config;

  @Override
  public Integer call() throws Exception {
    CheetahConfig cfg = config.load();
    Tools tools = Tools.fromEnvironment();
    List<Path> archives = NfdumpDecoder.archives(input);
    String bootstrap = Broker.bootstrap(cfg);
    Path progressFile =
        state != null
            ? state
            : cfg.dataDir()
                .resolve("backfill")
                .resolve(
                    Long.toHexString(
                            Ids.mix(0, input.toAbsolutePath().normalize().toString().hashCode()))
                        + ".progress");
    Map<String, Long> done = restart ? new LinkedHashMap<>() : readProgress(progressFile);
    long skippedFiles =
        archives.stream().filter(a -> done.getOrDefault(a.toString(), 0L) < 0).count();
    if (skippedFiles > 0) {
      System.err.printf(
          Locale.ROOT,
          "backfill: resuming: %d of %d archive(s) already sent (%s)%n",
          skippedFiles,
          archives.size(),
          progressFile);
    }
    Properties p = new Properties();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, "cheetah-backfill-" + progressFile.getFileName());
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
        producer.initTransactions();
      } catch (org.apache.kafka.common.errors.TimeoutException e) {
        throw new IllegalStateException(
            "no Kafka broker answered at "
                + bootstrap
                + "; start ./cheetah up first, or pass --set kafka.bootstrap=HOST:PORT");
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
                        producer.commitTransaction();
                        done.put(name, line[0]);
                        writeProgress(progressFile, done);
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
          producer.commitTransaction();
          done.put(name, line[0]);
        } else {
          producer.commitTransaction();
          done.put(name, -1L); // whole file sent
        }
        writeProgress(progressFile, done);
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

  /** "archive<TAB>lines sent" per line; -1 = the whole archive was sent. */
  static Map<String, Long> readProgress(Path f) throws java.io.IOException {
    Map<String, Long> m = new LinkedHashMap<>();
    if (Files.exists(f)) {
      for (String l : Files.readAllLines(f)) {
        int tab = l.lastIndexOf('\t');
        if (tab > 0) {
          m.put(l.substring(0, tab), Long.parseLong(l.substring(tab + 1).trim()));
        }
      }
    }
    return m;
  }

  static void writeProgress(Path f, Map<String, Long> m) throws java.io.IOException {
    Files.createDirectories(f.toAbsolutePath().getParent());
    Path tmp = f.resolveSibling(f.getFileName() + ".tmp");
    StringBuilder b = new StringBuilder();
    m.forEach((k, v) -> b.append(k).append('\t').append(v).append('\n'));
    Files.writeString(tmp, b);
    Files.move(tmp, f, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
  }

  private static long sizeOf(Path p) {
    try {
      return Files.size(p);
    } catch (java.io.IOException e) {
      return 0;
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
