package net.cheetah.jobs.fabric;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import net.cheetah.config.CheetahConfig;
import net.cheetah.core.redirect.RedirectSettings;
import net.cheetah.fabric.Fabric;
import net.cheetah.fabric.FabricRounds;
import net.cheetah.jobs.flink.KeyedBytes;
import net.cheetah.jobs.redirects.EncodedDecision;
import net.cheetah.jobs.redirects.RedirectKeys;
import net.cheetah.schemas.v1.RedirectCommand;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.metrics.Counter;
import org.apache.flink.runtime.state.FunctionInitializationContext;
import org.apache.flink.runtime.state.FunctionSnapshotContext;
import org.apache.flink.streaming.api.checkpoint.CheckpointedFunction;
import org.apache.flink.streaming.api.functions.ProcessFunction;
import org.apache.flink.util.Collector;
import org.apache.flink.util.OutputTag;

/**
 * The fabric's decisions at parallelism 1 (a fabric is one global decision: a move changes the
 * loads every other link's decision sees): {@link FabricRounds} with its memory checkpointed as
 * operator state, each decision encoded and, when published, signed with the redirect keys (the
 * same signed bytes go to redirects.decisions.v1 and redirects.commands.v1, as in the redirect
 * job). Every round's link states go to the side output {@link #LINKS}, as fabric.links.v1 records.
 */
public final class FabricFunction extends ProcessFunction<FabricInput, EncodedDecision>
    implements CheckpointedFunction {
  /** Each round's links (fabric.links.v1), encoded and keyed by link id. */
  public static final OutputTag<KeyedBytes> LINKS =
      new OutputTag<>("fabric-links", TypeInformation.of(KeyedBytes.class));

  private final Fabric fabric;
  private final CheetahConfig.Fabric settings;
  private final RedirectSettings guards;
  private final String keysFile;
  private transient FabricRounds rounds;
  private transient ListState<byte[]> saved;
  private transient RedirectKeys.Watched keys;
  private transient Counter published;
  private transient Counter refused;

  public FabricFunction(
      Fabric fabric, CheetahConfig.Fabric settings, RedirectSettings guards, String keysFile) {
    this.fabric = fabric;
    this.settings = settings;
    this.guards = guards;
    this.keysFile = keysFile;
  }

  @Override
  public void initializeState(FunctionInitializationContext context) throws Exception {
    saved =
        context
            .getOperatorStateStore()
            .getListState(
                new ListStateDescriptor<>("fabric-memory", TypeInformation.of(byte[].class)));
    FabricRounds.Memory memory = new FabricRounds.Memory();
    for (byte[] b : saved.get()) {
      try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(b))) {
        memory = (FabricRounds.Memory) in.readObject();
      }
    }
    rounds = new FabricRounds(fabric, settings, guards, fabric.name(), memory);
  }

  @Override
  public void snapshotState(FunctionSnapshotContext context) throws Exception {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
      out.writeObject(rounds.memory());
    }
    saved.update(List.of(bytes.toByteArray()));
  }

  @Override
  public void open(OpenContext context) {
    keys = RedirectKeys.Watched.of(Path.of(keysFile));
    published = getRuntimeContext().getMetricGroup().counter("reroutesPublished");
    refused = getRuntimeContext().getMetricGroup().counter("reroutesRefused");
    getRuntimeContext().getMetricGroup().gauge("lateFabricSamples", () -> rounds.memory().late());
    getRuntimeContext().getMetricGroup().gauge("fabricRounds", () -> rounds.memory().rounds());
  }

  @Override
  public void processElement(FabricInput in, Context ctx, Collector<EncodedDecision> out)
      throws IOException {
    List<FabricRounds.Round> closed =
        in.sample() != null
            ? rounds.onSample(in.sample())
            : rounds.onCounter(in.linkId(), in.atMs(), in.octets(), in.speedBps(), in.reset());
    for (FabricRounds.Round r : closed) {
      for (FabricRounds.Decision d : r.decisions()) {
        out.collect(encode(d));
      }
      for (FabricRounds.LinkRound l : r.links()) {
        ctx.output(LINKS, FabricLinks.record(fabric.name(), l));
      }
    }
  }

  private EncodedDecision encode(FabricRounds.Decision d) {
    RedirectCommand c = d.command();
    byte[] device = c.getDeviceId().getBytes(StandardCharsets.UTF_8);
    if (!d.published()) {
      if (!c.getRefusal().isEmpty()) {
        refused.inc();
      }
      return new EncodedDecision(device, c.toByteArray(), new byte[0]);
    }
    published.inc();
    byte[] signed = keys.current().sign(c).toByteArray();
    return new EncodedDecision(device, signed, signed);
  }
}
