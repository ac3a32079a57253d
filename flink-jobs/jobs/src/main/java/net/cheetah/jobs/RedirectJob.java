package net.cheetah.jobs;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Optional;
import net.cheetah.core.Topics;
import net.cheetah.core.redirect.CheetahSighting;
import net.cheetah.core.redirect.Decision;
import net.cheetah.core.redirect.RedirectSettings;
import net.cheetah.jobs.flink.KafkaIO;
import net.cheetah.jobs.flink.KeyedBytes;
import net.cheetah.jobs.redirects.DeviceSighting;
import net.cheetah.jobs.redirects.EncodedDecision;
import net.cheetah.jobs.redirects.RedirectCommands;
import net.cheetah.jobs.redirects.RedirectFunction;
import net.cheetah.jobs.redirects.RedirectKeys;
import net.cheetah.jobs.redirects.RedirectSinks;
import net.cheetah.jobs.redirects.Sightings;
import net.cheetah.schemas.v1.RedirectCommand;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.functions.RichFlatMapFunction;
import org.apache.flink.api.common.functions.RichMapFunction;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.metrics.Counter;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.util.Collector;

/**
 * Cheetah events → redirects.commands.v1 (signed, at least once) and redirects.decisions.v1 (every
 * decision: published, dry-run, refused): per-flow isolation and prefix filters from NetFlow α
 * flows, with guardrails (docs/REDIRECTS.md). The desired rules are checkpointed state.
 *
 * <p>The command path never waits for a checkpoint commit (docs/ARCHITECTURE.md, "Redirect
 * commands"): NetFlow cheetahs come from cheetahs.control.v1, which the cheetah job sends at once
 * beside its transactional cheetahs.v1, and the probe's cheetahs from cheetahs.v1 read uncommitted,
 * NetFlow ones skipped there (a read_committed consumer would hold them behind the cheetah job's
 * open transaction on their partition). Both inputs are at least once; the decisions ignore a
 * repeated event and command ids are hashes of the cause, so a repeat changes nothing.
 */
public final class RedirectJob implements StreamJob {
  public static final String NAME = "cheetah-redirects";

  /** Where the job reads its cheetahs. */
  public enum Input {
    /** NetFlow cheetahs from cheetahs.control.v1, the probe's from cheetahs.v1 uncommitted. */
    AT_ONCE,
    /**
     * Every cheetah from cheetahs.v1, committed records only: each waits for the checkpoint that
     * commits it (and the probe's for the cheetah job's transaction on their partition). The input
     * before the latency work of issue 13, kept as the baseline of `./cheetah bench latency`.
     */
    COMMITTED
  }

  private final Input input;

  public RedirectJob() {
    this(Input.AT_ONCE);
  }

  public RedirectJob(Input input) {
    this.input = input;
  }

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public void addTo(StreamExecutionEnvironment env, JobSettings s) {
    KafkaIO.Access bootstrap = s.kafka(NAME);
    RedirectSettings settings = s.config().redirects().settings();
    Path keysFile = s.redirectKeysFile();
    RedirectKeys.load(keysFile); // fail at submission, not in a task, if the keys are unusable
    String keys = keysFile.toAbsolutePath().toString();
    boolean atOnce = input == Input.AT_ONCE;
    KafkaIO.Checked<CheetahSighting> cheetahs =
        KafkaIO.checked(
            env,
            bootstrap,
            Topics.CHEETAHS,
            NAME,
            Sightings.reader(atOnce),
            Optional.empty(),
            "cheetahs-source",
            atOnce ? KafkaIO.Isolation.ALL : KafkaIO.Isolation.COMMITTED);
    DataStream<KeyedBytes> rejected = cheetahs.rejected();
    DataStream<DeviceSighting> routed = route(cheetahs.values(), settings, "route", atOnce);
    if (atOnce) {
      KafkaIO.Checked<CheetahSighting> control =
          KafkaIO.checked(
              env,
              bootstrap,
              Topics.CHEETAHS_CONTROL,
              NAME,
              Sightings.reader(),
              Optional.empty(),
              "control-source");
      rejected = rejected.union(control.rejected());
      routed = routed.union(route(control.values(), settings, "route-control", true));
    }
    rejected
        .sinkTo(KafkaIO.rejectedSink(bootstrap, NAME))
        .name(Topics.REJECTED)
        .uid("rejected-sink");
    DataStream<EncodedDecision> decisions =
        routed
            .keyBy(DeviceSighting::device)
            .process(new RedirectFunction(settings))
            .returns(TypeInformation.of(Decision.class))
            .name("decide (guardrails)")
            .uid("decide")
            .map(new Encode(settings, keys))
            .returns(TypeInformation.of(EncodedDecision.class))
            .name("encode and sign")
            .uid("encode");
    RedirectSinks.publish(decisions, bootstrap);
  }

  /**
   * Sightings keyed for their device's decider. With {@code atOnce}, each is sent on at once
   * (buffer timeout 0): they are few, and Flink would otherwise hold them in a network buffer for
   * up to execution.buffer-timeout (100 ms) before the keyed exchange.
   */
  private static DataStream<DeviceSighting> route(
      DataStream<CheetahSighting> sightings,
      RedirectSettings settings,
      String uid,
      boolean atOnce) {
    SingleOutputStreamOperator<DeviceSighting> routed =
        sightings
            .flatMap(new ToDevice(settings))
            .returns(TypeInformation.of(DeviceSighting.class))
            .name(uid.equals("route") ? "route to devices" : "route to devices (NetFlow)")
            .uid(uid);
    return atOnce ? routed.setBufferTimeout(0) : routed;
  }

  /** Drops (and counts) sightings on links no device acts for. */
  static final class ToDevice extends RichFlatMapFunction<CheetahSighting, DeviceSighting> {
    private final RedirectSettings settings;
    private transient Counter unmonitored;

    ToDevice(RedirectSettings settings) {
      this.settings = settings;
    }

    @Override
    public void open(OpenContext context) {
      unmonitored = getRuntimeContext().getMetricGroup().counter("unmonitoredCheetahEvents");
    }

    @Override
    public void flatMap(CheetahSighting s, Collector<DeviceSighting> out) {
      settings
          .deviceFor(s.link())
          .ifPresentOrElse(d -> out.collect(new DeviceSighting(d, s)), unmonitored::inc);
    }
  }

  /**
   * Encodes a decision; published ones are signed, and the same signed bytes go to both topics. The
   * keys file is watched: a rotation (a new active key) signs from the next command on, without a
   * restart (docs/REDIRECTS.md, "Key rotation").
   */
  static final class Encode extends RichMapFunction<Decision, EncodedDecision> {
    private final RedirectSettings settings;
    private final String keysFile;
    private transient RedirectKeys.Watched keys;

    Encode(RedirectSettings settings, String keysFile) {
      this.settings = settings;
      this.keysFile = keysFile;
    }

    @Override
    public void open(OpenContext context) {
      keys = RedirectKeys.Watched.of(Path.of(keysFile));
    }

    @Override
    public EncodedDecision map(Decision d) {
      RedirectCommand c = RedirectCommands.of(d, settings, System.currentTimeMillis());
      byte[] device = d.rule().deviceId().getBytes(StandardCharsets.UTF_8);
      if (!RedirectCommands.published(d, settings)) {
        return new EncodedDecision(device, c.toByteArray(), new byte[0]);
      }
      byte[] signed = keys.current().sign(c).toByteArray();
      return new EncodedDecision(device, signed, signed);
    }
  }
}
