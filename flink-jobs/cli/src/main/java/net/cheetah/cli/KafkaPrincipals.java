package net.cheetah.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;

/**
 * One Kafka principal per component with least-privilege ACLs (docs/DEPLOY.md, "Security"), read
 * from the chart's copy of the topic manifest (helm/cheetah/files/topics.yaml, generated from
 * schemas/topics.yaml's producers/consumers by helm/gen_chart_data.py): the same users the chart
 * renders as Strimzi KafkaUsers (helm/cheetah/templates/users.yaml), with the same rule, so the
 * local cluster and a Kubernetes deployment grant exactly the same.
 *
 * <p>The rule: a user may Write and Describe the topics it produces, Read and Describe those it
 * consumes; its consumer groups and transactional ids are its own, prefixed by its name.
 */
record KafkaPrincipals(List<User> users) {
  /** The chart's copy of the manifest, relative to the repository. */
  static final String CHART_MANIFEST = "helm/cheetah/files/topics.yaml";

  /** Creates topics and ACLs and watches consumer lag: the cluster's CLI (a super user). */
  static final String ADMIN = "cheetah-admin";

  /** The brokers among themselves (inter-broker SCRAM; a super user). */
  static final String BROKER = "cheetah-broker";

  /** The brokers' certificate subject, their principal on the controller listener (mTLS). */
  static final String BROKER_DN = "CN=cheetah-broker";

  /** A component's principal and the topics it may write and read. */
  record User(String name, List<String> components, List<String> writes, List<String> reads) {}

  KafkaPrincipals {
    users = List.copyOf(users);
  }

  /** The users of the chart's manifest that exist today (a topic something produces). */
  static KafkaPrincipals read(Path repository) throws IOException {
    Path file = repository.resolve(CHART_MANIFEST);
    JsonNode root = new ObjectMapper(new YAMLFactory()).readTree(file.toFile());
    JsonNode list = root == null ? null : root.get("users");
    if (list == null || !list.isArray()) {
      throw new IllegalStateException(
          file + " has no users: regenerate it with helm/gen_chart_data.py");
    }
    List<User> users = new ArrayList<>();
    for (JsonNode u : list) {
      if (!u.path("built").asBoolean(false)) {
        continue;
      }
      users.add(
          new User(
              u.path("name").asText(),
              texts(u.path("components")),
              texts(u.path("writes")),
              texts(u.path("reads"))));
    }
    return new KafkaPrincipals(users);
  }

  private static List<String> texts(JsonNode n) {
    List<String> out = new ArrayList<>();
    n.forEach(x -> out.add(x.asText()));
    return out;
  }

  /** The principal names of the components. */
  List<String> names() {
    return users.stream().map(User::name).toList();
  }

  /** Every ACL of every user, by the rule of the class comment. */
  List<AclBinding> acls() {
    List<AclBinding> out = new ArrayList<>();
    for (User u : users) {
      String p = "User:" + u.name();
      for (String t : u.writes()) {
        allow(out, ResourceType.TOPIC, t, PatternType.LITERAL, p, AclOperation.WRITE);
        allow(out, ResourceType.TOPIC, t, PatternType.LITERAL, p, AclOperation.DESCRIBE);
      }
      for (String t : u.reads()) {
        allow(out, ResourceType.TOPIC, t, PatternType.LITERAL, p, AclOperation.READ);
        allow(out, ResourceType.TOPIC, t, PatternType.LITERAL, p, AclOperation.DESCRIBE);
      }
      if (!u.reads().isEmpty()) {
        allow(out, ResourceType.GROUP, u.name(), PatternType.PREFIXED, p, AclOperation.READ);
      }
      if (!u.writes().isEmpty()) {
        allow(
            out,
            ResourceType.TRANSACTIONAL_ID,
            u.name(),
            PatternType.PREFIXED,
            p,
            AclOperation.WRITE);
        allow(
            out,
            ResourceType.TRANSACTIONAL_ID,
            u.name(),
            PatternType.PREFIXED,
            p,
            AclOperation.DESCRIBE);
      }
    }
    // A topic both read and written (backfill.progress.v1) gets Describe once.
    return List.copyOf(new java.util.LinkedHashSet<>(out));
  }

  private static void allow(
      List<AclBinding> out,
      ResourceType type,
      String name,
      PatternType pattern,
      String principal,
      AclOperation op) {
    out.add(
        new AclBinding(
            new ResourcePattern(type, name, pattern),
            new AccessControlEntry(principal, "*", op, AclPermissionType.ALLOW)));
  }
}
