package net.cheetah.jobs.thresholds;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import net.cheetah.config.CheetahConfig;
import net.cheetah.simulator.CongestionControl;
import net.cheetah.simulator.LossTableBuilder;
import net.cheetah.simulator.PointRunner;
import net.cheetah.simulator.PortConfig;
import net.cheetah.simulator.TcpCheetah;
import net.cheetah.threshold.BackgroundTag;
import net.cheetah.threshold.LossTable;
import org.apache.flink.api.common.serialization.SerializerConfigImpl;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.streaming.api.datastream.AsyncDataStream;
import org.apache.flink.streaming.api.operators.async.AsyncWaitOperatorFactory;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.OneInputStreamOperatorTestHarness;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The async operator that simulates loss tables, with the real simulator on a tiny plan: the table
 * is the one LossTableBuilder gives for a plan written out here by hand; a request in flight at a
 * checkpoint is simulated again after the restore; failures and timeouts become failed tables.
 */
class LossTableBuildsTest {
  private static final TableRequest REQUEST = new TableRequest("esnet-a", 200e6, 0.5, 1e9, 1_000);
  private OneInputStreamOperatorTestHarness<TableRequest, BuiltTable> h;

  private static OneInputStreamOperatorTestHarness<TableRequest, BuiltTable> harness(
      CheetahConfig.Table cfg) throws Exception {
    return new OneInputStreamOperatorTestHarness<>(
        new AsyncWaitOperatorFactory<>(
            new LossTableBuilds(cfg), cfg.timeoutMs(), 10, AsyncDataStream.OutputMode.UNORDERED),
        TypeInformation.of(TableRequest.class).createSerializer(new SerializerConfigImpl()));
  }

  @AfterEach
  void close() throws Exception {
    h.close();
  }

  /** The tiny plan of ThresholdConfigs.table, on a 1 Gb/s port, spelled out independently. */
  private static LossTable expected(BackgroundTag tag) {
    try (PointRunner runner = new PointRunner(1)) {
      return new LossTableBuilder(
              new LossTableBuilder.Plan(
                  new PortConfig(1e9, 5_000_000, 5_000_000),
                  0.5,
                  0.1,
                  List.of(200e6, 500e6, 800e6),
                  TcpCheetah.study(0, 0.1, CongestionControl.HTCP),
                  2,
                  1,
                  2,
                  0.2,
                  0.1),
              runner)
          .build(tag);
    }
  }

  @Test
  void aRequestBecomesTheSimulatorsTableForItsTagAndPort() throws Exception {
    h = harness(ThresholdConfigs.table(7));
    h.open();
    h.processElement(new StreamRecord<>(REQUEST));
    h.endInput(); // waits for the build
    List<BuiltTable> out = h.extractOutputValues();
    assertThat(out).hasSize(1);
    BuiltTable t = out.get(0);
    assertThat(t.failed()).isFalse();
    assertThat(t.linkId()).isEqualTo("esnet-a");
    assertThat(t.capacityBps()).isEqualTo(1e9);
    assertThat(t.table()).isEqualTo(expected(REQUEST.tag()));
  }

  @Test
  void aRequestInFlightAtACheckpointIsSimulatedAgainAfterTheRestore() throws Exception {
    h = harness(ThresholdConfigs.table(7));
    h.open();
    h.processElement(new StreamRecord<>(REQUEST));
    // The result can only be emitted by the operator's own thread, which is busy snapshotting.
    OperatorSubtaskState snapshot = h.snapshot(1, 1);
    assertThat(h.extractOutputValues()).isEmpty();
    h.close();

    h = harness(ThresholdConfigs.table(7));
    h.setup();
    h.initializeState(snapshot);
    h.open(); // re-invokes the restored request
    h.endInput();
    List<BuiltTable> out = h.extractOutputValues();
    assertThat(out).hasSize(1);
    assertThat(out.get(0).table()).isEqualTo(expected(REQUEST.tag()));
  }

  @Test
  void aBuildThatFailsBecomesAFailedTableSayingWhy() throws Exception {
    h = harness(ThresholdConfigs.table(7));
    h.open();
    h.processElement(new StreamRecord<>(new TableRequest("esnet-a", 0, 0, 1e9, 1_000)));
    h.endInput();
    List<BuiltTable> out = h.extractOutputValues();
    assertThat(out).hasSize(1);
    assertThat(out.get(0).failed()).isTrue();
    assertThat(out.get(0).error()).contains("a table needs background above 0 bits/s");
  }

  @Test
  void aBuildOutlastingTheTimeoutIsGivenUp() throws Exception {
    // 18 rates of 20 s runs: seconds of work, against a 1 s timeout on the harness's clock.
    CheetahConfig.Table slow =
        new CheetahConfig.Table(
            20e6,
            0.05,
            100,
            java.util.Collections.nCopies(18, 0.5),
            1,
            20,
            1,
            1,
            1_000,
            7,
            5_000_000,
            100);
    h = harness(slow);
    h.open();
    h.processElement(new StreamRecord<>(REQUEST));
    h.setProcessingTime(1_001);
    h.endInput();
    List<BuiltTable> out = h.extractOutputValues();
    assertThat(out).hasSize(1);
    assertThat(out.get(0).failed()).isTrue();
    assertThat(out.get(0).error())
        .startsWith("gave up after 1000 ms (thresholds.table-timeout-ms)");
  }
}
