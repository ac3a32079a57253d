package net.cheetah.jobs.fabric;

import java.util.Optional;
import net.cheetah.core.flow.Address;
import net.cheetah.fabric.Fabric;
import net.cheetah.fabric.FabricFlow;
import net.cheetah.fabric.FabricRounds;
import net.cheetah.fabric.Link;
import net.cheetah.fabric.Port;
import net.cheetah.fabric.SflowPlacement;
import net.cheetah.fabric.SflowPortMap;
import net.cheetah.jobs.codec.Codec;
import net.cheetah.jobs.codec.Decoders;
import net.cheetah.jobs.codec.RecordChecks;
import net.cheetah.jobs.flink.KeyedBytes;
import net.cheetah.schemas.v1.FlowRecord;
import net.cheetah.schemas.v1.SnmpCounters;
import org.apache.flink.connector.kafka.source.reader.deserializer.KafkaRecordDeserializationSchema;
import org.apache.flink.types.Either;

/**
 * Readers of the fabric job's two topics (docs/FABRIC.md, "The job"). Records of other exporters
 * and links are valid records for other jobs: ignored (counted as recordsIgnored), not rejected.
 * What the checks of every reader refuse goes to flows.rejected.v1 with the stage {@link #STAGE}.
 */
public final class FabricInputs {
  public static final String STAGE = "fabric";

  private FabricInputs() {}

  /**
   * flows.v1: the flows whose exporter is an sFlow agent of the map, placed on the links they
   * measure ({@link SflowPlacement}; normalize has already scaled their bytes by the sampling
   * rate). A sample on no link of the fabric (a bridge's own port) is ignored.
   */
  public static KafkaRecordDeserializationSchema<Either<KeyedBytes, FabricInput>> samples(
      Fabric fabric, SflowPortMap map) {
    return Decoders.of(
        STAGE,
        FabricInput.class,
        (v, at) -> {
          FlowRecord r = FlowRecord.parseFrom(v);
          RecordChecks.flow(r, at);
          return sample(fabric, map, r).map(FabricInput::of);
        });
  }

  /** The placed sample of a flows.v1 record, or empty when it is not on the fabric. */
  static Optional<FabricRounds.Sample> sample(Fabric fabric, SflowPortMap map, FlowRecord r) {
    String agent = Codec.addr(r.getExporter()).toString();
    if (!map.hasAgent(agent)) {
      return Optional.empty();
    }
    SflowPlacement.Placement p =
        SflowPlacement.place(
            fabric,
            map,
            agent,
            Integer.toUnsignedLong(r.getInIf()),
            Integer.toUnsignedLong(r.getOutIf()),
            r.getBytes(),
            1); // normalize scaled the bytes already
    if (!p.placed() || p.measured().isEmpty()) {
      return Optional.empty();
    }
    FabricFlow flow =
        new FabricFlow(
            Address.fromBytes(r.getSrcAddr().toByteArray()),
            Address.fromBytes(r.getDstAddr().toByteArray()),
            r.getSrcPort(),
            r.getDstPort(),
            r.getProto());
    return Optional.of(
        new FabricRounds.Sample(
            Math.max(r.getStartMs(), r.getEndMs()),
            flow,
            p.measured().stream().map(Link::id).toList(),
            p.scaledBytes()));
  }

  /**
   * snmp.counters.v1: the counter samples of ports in the map (link_id {@code AGENT/IFINDEX}, as
   * the collector names an sFlow port), as samples of the link leaving the port.
   */
  public static KafkaRecordDeserializationSchema<Either<KeyedBytes, FabricInput>> counters(
      Fabric fabric, SflowPortMap map) {
    return Decoders.of(
        STAGE,
        FabricInput.class,
        (v, at) -> {
          SnmpCounters c = SnmpCounters.parseFrom(v);
          RecordChecks.snmp(c, at);
          return counter(fabric, map, c);
        });
  }

  static Optional<FabricInput> counter(Fabric fabric, SflowPortMap map, SnmpCounters c) {
    String id = c.getLinkId();
    int slash = id.lastIndexOf('/');
    if (slash <= 0) {
      return Optional.empty();
    }
    long ifIndex;
    try {
      ifIndex = Long.parseLong(id.substring(slash + 1));
    } catch (NumberFormatException e) {
      return Optional.empty();
    }
    Optional<Port> port = map.port(id.substring(0, slash), ifIndex);
    Optional<Link> link = port.flatMap(fabric::linkFrom);
    return link.map(
        l ->
            FabricInput.counter(
                l.id(),
                c.getPolledMs(),
                c.getIfHcOutOctets(),
                c.getIfHighSpeedMbps() * 1e6,
                c.getCountersReset()));
  }
}
