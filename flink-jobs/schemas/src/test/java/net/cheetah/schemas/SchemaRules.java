package net.cheetah.schemas;

import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.EnumDescriptor;
import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.Descriptors.FileDescriptor;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import net.cheetah.schemas.v1.Alert;
import net.cheetah.schemas.v1.BackfillProgress;
import net.cheetah.schemas.v1.CheetahEvent;
import net.cheetah.schemas.v1.FabricLinkState;
import net.cheetah.schemas.v1.Flight;
import net.cheetah.schemas.v1.FlowRecord;
import net.cheetah.schemas.v1.Flowset;
import net.cheetah.schemas.v1.IncastGuardSample;
import net.cheetah.schemas.v1.LinkStats;
import net.cheetah.schemas.v1.RedirectCommand;
import net.cheetah.schemas.v1.SnmpCounters;
import net.cheetah.schemas.v1.Threshold;
import net.cheetah.schemas.v1.Transfer;

/** The cheetah.v1 files, and the flat "Message.field = number type label" form of them. */
final class SchemaRules {
  private SchemaRules() {}

  /** Every topic of schemas/topics.yaml and the message it carries. */
  static final Map<String, String> TOPICS =
      Map.ofEntries(
          Map.entry("flows.v1", "FlowRecord"),
          Map.entry("flows.rejected.v1", "RejectedRecord"),
          Map.entry("backfill.progress.v1", "BackfillProgress"),
          Map.entry("probe.flights.v1", "Flight"),
          Map.entry("probe.bins.v1", "LinkBin"),
          Map.entry("probe.packets.v1", "PacketSummary"),
          Map.entry("probe.counters.v1", "ProbeCounters"),
          Map.entry("snmp.counters.v1", "SnmpCounters"),
          Map.entry("transfers.v1", "Transfer"),
          Map.entry("transfers.hosts.v1", "HostSample"),
          Map.entry("cheetahs.v1", "CheetahEvent"),
          Map.entry("flowsets.v1", "Flowset"),
          Map.entry("links.stats.v1", "LinkStats"),
          Map.entry("thresholds.v1", "Threshold"),
          Map.entry("redirects.commands.v1", "RedirectCommand"),
          Map.entry("redirects.acks.v1", "RedirectAck"),
          Map.entry("incast.guard.v1", "IncastGuardSample"),
          Map.entry("throughput.v1", "Throughput"),
          Map.entry("alerts.v1", "Alert"),
          Map.entry("fabric.links.v1", "FabricLinkState"));

  static List<FileDescriptor> files() {
    return List.of(
        FlowRecord.getDescriptor().getFile(),
        CheetahEvent.getDescriptor().getFile(),
        Flowset.getDescriptor().getFile(),
        Flight.getDescriptor().getFile(),
        SnmpCounters.getDescriptor().getFile(),
        Transfer.getDescriptor().getFile(),
        LinkStats.getDescriptor().getFile(),
        Threshold.getDescriptor().getFile(),
        RedirectCommand.getDescriptor().getFile(),
        Alert.getDescriptor().getFile(),
        BackfillProgress.getDescriptor().getFile(),
        IncastGuardSample.getDescriptor().getFile(),
        FabricLinkState.getDescriptor().getFile());
  }

  static List<Descriptor> messages() {
    List<Descriptor> l = new ArrayList<>();
    files().forEach(f -> l.addAll(f.getMessageTypes()));
    return l;
  }

  static List<EnumDescriptor> enums() {
    List<EnumDescriptor> l = new ArrayList<>();
    files().forEach(f -> l.addAll(f.getEnumTypes()));
    messages().forEach(m -> l.addAll(m.getEnumTypes()));
    return l;
  }

  /** "Message.field" → "number type label", and "Enum.VALUE" → "number", sorted. */
  static Map<String, String> flatten() {
    Map<String, String> m = new TreeMap<>();
    for (Descriptor d : messages()) {
      for (FieldDescriptor f : d.getFields()) {
        String type =
            switch (f.getJavaType()) {
              case MESSAGE -> f.getMessageType().getFullName();
              case ENUM -> f.getEnumType().getFullName();
              default -> f.getType().name().toLowerCase();
            };
        m.put(
            d.getFullName() + "." + f.getName(),
            f.getNumber() + " " + type + (f.isRepeated() ? " repeated" : ""));
      }
    }
    for (EnumDescriptor e : enums()) {
      e.getValues()
          .forEach(
              v -> m.put(e.getFullName() + "." + v.getName(), Integer.toString(v.getNumber())));
    }
    return m;
  }
}
