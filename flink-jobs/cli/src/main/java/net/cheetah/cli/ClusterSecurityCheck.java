package net.cheetah.cli;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import net.cheetah.core.Topics;
import net.cheetah.jobs.FabricJob;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclBindingFilter;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.errors.AuthenticationException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Probes a secure cluster's Kafka from outside, as an attacker and as each component would ({@code
 * ./cheetah cluster security-check}; docs/DEPLOY.md, "Security"): clients without TLS, without
 * credentials or with a wrong password are refused; a component may not write a topic it does not
 * produce (the adapters' principal may not write redirects.commands.v1, but may read it and write
 * redirects.acks.v1); only the redirect authority's principal (the redirect job's, which ./cheetah
 * guard shares) may write commands; no dashboards principal exists; the brokers hold exactly the
 * ACLs of the chart's users.
 */
final class ClusterSecurityCheck {
  private static final Duration REFUSAL = Duration.ofSeconds(15);

  private final ClusterState state;
  private final Consumer<String> say;
  private final List<String> failed = new ArrayList<>();

  ClusterSecurityCheck(ClusterState state, Consumer<String> say) {
    this.state = state;
    this.say = say;
  }

  /** Runs every check; the names of those that failed (empty: all passed). */
  List<String> run(KafkaPrincipals principals) throws InterruptedException {
    if (state.data().kafkaSecurity().isEmpty()) {
      throw new IllegalStateException(
          "the cluster has no Kafka security: ./cheetah cluster up --secure on a new data-dir");
    }
    String bootstrap = state.data().bootstrap();
    Map<String, String> admin = state.data().clientSecurity(KafkaPrincipals.ADMIN);

    check(
        "a plaintext client (no TLS, no credentials) is refused",
        refused(bootstrap, Map.of("security.protocol", "PLAINTEXT")));
    Map<String, String> tlsOnly = new LinkedHashMap<>();
    tlsOnly.put("security.protocol", "SSL");
    tlsOnly.put("ssl.truststore.type", "PEM");
    tlsOnly.put("ssl.truststore.location", admin.get("ssl.truststore.location"));
    check("a TLS client without SASL credentials is refused", refused(bootstrap, tlsOnly));
    String mtls = mtlsBootstrap();
    check(
        "a TLS client without a client certificate is refused on the mTLS listener",
        refused(mtls, tlsOnly));
    Map<String, String> probeCert = new LinkedHashMap<>(tlsOnly);
    Map<String, String> probeFile = librdkafka(DemoProbe.PRINCIPAL);
    probeCert.put("ssl.keystore.type", "PKCS12");
    probeCert.put("ssl.keystore.location", probeFile.get("ssl.keystore.location"));
    probeCert.put("ssl.keystore.password", probeFile.get("ssl.keystore.password"));
    check(
        "the probe's certificate (principal cheetah-probe) cannot write "
            + Topics.REDIRECTS_COMMANDS,
        writeRefused(mtls, probeCert, Topics.REDIRECTS_COMMANDS));
    Map<String, String> wrong =
        new LinkedHashMap<>(state.data().clientSecurity(KafkaPrincipals.ADMIN));
    wrong.put(
        "sasl.jaas.config",
        "org.apache.kafka.common.security.scram.ScramLoginModule required"
            + " username=\"cheetah-admin\" password=\"not-the-password\";");
    check(
        "a client with a wrong SCRAM password is refused (an AuthenticationException)",
        authenticationRefused(bootstrap, wrong));

    String adapters = "cheetah-adapters";
    check(
        "the adapters' principal cannot write " + Topics.REDIRECTS_COMMANDS,
        writeRefused(bootstrap, adapters, Topics.REDIRECTS_COMMANDS));
    check(
        "the adapters' principal can read " + Topics.REDIRECTS_COMMANDS,
        canRead(bootstrap, adapters, Topics.REDIRECTS_COMMANDS));
    check(
        "the adapters' principal can write " + Topics.REDIRECTS_ACKS + " (a transaction, aborted)",
        canWriteAborted(bootstrap, adapters, Topics.REDIRECTS_ACKS));
    check(
        "the collector's principal cannot write " + Topics.REDIRECTS_COMMANDS,
        writeRefused(bootstrap, "cheetah-collector", Topics.REDIRECTS_COMMANDS));
    check(
        "the warehouse's principal cannot write " + Topics.FLOWS,
        writeRefused(bootstrap, "cheetah-warehouse", Topics.FLOWS));
    check(
        "the adapters' principal cannot read " + Topics.FLOWS,
        readRefused(bootstrap, adapters, Topics.FLOWS));
    check(
        "the redirect authority's principal (the redirect job's, ./cheetah guard's) can write "
            + Topics.REDIRECTS_COMMANDS
            + " (a transaction, aborted)",
        canWriteAborted(bootstrap, GuardCommand.PRINCIPAL, Topics.REDIRECTS_COMMANDS));
    check(
        "the redirect authority's principal cannot write " + Topics.THRESHOLDS,
        writeRefused(bootstrap, GuardCommand.PRINCIPAL, Topics.THRESHOLDS));

    try (Admin a = Cluster.admin(bootstrap, admin)) {
      Set<String> actual = new TreeSet<>();
      Set<String> writers = new TreeSet<>();
      for (AclBinding b : a.describeAcls(AclBindingFilter.ANY).values().get(60, TimeUnit.SECONDS)) {
        actual.add(b.toString());
        if (b.pattern().resourceType() == org.apache.kafka.common.resource.ResourceType.TOPIC
            && b.entry().operation() == AclOperation.WRITE
            && matches(b, Topics.REDIRECTS_COMMANDS)) {
          writers.add(b.entry().principal());
        }
      }
      Set<String> expected = new TreeSet<>();
      principals.acls().forEach(b -> expected.add(b.toString()));
      check(
          "only the command authorities (User:cheetah-redirects, User:"
              + FabricJob.NAME
              + ") may write "
              + Topics.REDIRECTS_COMMANDS
              + " "
              + writers,
          writers.equals(Set.of("User:cheetah-redirects", "User:" + FabricJob.NAME)));
      Set<String> missing = new TreeSet<>(expected);
      missing.removeAll(actual);
      Set<String> extra = new TreeSet<>(actual);
      extra.removeAll(expected);
      check(
          "the brokers hold exactly the chart's ACLs ("
              + expected.size()
              + "; missing "
              + missing
              + ", extra "
              + extra
              + ")",
          missing.isEmpty() && extra.isEmpty());
      Set<String> principalsWithAcls = new HashSet<>();
      actual.forEach(x -> principalsWithAcls.add(x));
      check(
          "no dashboards principal has any ACL",
          principals.names().stream().noneMatch(n -> n.contains("dashboard"))
              && actual.stream().noneMatch(x -> x.contains("dashboard") || x.contains("superset")));
    } catch (ExecutionException | java.util.concurrent.TimeoutException e) {
      check("the CLI's principal can list the ACLs (" + e.getMessage() + ")", false);
    }
    return failed;
  }

  private static boolean matches(AclBinding b, String topic) {
    String name = b.pattern().name();
    return switch (b.pattern().patternType()) {
      case LITERAL -> name.equals(topic) || name.equals("*");
      case PREFIXED -> topic.startsWith(name);
      default -> false;
    };
  }

  private void check(String what, boolean ok) {
    say.accept((ok ? "PASS " : "FAIL ") + what);
    if (!ok) {
      failed.add(what);
    }
  }

  private static Properties client(String bootstrap, Map<String, String> security) {
    Properties p = new Properties();
    p.putAll(security);
    p.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    return p;
  }

  /** True if the client gets no answer to describeCluster (refused or hung up on). */
  private static boolean refused(String bootstrap, Map<String, String> security) {
    Properties p = client(bootstrap, security);
    p.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, (int) REFUSAL.toMillis());
    p.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, (int) REFUSAL.toMillis());
    try (Admin a = Admin.create(p)) {
      a.describeCluster().nodes().get(REFUSAL.toSeconds() + 5, TimeUnit.SECONDS);
      return false;
    } catch (Exception e) {
      return true;
    }
  }

  private boolean authenticationRefused(String bootstrap, Map<String, String> security) {
    Properties p = client(bootstrap, security);
    // The Admin client refuses an API timeout shorter than its request timeout.
    p.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, (int) REFUSAL.toMillis());
    p.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, (int) REFUSAL.toMillis());
    try (Admin a = Admin.create(p)) {
      a.describeCluster().nodes().get(REFUSAL.toSeconds() + 5, TimeUnit.SECONDS);
      return false;
    } catch (ExecutionException e) {
      if (e.getCause() instanceof AuthenticationException) {
        return true;
      }
      say.accept("  (wrong password: " + e.getCause() + ")");
      return false;
    } catch (Exception e) {
      say.accept("  (wrong password: " + e + ")");
      return false;
    }
  }

  private Properties producer(String bootstrap, String principal) {
    Properties p = client(bootstrap, state.data().clientSecurity(principal));
    p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, (int) REFUSAL.toMillis());
    p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, (int) REFUSAL.toMillis());
    p.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, (int) REFUSAL.toMillis() / 2);
    return p;
  }

  /** The brokers' mTLS listener addresses (the ports recorded as kafka-mtls). */
  private String mtlsBootstrap() {
    List<String> out = new ArrayList<>();
    for (ClusterState.Proc p : state.processes()) {
      Integer port = p.ports().get("kafka-mtls");
      if (port != null) {
        out.add("127.0.0.1:" + port);
      }
    }
    return String.join(",", out);
  }

  /** A principal's librdkafka file (ClusterSecurity), as key=value pairs. */
  private Map<String, String> librdkafka(String principal) {
    Map<String, String> out = new LinkedHashMap<>();
    try {
      for (String line :
          java.nio.file.Files.readAllLines(
              new ClusterSecurity(Cluster.securityDir(state)).librdkafka(principal))) {
        int eq = line.indexOf('=');
        if (!line.startsWith("#") && eq > 0) {
          out.put(line.substring(0, eq), line.substring(eq + 1));
        }
      }
    } catch (java.io.IOException e) {
      throw new IllegalStateException("cannot read the librdkafka file of " + principal, e);
    }
    return out;
  }

  /** True only if the write fails for want of authorization (not for any other reason). */
  private boolean writeRefused(String bootstrap, String principal, String topic) {
    return writeRefused(bootstrap, state.data().clientSecurity(principal), topic);
  }

  private boolean writeRefused(String bootstrap, Map<String, String> security, String topic) {
    String principal = security.getOrDefault("ssl.keystore.location", "the principal");
    Properties p = client(bootstrap, security);
    p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, (int) REFUSAL.toMillis());
    p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, (int) REFUSAL.toMillis());
    p.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, (int) REFUSAL.toMillis() / 2);
    p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "false");
    try (KafkaProducer<byte[], byte[]> pr =
        new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer())) {
      pr.send(new ProducerRecord<>(topic, new byte[] {1})).get(30, TimeUnit.SECONDS);
      return false;
    } catch (TopicAuthorizationException e) {
      return true;
    } catch (ExecutionException e) {
      return e.getCause() instanceof TopicAuthorizationException;
    } catch (Exception e) {
      say.accept("  (" + principal + " writing " + topic + ": " + e + ")");
      return false;
    }
  }

  /** A transactional write, aborted: authorized, and invisible to read_committed consumers. */
  private boolean canWriteAborted(String bootstrap, String principal, String topic) {
    Properties p = producer(bootstrap, principal);
    p.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, principal + "-security-check");
    try (KafkaProducer<byte[], byte[]> pr =
        new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer())) {
      pr.initTransactions();
      pr.beginTransaction();
      pr.send(new ProducerRecord<>(topic, new byte[] {1})).get(30, TimeUnit.SECONDS);
      pr.abortTransaction();
      return true;
    } catch (Exception e) {
      say.accept("  (" + principal + " writing " + topic + ": " + e + ")");
      return false;
    }
  }

  private Properties consumer(String bootstrap, String principal) {
    Properties p = client(bootstrap, state.data().clientSecurity(principal));
    p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    p.put(ConsumerConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, (int) REFUSAL.toMillis());
    return p;
  }

  /** Assigned partition 0 of {@code topic}, its position from the start can be read. */
  private boolean canRead(String bootstrap, String principal, String topic) {
    try (KafkaConsumer<byte[], byte[]> c =
        new KafkaConsumer<>(
            consumer(bootstrap, principal),
            new ByteArrayDeserializer(),
            new ByteArrayDeserializer())) {
      TopicPartition tp = new TopicPartition(topic, 0);
      c.assign(List.of(tp));
      c.seekToBeginning(List.of(tp));
      c.position(tp, REFUSAL);
      c.poll(Duration.ofSeconds(2));
      return true;
    } catch (Exception e) {
      say.accept("  (" + principal + " reading " + topic + ": " + e + ")");
      return false;
    }
  }

  private boolean readRefused(String bootstrap, String principal, String topic) {
    try (KafkaConsumer<byte[], byte[]> c =
        new KafkaConsumer<>(
            consumer(bootstrap, principal),
            new ByteArrayDeserializer(),
            new ByteArrayDeserializer())) {
      TopicPartition tp = new TopicPartition(topic, 0);
      c.assign(List.of(tp));
      c.seekToBeginning(List.of(tp));
      c.poll(Duration.ofSeconds(5));
      c.position(tp, REFUSAL);
      c.poll(Duration.ofSeconds(2));
      return false;
    } catch (TopicAuthorizationException e) {
      return true;
    } catch (Exception e) {
      say.accept("  (" + principal + " reading " + topic + ": " + e + ")");
      return false;
    }
  }
}
