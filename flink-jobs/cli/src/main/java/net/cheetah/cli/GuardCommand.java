package net.cheetah.cli;

import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Properties;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import net.cheetah.analytics.redirects.Guardrails;
import net.cheetah.config.CheetahConfig;
import net.cheetah.core.Topics;
import net.cheetah.core.flow.Address;
import net.cheetah.core.redirect.Prefix;
import net.cheetah.jobs.ConfigOptions;
import net.cheetah.jobs.JobSettings;
import net.cheetah.jobs.flink.KafkaIO;
import net.cheetah.jobs.redirects.RedirectKeys;
import net.cheetah.schemas.v1.RedirectAck;
import net.cheetah.schemas.v1.RedirectCommand;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code ./cheetah guard}: an operator's incast guards (docs/REDIRECTS.md, "Incast guards"), signed
 * RWND_CAP commands on redirects.commands.v1 like the redirect job's, past the same protected
 * prefixes, each with an expiry; {@code list} reads the guards in force and their acks back.
 */
@Command(
    name = "guard",
    mixinStandardHelpOptions = true,
    description = {
      "Incast guards (docs/REDIRECTS.md, \"Incast guards\"): cap the receive window",
      "of the TCP senders of one receiver so that together they fill at most 75 %%",
      "of its access port's buffer. A guard is a signed RWND_CAP command for one",
      "device (the incast adapter at the receiver's port) on redirects.commands.v1,",
      "with its audit record on redirects.decisions.v1; the adapter answers on",
      "redirects.acks.v1. Every guard expires; a receiver inside",
      "redirects.protected-prefixes is refused. Signed with the redirect job's key",
      "(redirects.keys-file, default DATA/keys/redirects.json).",
      "  ./cheetah guard set --device tor-1/port-r1 --receiver 10.9.0.1 \\",
      "      --buffer 256KiB --ttl 2h",
      "  ./cheetah guard list",
      "  ./cheetah guard remove --device tor-1/port-r1 --receiver 10.9.0.1",
      "Exit status: 0 done; 2 refused or an error (then nothing was published)."
    },
    subcommands = {
      GuardCommand.SetGuard.class,
      GuardCommand.RemoveGuard.class,
      GuardCommand.ListGuards.class
    })
final class GuardCommand implements Callable<Integer> {
  /**
   * The command's Kafka principal on secured brokers: the redirect authority's. It signs with the
   * redirect job's keys, and only that principal may write redirects.commands.v1 (component "guard
   * command" of schemas/topics.yaml maps to it in helm/gen_chart_data.py; KafkaPrincipalsTest).
   */
  static final String PRINCIPAL = net.cheetah.jobs.RedirectJob.NAME;

  @Spec CommandSpec spec;

  @Override
  public Integer call() {
    spec.commandLine().usage(spec.commandLine().getErr());
    return 2;
  }

  /** What every subcommand needs: the configuration and the broker. */
  abstract static class Base implements Callable<Integer> {
    @Mixin RedirectBroker.Bootstrap bootstrap;

    @Mixin ConfigOptions config;

    @Spec CommandSpec spec;

    PrintWriter out() {
      return spec.commandLine().getOut();
    }

    /** The brokers, as principal {@link #PRINCIPAL} (RedirectBroker.Bootstrap#connect). */
    KafkaIO.Access broker(CheetahConfig cfg) {
      return bootstrap.connect(cfg, PRINCIPAL);
    }
  }

  @Command(
      name = "set",
      mixinStandardHelpOptions = true,
      description = {
        "Guard a receiver at a device: a signed RWND_CAP command.",
        "Its match is the receiver as a host prefix (TCP, no source, no ports), its",
        "rwnd_bytes --buffer; it expires after --ttl. Guards of the same receiver at",
        "the device still in force are removed first (a REMOVE each), so setting",
        "again changes the buffer or renews the expiry. Refused (exit 2, nothing",
        "published) when the receiver lies in redirects.protected-prefixes."
      })
  static final class SetGuard extends Base {
    @Option(
        names = "--device",
        required = true,
        paramLabel = "ID",
        description = "The device whose incast adapter applies the guard, e.g. tor-1/port-r1.")
    String device;

    @Option(
        names = "--receiver",
        required = true,
        paramLabel = "ADDR",
        description = "The guarded receiver: one IPv4 or IPv6 address (not a name, not a prefix).")
    String receiver;

    @Option(
        names = "--buffer",
        paramLabel = "BYTES",
        defaultValue = "0",
        description =
            "The port buffer B of the receiver's access port, whose 75 %% its senders share:"
                + " bytes, or with KiB/MiB (e.g. 256KiB). 0 (default): the adapter reads the"
                + " bottleneck queue's own limit.")
    String buffer;

    @Option(
        names = "--ttl",
        paramLabel = "DURATION",
        description =
            "How long the guard lives, e.g. 90s, 30m, 12h, 7d (at most 30 d; default"
                + " redirects.guard-ttl-ms, 1 d). The adapter drops it by itself then.")
    String ttl;

    @Override
    public Integer call() throws Exception {
      CheetahConfig cfg = config.load();
      Address r = receiverAddress(receiver);
      long bufferBytes = bytes(buffer);
      long ttlMs = ttl == null ? cfg.redirects().guardTtlMs() : durationMs(ttl);
      // The guardrail first: a refused guard needs no key and no broker, and publishes nothing.
      java.util.Optional<String> shielded =
          Guardrails.protectedOverlap(
              cfg.redirects().settings().protectedPrefixes(), Prefix.host(r));
      if (shielded.isPresent()) {
        throw new IllegalArgumentException(
            "refused: receiver "
                + r
                + " lies in "
                + shielded.get()
                + " (redirects.protected-prefixes); nothing published");
      }
      long now = System.currentTimeMillis();
      RedirectCommand add = Guards.set(device.trim(), r, bufferBytes, now, ttlMs, operator());
      RedirectKeys keys = keys(cfg);
      KafkaIO.Access b = broker(cfg);
      List<RedirectCommand> commands = new ArrayList<>();
      for (Guards.Guard old : Guards.of(GuardCommand.inForce(b, now), add.getDeviceId(), r)) {
        commands.add(
            keys.sign(
                Guards.removal(
                    old.command(),
                    now,
                    "replaced by guard " + add.getCommandId() + " (set by " + operator() + ")")));
      }
      commands.add(keys.sign(add));
      List<RecordMetadata> sent = publish(b, commands);
      PrintWriter o = out();
      for (int i = 0; i < commands.size() - 1; i++) {
        o.printf(
            Locale.ROOT,
            "removed guard %s (REMOVE %s)%n",
            commands.get(i).getReplacesCommandId(),
            commands.get(i).getCommandId());
      }
      RedirectCommand signed = commands.get(commands.size() - 1);
      RecordMetadata m = sent.get(sent.size() - 1);
      o.printf(
          Locale.ROOT,
          "guard %s: receiver %s at %s, buffer %s, expires %s (signed with key %s; %s partition %d"
              + " offset %d, audit on %s)%n",
          signed.getCommandId(),
          r,
          signed.getDeviceId(),
          bufferText(bufferBytes),
          time(signed.getExpiresMs()),
          signed.getKeyId(),
          m.topic(),
          m.partition(),
          m.offset(),
          Topics.REDIRECTS_DECISIONS);
      o.println("the adapter's ack: ./cheetah guard list");
      o.flush();
      return 0;
    }
  }

  @Command(
      name = "remove",
      mixinStandardHelpOptions = true,
      description = {
        "End the guard of a receiver at a device: a signed REMOVE.",
        "Its replaces_command_id is the guard in force, read from",
        "redirects.commands.v1. Exit 2 when no guard of that receiver is in force",
        "there (nothing published)."
      })
  static final class RemoveGuard extends Base {
    @Option(names = "--device", required = true, paramLabel = "ID", description = "The device.")
    String device;

    @Option(
        names = "--receiver",
        required = true,
        paramLabel = "ADDR",
        description = "The guarded receiver's address.")
    String receiver;

    @Override
    public Integer call() throws Exception {
      CheetahConfig cfg = config.load();
      Address r = receiverAddress(receiver);
      RedirectKeys keys = keys(cfg);
      KafkaIO.Access b = broker(cfg);
      long now = System.currentTimeMillis();
      List<Guards.Guard> guards = Guards.of(GuardCommand.inForce(b, now), device.trim(), r);
      if (guards.isEmpty()) {
        throw new IllegalArgumentException(
            "no guard of receiver "
                + r
                + " at device "
                + device.trim()
                + " is in force on "
                + Topics.REDIRECTS_COMMANDS
                + " (./cheetah guard list shows those that are); nothing published");
      }
      List<RedirectCommand> commands = new ArrayList<>();
      for (Guards.Guard g : guards) {
        commands.add(keys.sign(Guards.removal(g.command(), now, "removed by " + operator())));
      }
      publish(b, commands);
      for (RedirectCommand c : commands) {
        out()
            .printf(
                Locale.ROOT,
                "removed guard %s of receiver %s at %s (REMOVE %s)%n",
                c.getReplacesCommandId(),
                r,
                c.getDeviceId(),
                c.getCommandId());
      }
      out().flush();
      return 0;
    }
  }

  @Command(
      name = "list",
      mixinStandardHelpOptions = true,
      description = {
        "Print the guards in force and their acks.",
        "In force: not removed and not expired, as the adapters rebuild their rules",
        "from redirects.commands.v1. Acks: each adapter's newest on redirects.acks.v1",
        "(APPLIED, DUPLICATE, REJECTED or FAILED, with its detail; \"no ack yet\")."
      })
  static final class ListGuards extends Base {
    @Option(names = "--device", paramLabel = "ID", description = "Only this device's guards.")
    String device;

    @Override
    public Integer call() throws Exception {
      CheetahConfig cfg = config.load();
      KafkaIO.Access b = broker(cfg);
      long now = System.currentTimeMillis();
      List<Guards.Guard> guards = GuardCommand.inForce(b, now);
      if (device != null) {
        guards =
            guards.stream().filter(g -> g.command().getDeviceId().equals(device.trim())).toList();
      }
      PrintWriter o = out();
      if (guards.isEmpty()) {
        o.println("no guard in force" + (device == null ? "" : " at device " + device.trim()));
        o.flush();
        return 0;
      }
      String format = "%-20s %-24s %-14s %-20s %-32s %s%n";
      o.printf(Locale.ROOT, format, "DEVICE", "RECEIVER", "BUFFER", "EXPIRES", "COMMAND", "ACKS");
      for (Guards.Guard g : guards) {
        RedirectCommand c = g.command();
        o.printf(
            Locale.ROOT,
            format,
            c.getDeviceId(),
            g.receiver(),
            c.getRwndBytes() == 0 ? "queue limit" : c.getRwndBytes() + " B",
            time(c.getExpiresMs()),
            c.getCommandId(),
            Guards.ackSummary(g.acks()));
      }
      o.flush();
      return 0;
    }
  }

  /** The guards in force on the broker now, with their acks. */
  static List<Guards.Guard> inForce(KafkaIO.Access bootstrap, long nowMs) {
    List<RedirectCommand> commands =
        RedirectBroker.read(
            bootstrap, Topics.REDIRECTS_COMMANDS, RedirectCommand::parseFrom, "guard");
    List<RedirectAck> acks =
        RedirectBroker.read(bootstrap, Topics.REDIRECTS_ACKS, RedirectAck::parseFrom, "guard");
    return Guards.inForce(commands, acks, nowMs);
  }

  /**
   * Each command on redirects.commands.v1, then the same signed bytes on redirects.decisions.v1
   * (the audit), keyed by device, in order, with the producer of every at-least-once writer.
   */
  static List<RecordMetadata> publish(KafkaIO.Access bootstrap, List<RedirectCommand> commands) {
    KafkaIO.requireAtLeastOnce(Topics.REDIRECTS_COMMANDS);
    KafkaIO.requireAtLeastOnce(Topics.REDIRECTS_DECISIONS);
    Properties p = KafkaIO.atLeastOnceProducerConfig(bootstrap);
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap.bootstrap());
    p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, "15000");
    p.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, "10000");
    p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "30000");
    List<RecordMetadata> sent = new ArrayList<>();
    try (KafkaProducer<byte[], byte[]> producer =
        new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer())) {
      for (RedirectCommand c : commands) {
        byte[] key = c.getDeviceId().getBytes(StandardCharsets.UTF_8);
        byte[] value = c.toByteArray();
        sent.add(send(producer, Topics.REDIRECTS_COMMANDS, key, value, c));
        send(producer, Topics.REDIRECTS_DECISIONS, key, value, c);
      }
    }
    return sent;
  }

  private static RecordMetadata send(
      KafkaProducer<byte[], byte[]> producer,
      String topic,
      byte[] key,
      byte[] value,
      RedirectCommand c) {
    try {
      return producer.send(new ProducerRecord<>(topic, key, value)).get(40, TimeUnit.SECONDS);
    } catch (ExecutionException | java.util.concurrent.TimeoutException e) {
      Throwable cause = e instanceof ExecutionException ? e.getCause() : e;
      throw new IllegalStateException(
          "could not publish command "
              + c.getCommandId()
              + " to "
              + topic
              + ": "
              + cause
              + "; what printed before this line was published, this command and those after"
              + " it may not be (./cheetah guard list shows what is in force)");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while publishing " + c.getCommandId());
    }
  }

  /** The redirect job's keys (docs/REDIRECTS.md): never created here, adapters must know them. */
  static RedirectKeys keys(CheetahConfig cfg) {
    java.nio.file.Path file = JobSettings.redirectKeysFile(cfg, cfg.dataDir());
    if (!java.nio.file.Files.exists(file)) {
      throw new IllegalArgumentException(
          "no redirect keys file at "
              + file
              + ": the stack creates it at its first start (./cheetah up); or set"
              + " redirects.keys-file to the adapters' keys file");
    }
    return RedirectKeys.load(file);
  }

  private static final Pattern IPV4 =
      Pattern.compile(
          "(25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)(\\.(25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)){3}");

  /** One address, as text: a dotted IPv4 address or an IPv6 address, never a name (no DNS). */
  static Address receiverAddress(String text) {
    String t = text.trim();
    if (!(IPV4.matcher(t).matches() || (t.contains(":") && !t.contains("/")))) {
      throw new IllegalArgumentException(
          "--receiver must be one IPv4 or IPv6 address such as 10.9.0.1 or 2001:db8::1, got '"
              + text
              + "'");
    }
    try {
      return Address.parse(t);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          "--receiver must be one IPv4 or IPv6 address such as 10.9.0.1 or 2001:db8::1, got '"
              + text
              + "'");
    }
  }

  private static final Pattern BYTES = Pattern.compile("(\\d+)\\s*(KiB|MiB)?");

  /** Bytes: a whole number, or one with KiB or MiB. */
  static long bytes(String text) {
    Matcher m = BYTES.matcher(text.trim());
    if (!m.matches()) {
      throw new IllegalArgumentException(
          "--buffer must be a whole number of bytes, or one with KiB or MiB (262144, 256KiB),"
              + " got '"
              + text
              + "'");
    }
    long unit = m.group(2) == null ? 1 : m.group(2).equals("KiB") ? 1024 : 1024 * 1024;
    try {
      return Math.multiplyExact(Long.parseLong(m.group(1)), unit);
    } catch (ArithmeticException | NumberFormatException e) {
      throw new IllegalArgumentException("--buffer '" + text + "' is too large");
    }
  }

  private static final Pattern DURATION = Pattern.compile("(\\d+)\\s*(ms|s|m|h|d)");

  /** A duration with its unit (ms, s, m, h, d), 1 ms to redirects.guard-ttl-ms's largest value. */
  static long durationMs(String text) {
    Matcher m = DURATION.matcher(text.trim());
    long ms = -1;
    if (m.matches()) {
      long n;
      try {
        n = Long.parseLong(m.group(1));
      } catch (NumberFormatException e) {
        n = Long.MAX_VALUE;
      }
      Function<Long, Long> unit =
          switch (m.group(2)) {
            case "ms" -> v -> v;
            case "s" -> v -> v * 1000;
            case "m" -> v -> v * 60_000;
            case "h" -> v -> v * 3_600_000;
            default -> v -> v * 86_400_000;
          };
      ms = n > Integer.MAX_VALUE ? Long.MAX_VALUE : unit.apply(n);
    }
    long max = net.cheetah.core.redirect.RedirectSettings.MAX_PREFIX_FILTER_AGE_MS;
    if (ms < 1 || ms > max) {
      throw new IllegalArgumentException(
          "--ttl must be a duration with its unit from 1ms to 30d (90s, 30m, 12h, 7d), got '"
              + text
              + "': every guard expires, and adapters rebuild theirs from "
              + Topics.REDIRECTS_COMMANDS
              + ", kept 31 days");
    }
    return ms;
  }

  static String bufferText(long bytes) {
    return bytes == 0 ? "the queue's limit (rwnd_bytes 0)" : bytes + " B";
  }

  static String time(long ms) {
    return Instant.ofEpochMilli(ms).truncatedTo(ChronoUnit.SECONDS).toString();
  }

  /** Who issued a command, for the audit. */
  static String operator() {
    return "operator " + System.getProperty("user.name", "?") + " (./cheetah guard)";
  }
}
