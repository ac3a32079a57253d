package net.cheetah.jobs.throughput;

import java.util.Optional;
import net.cheetah.analytics.throughput.HostSample;
import net.cheetah.analytics.throughput.Transfer;
import net.cheetah.jobs.codec.Decoders;
import net.cheetah.jobs.codec.Decoders.Refused;
import net.cheetah.jobs.codec.FlowRecordReader;
import net.cheetah.jobs.flink.KeyedBytes;
import org.apache.flink.connector.kafka.source.reader.deserializer.KafkaRecordDeserializationSchema;
import org.apache.flink.types.Either;

/**
 * The throughput job's readers: flows.v1 records as every job checks them, transfers.v1 records
 * checked as the offline command checks a transfer log's lines, and transfers.hosts.v1 host samples
 * checked as it checks hosts.csv (ingest/transfers writes all three).
 */
public final class ThroughputInputs {
  /** The stage of the records it refuses (flows.rejected.v1). */
  public static final String STAGE = "throughput";

  private static final java.util.regex.Pattern WHITESPACE = java.util.regex.Pattern.compile("\\s");

  private ThroughputInputs() {}

  public static KafkaRecordDeserializationSchema<Either<KeyedBytes, ThroughputInput>> flows() {
    return Decoders.of(
        STAGE,
        ThroughputInput.class,
        (v, at) -> Optional.of(ThroughputInput.of(FlowRecordReader.read(v, at))));
  }

  public static KafkaRecordDeserializationSchema<Either<KeyedBytes, ThroughputInput>> transfers() {
    return Decoders.of(
        STAGE,
        ThroughputInput.class,
        (v, at) ->
            Optional.of(
                ThroughputInput.of(transfer(net.cheetah.schemas.v1.Transfer.parseFrom(v)))));
  }

  /** A transfers.v1 record as the analysis takes it, or why no tool logs such a transfer. */
  public static Transfer transfer(net.cheetah.schemas.v1.Transfer t) throws Refused {
    if (t.getSrcHost().isBlank() || t.getDstHost().isBlank()) {
      throw new Refused("missing_host", "src_host and dst_host must both be set");
    }
    if (WHITESPACE.matcher(t.getSrcHost() + t.getDstHost()).find()) {
      // A host pair's key is sender, newline, receiver: a host holds no white space.
      throw new Refused(
          "bad_host",
          "host names hold no white space: '" + t.getSrcHost() + "', '" + t.getDstHost() + "'");
    }
    if (t.getTool().isBlank()) {
      throw new Refused("missing_tool", "tool must be set");
    }
    if (t.getStartMs() < 0 || t.getEndMs() < t.getStartMs()) {
      throw new Refused(
          "end_before_start", "end_ms " + t.getEndMs() + " is before start_ms " + t.getStartMs());
    }
    if (!(t.getSeconds() >= 0) || Double.isInfinite(t.getSeconds())) {
      throw new Refused("bad_seconds", "seconds must be a number >= 0, got " + t.getSeconds());
    }
    if (t.getStreams() < 0 || t.getBytes() < 0 || t.getTcpBufferBytes() < 0) {
      throw new Refused("bad_count", "streams, bytes and tcp_buffer_bytes must fit in 63 bits");
    }
    return new Transfer(
        t.getSrcHost(),
        t.getDstHost(),
        t.getTool(),
        t.getStreams(),
        t.getBytes(),
        t.getSeconds(),
        t.getStartMs(),
        t.getEndMs(),
        t.getTcpBufferBytes());
  }

  public static KafkaRecordDeserializationSchema<Either<KeyedBytes, HostSample>> hostSamples() {
    return Decoders.of(
        STAGE,
        HostSample.class,
        (v, at) -> Optional.of(hostSample(net.cheetah.schemas.v1.HostSample.parseFrom(v))));
  }

  /**
   * A transfers.hosts.v1 record as the PRCA takes it (a percentage not sampled is NaN), or why no
   * host reports such a sample.
   */
  public static HostSample hostSample(net.cheetah.schemas.v1.HostSample s) throws Refused {
    if (s.getHost().isBlank()) {
      throw new Refused("missing_host", "host must be set");
    }
    if (WHITESPACE.matcher(s.getHost()).find()) {
      throw new Refused("bad_host", "a host name holds no white space: '" + s.getHost() + "'");
    }
    if (s.getTimeMs() < 0) {
      throw new Refused("bad_time", "time_ms must fit in 63 bits");
    }
    double[] use = {
      s.hasCpuPercent() ? s.getCpuPercent() : Double.NaN,
      s.hasDiskPercent() ? s.getDiskPercent() : Double.NaN,
      s.hasNicPercent() ? s.getNicPercent() : Double.NaN
    };
    String[] names = {"cpu_percent", "disk_percent", "nic_percent"};
    for (int k = 0; k < 3; k++) {
      boolean present =
          k == 0 ? s.hasCpuPercent() : k == 1 ? s.hasDiskPercent() : s.hasNicPercent();
      if (present && !(use[k] >= 0 && use[k] < Double.POSITIVE_INFINITY)) {
        throw new Refused("bad_percent", names[k] + " must be a number >= 0, got " + use[k]);
      }
    }
    if (!(s.getNicBps() >= 0) || Double.isInfinite(s.getNicBps())) {
      throw new Refused("bad_nic_bps", "nic_bps must be a number >= 0, got " + s.getNicBps());
    }
    return new HostSample(s.getHost(), s.getTimeMs(), use[0], use[1], use[2], s.getNicBps());
  }
}
