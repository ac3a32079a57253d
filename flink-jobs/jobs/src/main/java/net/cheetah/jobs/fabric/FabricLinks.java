package net.cheetah.jobs.fabric;

import java.nio.charset.StandardCharsets;
import net.cheetah.fabric.FabricFlow;
import net.cheetah.fabric.FabricRounds;
import net.cheetah.jobs.flink.KeyedBytes;
import net.cheetah.schemas.v1.FabricLinkState;

/** A link as a round saw it, as its fabric.links.v1 record (keyed by link id). */
public final class FabricLinks {
  private FabricLinks() {}

  public static KeyedBytes record(String fabric, FabricRounds.LinkRound l) {
    return new KeyedBytes(
        l.link().id().getBytes(StandardCharsets.UTF_8), toProto(fabric, l).toByteArray());
  }

  public static FabricLinkState toProto(String fabric, FabricRounds.LinkRound l) {
    FabricLinkState.Builder b =
        FabricLinkState.newBuilder()
            .setFabric(fabric)
            .setRoundMs(l.roundMs())
            .setLinkId(l.link().id())
            .setFromNode(l.link().from().node())
            .setFromPort(l.link().from().number())
            .setToNode(l.link().to().node())
            .setToPort(l.link().to().number())
            .setBetweenSwitches(l.betweenSwitches())
            .setCapacityBps(l.link().capacityBps())
            .setThresholdBps(l.thresholdBps())
            .setMeasured(l.measured())
            .setCounterBps(l.counterBps())
            .setUtilisationBps(l.utilisationBps())
            .setOverThreshold(l.overThreshold())
            .setFlows(l.flows())
            .setSampledBps(l.sampledBps())
            .setElephants(l.elephants())
            .setRerouteCommandId(l.rerouteCommandId())
            .setUnresolved(l.unresolved());
    FabricFlow top = l.top();
    if (top != null) {
      b.setTopSrc(com.google.protobuf.ByteString.copyFrom(top.src().toBytes16()))
          .setTopDst(com.google.protobuf.ByteString.copyFrom(top.dst().toBytes16()))
          .setTopSrcPort(top.srcPort())
          .setTopDstPort(top.dstPort())
          .setTopProto(top.proto())
          .setTopBps(l.topBps());
    }
    return b.build();
  }
}
