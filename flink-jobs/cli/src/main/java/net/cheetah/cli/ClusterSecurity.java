package net.cheetah.cli;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import net.cheetah.config.CheetahConfig;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ScramCredentialInfo;
import org.apache.kafka.clients.admin.ScramMechanism;
import org.apache.kafka.clients.admin.UserScramCredentialAlteration;
import org.apache.kafka.clients.admin.UserScramCredentialUpsertion;

/**
 * The secure cluster's setup step ({@code ./cheetah cluster up --secure}; docs/DEPLOY.md,
 * "Security"): a CA and the brokers' certificate made with the JDK's keytool (PKCS12 keystores, the
 * CA as PEM for every client library), a random SCRAM-SHA-512 password per principal, and, once the
 * brokers run, each component's SCRAM credential and ACLs ({@link KafkaPrincipals}) through the
 * Admin API. Everything lives in {@code DATA/cluster/security} (owner-only):
 *
 * <pre>
 *   ca.p12, ca.pem                 the CA (its key stays here), its certificate
 *   broker.p12, store-password     the brokers' key and certificate (CN=cheetah-broker)
 *   passwords/PRINCIPAL            each principal's SCRAM password (kafka.security.password-dir)
 *   librdkafka/PRINCIPAL.properties  the same as librdkafka configuration (the warehouse)
 *   clients/PRINCIPAL.p12          a client certificate (CN=PRINCIPAL) for the mTLS listener
 * </pre>
 *
 * <p>The principals of {@link #MTLS_CLIENTS} authenticate with a client certificate on a second TLS
 * listener instead of SCRAM: the probe links Debian 12's librdkafka 2.0.2, whose SCRAM Kafka 4
 * refuses (a nonce sent twice, fixed in librdkafka 2.6.1); its librdkafka file names that
 * listener's addresses as bootstrap.servers. The certificate's CN is the principal (the brokers'
 * ssl.principal.mapping.rules), so the ACLs are the same.
 */
final class ClusterSecurity {
  private static final String MECHANISM = "SCRAM-SHA-512";
  private static final int ITERATIONS = 8192;

  /** Components whose Kafka client cannot do SCRAM with Kafka 4 (see the class comment). */
  static final List<String> MTLS_CLIENTS = List.of(DemoProbe.PRINCIPAL);

  /** The certificate subject's CN becomes the principal (CN=cheetah-probe: cheetah-probe). */
  static final String PRINCIPAL_MAPPING = "RULE:^CN=([A-Za-z0-9._-]+)$/$1/,DEFAULT";

  private final Path dir;

  ClusterSecurity(Path dir) {
    this.dir = dir;
  }

  Path dir() {
    return dir;
  }

  Path caPem() {
    return dir.resolve("ca.pem");
  }

  Path passwords() {
    return dir.resolve("passwords");
  }

  Path librdkafka(String principal) {
    return dir.resolve("librdkafka").resolve(principal + ".properties");
  }

  String password(String principal) throws IOException {
    return Files.readString(passwords().resolve(principal), StandardCharsets.UTF_8).strip();
  }

  /** The kafka.security.* keys a component of this cluster runs with. */
  Map<String, String> configKeys() {
    Map<String, String> k = new LinkedHashMap<>();
    k.put(CheetahConfig.Kafka.SECURITY_PROTOCOL.name(), "SASL_SSL");
    k.put(CheetahConfig.Kafka.CA_FILE.name(), caPem().toString());
    k.put(CheetahConfig.Kafka.PASSWORD_DIR.name(), passwords().toString());
    return k;
  }

  /**
   * Java client properties for {@code principal} from the cluster's recorded kafka.security.* keys
   * (empty keys: a cluster without security, no properties).
   */
  static Map<String, String> clientProperties(Map<String, String> keys, String principal) {
    if (keys == null || keys.isEmpty()) {
      return Map.of();
    }
    return new CheetahConfig.Kafka(
            "",
            19092,
            19093,
            1,
            keys.get(CheetahConfig.Kafka.SECURITY_PROTOCOL.name()),
            keys.getOrDefault(CheetahConfig.Kafka.CA_FILE.name(), ""),
            keys.getOrDefault(CheetahConfig.Kafka.PASSWORD_DIR.name(), ""))
        .clientSecurity(principal);
  }

  // --- the setup step -------------------------------------------------------------------------

  /**
   * Makes the CA, the brokers' keystore and every principal's password (a new cluster).
   *
   * @param mtlsBootstrap the brokers' mTLS listener addresses (HOST:PORT,...)
   */
  static ClusterSecurity create(Path dir, List<String> principals, String mtlsBootstrap)
      throws IOException {
    ClusterSecurity s = new ClusterSecurity(dir);
    ownerOnlyDir(dir);
    ownerOnlyDir(s.passwords());
    ownerOnlyDir(dir.resolve("librdkafka"));
    ownerOnlyDir(dir.resolve("clients"));
    String storePassword = random();
    secret(dir.resolve("store-password"), storePassword);
    Map<String, String> env = Map.of("CHEETAH_STORE_PASSWORD", storePassword);
    Path ca = dir.resolve("ca.p12");
    Path broker = dir.resolve("broker.p12");
    String validity = "825";
    keytool(
        env,
        "-genkeypair",
        "-alias",
        "ca",
        "-keyalg",
        "RSA",
        "-keysize",
        "2048",
        "-validity",
        validity,
        "-dname",
        "CN=cheetah-local-ca",
        "-ext",
        "bc:c",
        "-storetype",
        "PKCS12",
        "-keystore",
        ca.toString(),
        "-storepass:env",
        "CHEETAH_STORE_PASSWORD");
    keytool(
        env,
        "-exportcert",
        "-rfc",
        "-alias",
        "ca",
        "-keystore",
        ca.toString(),
        "-storepass:env",
        "CHEETAH_STORE_PASSWORD",
        "-file",
        s.caPem().toString());
    keytool(
        env,
        "-genkeypair",
        "-alias",
        "broker",
        "-keyalg",
        "RSA",
        "-keysize",
        "2048",
        "-validity",
        validity,
        "-dname",
        KafkaPrincipals.BROKER_DN,
        "-storetype",
        "PKCS12",
        "-keystore",
        broker.toString(),
        "-storepass:env",
        "CHEETAH_STORE_PASSWORD");
    s.sign(env, ca, broker, "broker", "SAN=ip:127.0.0.1,dns:localhost", "serverAuth,clientAuth");
    List<String> all = new ArrayList<>(principals);
    all.add(KafkaPrincipals.ADMIN);
    all.add(KafkaPrincipals.BROKER);
    for (String p : all) {
      String pw = random();
      secret(s.passwords().resolve(p), pw);
      if (MTLS_CLIENTS.contains(p)) {
        Path store = dir.resolve("clients").resolve(p + ".p12");
        keytool(
            env,
            "-genkeypair",
            "-alias",
            p,
            "-keyalg",
            "RSA",
            "-keysize",
            "2048",
            "-validity",
            validity,
            "-dname",
            "CN=" + p,
            "-storetype",
            "PKCS12",
            "-keystore",
            store.toString(),
            "-storepass:env",
            "CHEETAH_STORE_PASSWORD");
        s.sign(env, ca, store, p, "", "clientAuth");
        secret(
            s.librdkafka(p),
            String.join(
                "\n",
                "# Written by ./cheetah cluster up --secure: principal "
                    + p
                    + " (librdkafka, mTLS).",
                "bootstrap.servers=" + mtlsBootstrap,
                "security.protocol=SSL",
                "ssl.ca.location=" + s.caPem(),
                "ssl.keystore.location=" + store,
                "ssl.keystore.password=" + storePassword,
                ""));
        continue;
      }
      secret(
          s.librdkafka(p),
          String.join(
              "\n",
              "# Written by ./cheetah cluster up --secure: principal " + p + " (librdkafka).",
              "security.protocol=SASL_SSL",
              "sasl.mechanisms=" + MECHANISM,
              "sasl.username=" + p,
              "sasl.password=" + pw,
              "ssl.ca.location=" + s.caPem(),
              ""));
    }
    return s;
  }

  /** Signs the key {@code alias} of {@code store} with the CA and imports the chain into it. */
  private void sign(
      Map<String, String> env, Path ca, Path store, String alias, String san, String eku)
      throws IOException {
    String validity = "825";
    Path csr = dir.resolve(alias + ".csr");
    Path crt = dir.resolve(alias + ".crt");
    keytool(
        env,
        "-certreq",
        "-alias",
        alias,
        "-keystore",
        store.toString(),
        "-storepass:env",
        "CHEETAH_STORE_PASSWORD",
        "-file",
        csr.toString());
    List<String> gencert =
        new ArrayList<>(
            List.of(
                "-gencert",
                "-rfc",
                "-alias",
                "ca",
                "-keystore",
                ca.toString(),
                "-storepass:env",
                "CHEETAH_STORE_PASSWORD",
                "-infile",
                csr.toString(),
                "-outfile",
                crt.toString(),
                "-validity",
                validity,
                "-ext",
                "EKU=" + eku));
    if (!san.isEmpty()) {
      // Clients check the host they dialled (127.0.0.1) against the broker's certificate.
      gencert.addAll(List.of("-ext", san));
    }
    keytool(env, gencert.toArray(String[]::new));
    keytool(
        env,
        "-importcert",
        "-noprompt",
        "-alias",
        "ca",
        "-file",
        caPem().toString(),
        "-keystore",
        store.toString(),
        "-storepass:env",
        "CHEETAH_STORE_PASSWORD");
    keytool(
        env,
        "-importcert",
        "-alias",
        alias,
        "-file",
        crt.toString(),
        "-keystore",
        store.toString(),
        "-storepass:env",
        "CHEETAH_STORE_PASSWORD");
    Files.delete(csr);
    Files.delete(crt);
  }

  /**
   * The broker's security settings: clients and brokers on SASL_SSL (SCRAM-SHA-512), the KRaft
   * controllers on TLS with client certificates (SCRAM is not offered to controllers), the
   * StandardAuthorizer denying whatever no ACL allows; super users only the brokers and the CLI.
   */
  List<String> brokerProperties(int port, int mtlsPort, int controllerPort) throws IOException {
    String store = Files.readString(dir.resolve("store-password")).strip();
    return List.of(
        "# Security (./cheetah cluster up --secure; docs/DEPLOY.md, \"Security\").",
        "listeners=CLIENT://127.0.0.1:"
            + port
            + ",MTLS://127.0.0.1:"
            + mtlsPort
            + ",CONTROLLER://127.0.0.1:"
            + controllerPort,
        "advertised.listeners=CLIENT://127.0.0.1:" + port + ",MTLS://127.0.0.1:" + mtlsPort,
        "inter.broker.listener.name=CLIENT",
        "listener.security.protocol.map=CLIENT:SASL_SSL,MTLS:SSL,CONTROLLER:SSL",
        "sasl.enabled.mechanisms=" + MECHANISM,
        "sasl.mechanism.inter.broker.protocol=" + MECHANISM,
        "listener.name.client.scram-sha-512.sasl.jaas.config="
            + "org.apache.kafka.common.security.scram.ScramLoginModule required username=\""
            + KafkaPrincipals.BROKER
            + "\" password=\""
            + password(KafkaPrincipals.BROKER)
            + "\";",
        "ssl.keystore.type=PKCS12",
        "ssl.keystore.location=" + dir.resolve("broker.p12"),
        "ssl.keystore.password=" + store,
        "ssl.key.password=" + store,
        "ssl.truststore.type=PEM",
        "ssl.truststore.location=" + caPem(),
        "listener.name.controller.ssl.client.auth=required",
        "listener.name.mtls.ssl.client.auth=required",
        "ssl.principal.mapping.rules=" + PRINCIPAL_MAPPING,
        "authorizer.class.name=org.apache.kafka.metadata.authorizer.StandardAuthorizer",
        "allow.everyone.if.no.acl.found=false",
        "super.users=User:"
            + KafkaPrincipals.BROKER
            + ";User:"
            + KafkaPrincipals.ADMIN
            + ";User:"
            + KafkaPrincipals.BROKER_DN);
  }

  /**
   * The storage tool's arguments that give the brokers' and the CLI's SCRAM credentials before the
   * first start (the others are created through the Admin API by {@link #grant}).
   */
  List<String> formatArguments() throws IOException {
    List<String> a = new ArrayList<>();
    for (String p : List.of(KafkaPrincipals.BROKER, KafkaPrincipals.ADMIN)) {
      a.add("--add-scram");
      a.add(MECHANISM + "=[name=" + p + ",password=" + password(p) + "]");
    }
    return a;
  }

  /** Each component's SCRAM credential and ACLs, as the CLI's super user (idempotent). */
  void grant(Admin admin, KafkaPrincipals principals) {
    try {
      List<UserScramCredentialAlteration> creds = new ArrayList<>();
      for (String p : principals.names()) {
        creds.add(
            new UserScramCredentialUpsertion(
                p, new ScramCredentialInfo(ScramMechanism.SCRAM_SHA_512, ITERATIONS), password(p)));
      }
      admin.alterUserScramCredentials(creds).all().get(60, TimeUnit.SECONDS);
      admin.createAcls(principals.acls()).all().get(60, TimeUnit.SECONDS);
    } catch (IOException e) {
      throw new IllegalStateException("cannot read the principals' passwords in " + dir, e);
    } catch (Exception e) {
      throw new IllegalStateException(
          "cannot create the components' SCRAM credentials and ACLs: " + e.getMessage(), e);
    }
  }

  // --- files ----------------------------------------------------------------------------------

  private static String random() {
    byte[] b = new byte[24];
    new SecureRandom().nextBytes(b);
    return Base64.getUrlEncoder().withoutPadding().encodeToString(b);
  }

  private static void ownerOnlyDir(Path d) throws IOException {
    Files.createDirectories(d);
    Files.setPosixFilePermissions(d, PosixFilePermissions.fromString("rwx------"));
  }

  private static void secret(Path f, String text) throws IOException {
    Files.deleteIfExists(f);
    Files.createFile(
        f, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
    Files.writeString(f, text, StandardCharsets.UTF_8);
  }

  private static void keytool(Map<String, String> env, String... args) throws IOException {
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "keytool").toString());
    cmd.addAll(List.of(args));
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
    pb.environment().putAll(env);
    try {
      Process p = pb.start();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (p.waitFor() != 0) {
        throw new IllegalStateException("keytool " + args[0] + " failed: " + out.strip());
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted: keytool " + args[0], e);
    }
  }
}
