package net.cheetah.runtime;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.CreateTopicsResult;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.errors.TopicExistsException;

/**
 * Creates Kafka topics that do not exist yet, leaving existing ones untouched. Works against the
 * embedded broker and a real cluster alike.
 */
public final class TopicCreator {

  private TopicCreator() {}

  /**
   * Creates the topics missing on the cluster behind {@code admin} and returns the names of those
   * it created. Existing topics, whatever their partitions or configuration, are left as they are.
   */
  public static Set<String> createMissing(
      Admin admin, Collection<TopicSpec> topics, Duration timeout) {
    if (topics.isEmpty()) {
      return Set.of();
    }
    Map<String, TopicSpec> byName = new LinkedHashMap<>();
    for (TopicSpec topic : topics) {
      if (byName.put(topic.name(), topic) != null) {
        throw new IllegalArgumentException("Topic " + topic.name() + " is listed twice");
      }
    }
    List<NewTopic> requests = new ArrayList<>();
    for (TopicSpec topic : byName.values()) {
      requests.add(
          new NewTopic(
                  topic.name(),
                  Optional.of(topic.partitions()),
                  topic.replicationFactor() == TopicSpec.BROKER_DEFAULT
                      ? Optional.empty()
                      : Optional.of((short) topic.replicationFactor()))
              .configs(topic.config()));
    }
    CreateTopicsResult result = admin.createTopics(requests);
    long deadline = System.nanoTime() + timeout.toNanos();
    Set<String> created = new LinkedHashSet<>();
    List<String> failures = new ArrayList<>();
    for (Map.Entry<String, org.apache.kafka.common.KafkaFuture<Void>> entry :
        result.values().entrySet()) {
      String name = entry.getKey();
      try {
        entry.getValue().get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
        created.add(name);
      } catch (ExecutionException e) {
        if (!(e.getCause() instanceof TopicExistsException)) {
          failures.add(name + " " + byName.get(name) + ": " + e.getCause());
        }
      } catch (TimeoutException e) {
        failures.add(name + ": no answer within " + Durations.describe(timeout));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("Interrupted while creating Kafka topics", e);
      }
    }
    if (!failures.isEmpty()) {
      throw new IllegalStateException(
          "Could not create Kafka topic(s): "
              + String.join("; ", failures)
              + ". Check that the broker is reachable and the partitions/config are valid.");
    }
    return created;
  }
}
