package net.cheetah.jobs.flink;

/** An encoded message and its Kafka key, ready for a sink. */
public record KeyedBytes(byte[] key, byte[] value) {}
