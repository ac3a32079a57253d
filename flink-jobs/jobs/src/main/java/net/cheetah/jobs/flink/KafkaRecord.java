package net.cheetah.jobs.flink;

/** One Kafka record as read by a job, with where it came from (for rejections). */
public record KafkaRecord(
    String topic, int partition, long offset, long timestampMs, byte[] value) {}
