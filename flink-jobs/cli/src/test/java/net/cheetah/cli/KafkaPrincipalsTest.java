package net.cheetah.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import net.cheetah.jobs.FabricJob;
import net.cheetah.jobs.StreamJob;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.resource.ResourceType;
import org.junit.jupiter.api.Test;

/**
 * The secure cluster's principals and ACLs, read from the chart's manifest copy, against
 * expectations written by hand from the rules (docs/DEPLOY.md, "Security").
 */
class KafkaPrincipalsTest {
  private static final Path ROOT = Path.of(System.getProperty("cheetah.root", "../.."));

  private static Set<String> grants(KafkaPrincipals p, String user) {
    Set<String> out = new TreeSet<>();
    for (AclBinding b : p.acls()) {
      if (b.entry().principal().equals("User:" + user)) {
        out.add(
            b.pattern().resourceType()
                + " "
                + b.pattern().patternType()
                + " "
                + b.pattern().name()
                + " "
                + b.entry().operation());
      }
    }
    return out;
  }

  private static Set<String> writers(KafkaPrincipals p, String topic) {
    Set<String> out = new TreeSet<>();
    for (AclBinding b : p.acls()) {
      if (b.pattern().resourceType() == ResourceType.TOPIC
          && b.pattern().name().equals(topic)
          && b.entry().operation() == AclOperation.WRITE) {
        out.add(b.entry().principal());
      }
    }
    return out;
  }

  @Test
  void theAdaptersReadCommandsAndWriteAcksAndGuardSamplesOnly() throws Exception {
    KafkaPrincipals p = KafkaPrincipals.read(ROOT);
    // The incast target (the same program) publishes its guard samples.
    assertThat(grants(p, "cheetah-adapters"))
        .containsExactlyInAnyOrder(
            "TOPIC LITERAL redirects.acks.v1 WRITE",
            "TOPIC LITERAL redirects.acks.v1 DESCRIBE",
            "TOPIC LITERAL incast.guard.v1 WRITE",
            "TOPIC LITERAL incast.guard.v1 DESCRIBE",
            "TOPIC LITERAL redirects.commands.v1 READ",
            "TOPIC LITERAL redirects.commands.v1 DESCRIBE",
            "GROUP PREFIXED cheetah-adapters READ",
            "TRANSACTIONAL_ID PREFIXED cheetah-adapters WRITE",
            "TRANSACTIONAL_ID PREFIXED cheetah-adapters DESCRIBE");
  }

  @Test
  void theCollectorWritesFlowsRejectionsAndSflowCountersOnly() throws Exception {
    KafkaPrincipals p = KafkaPrincipals.read(ROOT);
    // sFlow interface counter samples go to snmp.counters.v1 (schemas/topics.yaml).
    assertThat(grants(p, "cheetah-collector"))
        .containsExactlyInAnyOrder(
            "TOPIC LITERAL flows.goflow2.v1 WRITE",
            "TOPIC LITERAL flows.goflow2.v1 DESCRIBE",
            "TOPIC LITERAL flows.rejected.v1 WRITE",
            "TOPIC LITERAL flows.rejected.v1 DESCRIBE",
            "TOPIC LITERAL snmp.counters.v1 WRITE",
            "TOPIC LITERAL snmp.counters.v1 DESCRIBE",
            "TRANSACTIONAL_ID PREFIXED cheetah-collector WRITE",
            "TRANSACTIONAL_ID PREFIXED cheetah-collector DESCRIBE");
  }

  @Test
  void theRedirectAuthorityWritesCommandsAndTheirAuditAndReadsWhatTheGuardCommandNeeds()
      throws Exception {
    KafkaPrincipals p = KafkaPrincipals.read(ROOT);
    // The redirect job reads the cheetahs and their control topic and writes its rejections;
    // ./cheetah guard, connecting as the same authority, reads the commands in force and acks.
    assertThat(GuardCommand.PRINCIPAL).isEqualTo("cheetah-redirects");
    assertThat(grants(p, GuardCommand.PRINCIPAL))
        .containsExactlyInAnyOrder(
            "TOPIC LITERAL cheetahs.v1 READ",
            "TOPIC LITERAL cheetahs.v1 DESCRIBE",
            "TOPIC LITERAL cheetahs.control.v1 READ",
            "TOPIC LITERAL cheetahs.control.v1 DESCRIBE",
            "TOPIC LITERAL flows.rejected.v1 WRITE",
            "TOPIC LITERAL flows.rejected.v1 DESCRIBE",
            "TOPIC LITERAL redirects.commands.v1 WRITE",
            "TOPIC LITERAL redirects.commands.v1 DESCRIBE",
            "TOPIC LITERAL redirects.commands.v1 READ",
            "TOPIC LITERAL redirects.decisions.v1 WRITE",
            "TOPIC LITERAL redirects.decisions.v1 DESCRIBE",
            "TOPIC LITERAL redirects.acks.v1 READ",
            "TOPIC LITERAL redirects.acks.v1 DESCRIBE",
            "GROUP PREFIXED cheetah-redirects READ",
            "TRANSACTIONAL_ID PREFIXED cheetah-redirects WRITE",
            "TRANSACTIONAL_ID PREFIXED cheetah-redirects DESCRIBE");
  }

  @Test
  void theFabricJobReadsSflowFlowsAndCountersAndWritesRerouteCommandsAndTheirAudit()
      throws Exception {
    KafkaPrincipals p = KafkaPrincipals.read(ROOT);
    // Its own principal (docs/FABRIC.md, "The job"): it reads what the redirect authority does
    // not (flows, link counters) and nothing the adapters or the guard command need; it also
    // writes the link states of its rounds.
    assertThat(FabricJob.NAME).isEqualTo("cheetah-fabric");
    assertThat(grants(p, FabricJob.NAME))
        .containsExactlyInAnyOrder(
            "TOPIC LITERAL flows.v1 READ",
            "TOPIC LITERAL flows.v1 DESCRIBE",
            "TOPIC LITERAL snmp.counters.v1 READ",
            "TOPIC LITERAL snmp.counters.v1 DESCRIBE",
            "TOPIC LITERAL flows.rejected.v1 WRITE",
            "TOPIC LITERAL flows.rejected.v1 DESCRIBE",
            "TOPIC LITERAL redirects.commands.v1 WRITE",
            "TOPIC LITERAL redirects.commands.v1 DESCRIBE",
            "TOPIC LITERAL redirects.decisions.v1 WRITE",
            "TOPIC LITERAL redirects.decisions.v1 DESCRIBE",
            "TOPIC LITERAL fabric.links.v1 WRITE",
            "TOPIC LITERAL fabric.links.v1 DESCRIBE",
            "GROUP PREFIXED cheetah-fabric READ",
            "TRANSACTIONAL_ID PREFIXED cheetah-fabric WRITE",
            "TRANSACTIONAL_ID PREFIXED cheetah-fabric DESCRIBE");
  }

  @Test
  void onlyTheCommandAuthoritiesWriteCommandsAndNoDashboardsPrincipalExists() throws Exception {
    KafkaPrincipals p = KafkaPrincipals.read(ROOT);
    // The redirect job (and ./cheetah guard as it) and the fabric job; never an adapter.
    assertThat(writers(p, "redirects.commands.v1"))
        .containsExactlyInAnyOrder("User:cheetah-redirects", "User:" + FabricJob.NAME);
    assertThat(p.names()).noneMatch(n -> n.contains("dashboard") || n.contains("superset"));
    assertThat(p.names())
        .as("the CLI's and the brokers' super users are not component principals")
        .doesNotContain(KafkaPrincipals.ADMIN, KafkaPrincipals.BROKER);
  }

  @Test
  void everyComponentThatTalksToKafkaHasAPrincipal() throws Exception {
    List<String> names = KafkaPrincipals.read(ROOT).names();
    // A job connects as its name (JobSettings#kafka): one without a user would be refused.
    StreamJob.stack().forEach(j -> assertThat(names).contains(j.name()));
    // The fabric job joins the stack only with a topology configured.
    assertThat(names).contains(FabricJob.NAME);
    assertThat(names)
        .contains(
            Warehouse.PRINCIPAL,
            Collector.PRINCIPAL,
            DemoProbe.PRINCIPAL,
            "cheetah-adapters",
            "cheetah-backfill",
            "cheetah-snmp-poller",
            "cheetah-transfer-shippers");
  }

  @Test
  void theTransferShippersWriteTransfersAndTheirRejects() throws Exception {
    KafkaPrincipals p = KafkaPrincipals.read(ROOT);
    // ./cheetah ship-transfers --kafka (ingest/transfers): records and rejects, nothing read.
    assertThat(writers(p, "transfers.v1")).containsExactly("User:cheetah-transfer-shippers");
    assertThat(writers(p, "flows.rejected.v1")).contains("User:cheetah-transfer-shippers");
  }
}
