package net.cheetah.analytics.throughput;

/**
 * A host's resource use at one time (from /proc): CPU, disk and NIC utilisation in percent (NaN
 * when not sampled) and its NIC rate in bit/s (0 when unknown; a static setting).
 */
public record HostSample(
    String host,
    long ms,
    double cpuPercent,
    double diskPercent,
    double nicPercent,
    double nicBps) {}
