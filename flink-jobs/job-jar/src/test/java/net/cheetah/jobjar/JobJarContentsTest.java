package net.cheetah.jobjar;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.jar.JarFile;
import java.util.zip.ZipEntry;
import net.cheetah.jobs.StreamJob;
import org.junit.jupiter.api.Test;

/**
 * What cheetah-jobs.jar holds: the entry point in its manifest, every job of the stack with its
 * non-Flink dependencies, and none of Flink's runtime (the cluster's) nor of Cheetah's embedded
 * runtime or command line.
 */
class JobJarContentsTest {

  @Test
  void theJarHasTheJobsAndTheirDependenciesButNoFlinkRuntimeNorEmbeddedClasses() throws Exception {
    try (JarFile jar = new JarFile(SessionCluster.jobJar().toFile())) {
      assertThat(jar.getManifest().getMainAttributes().getValue("Main-Class"))
          .isEqualTo("net.cheetah.jobs.JobMain");
      List<String> names = new ArrayList<>();
      jar.stream().map(ZipEntry::getName).forEach(names::add);

      List<String> classes = new ArrayList<>();
      classes.add("net.cheetah.jobs.JobMain");
      StreamJob.stack().forEach(j -> classes.add(j.getClass().getName()));
      classes.addAll(
          List.of(
              "net.cheetah.jobs.flink.JobEnvironment",
              "net.cheetah.config.CheetahConfig",
              "net.cheetah.schemas.v1.FlowRecord",
              "net.cheetah.schemas.goflow2.FlowMessage",
              "org.apache.flink.connector.kafka.source.KafkaSource",
              "org.apache.flink.connector.kafka.sink.KafkaSink",
              "org.apache.kafka.clients.producer.KafkaProducer",
              "com.google.protobuf.Message",
              "picocli.CommandLine"));
      for (String c : classes) {
        assertThat(names).as("the jar holds %s", c).contains(c.replace('.', '/') + ".class");
      }

      List<String> forbidden =
          List.of(
              "org/apache/flink/runtime/", // flink-runtime
              "org/apache/flink/client/", // flink-clients
              "org/apache/flink/streaming/api/environment/", // flink-streaming-java
              "org/apache/flink/api/common/", // flink-core
              "net/cheetah/runtime/", // EmbeddedKafka, EmbeddedFlink
              "net/cheetah/cli/", // Stack, FlinkJobs, the commands
              "kafka/server/", // the in-JVM broker
              "org/slf4j/",
              "org/apache/logging/");
      for (String prefix : forbidden) {
        assertThat(names.stream().filter(n -> n.startsWith(prefix)).limit(3).toList())
            .as("entries under %s (the cluster's or the embedded stack's)", prefix)
            .isEmpty();
      }
    }
  }
}
