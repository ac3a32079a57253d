package net.cheetah.jobs.flink;

import java.util.function.LongSupplier;
import org.apache.flink.api.common.eventtime.Watermark;
import org.apache.flink.api.common.eventtime.WatermarkGenerator;
import org.apache.flink.api.common.eventtime.WatermarkOutput;

/**
 * Bounded out-of-orderness watermarks that keep moving when the input falls silent: after {@code
 * idleMs} of wall-clock silence, event time advances with the wall clock, so flows and flowsets of
 * a link that went quiet still end. {@code idleMs = 0} disables the advance. Use it without Flink's
 * withIdleness, which stops asking the generator once a split is idle.
 *
 * <p>A split that has never had a record holds event time back for a while before it is marked
 * idle: a backlog may be about to arrive on it (after a restart, or when a transaction commits
 * records to every partition at once), and marking it idle at once lets the split read first drive
 * event time alone, so the others' records come late and flows spanning them are cut. The hold is
 * {@code idleMs}, or the out-of-orderness bound when the advance is off (a hold of 0 would mark it
 * idle at once), unless given apart (detection.first-record-hold-ms): a hold shorter than the time
 * from a job's start to its first records has that effect too.
 */
public final class IdleAdvancingWatermarks<T> implements WatermarkGenerator<T> {
  private final long outOfOrdernessMs;
  private final long idleMs;
  private final long firstRecordHoldMs;
  private final LongSupplier clock;
  private long maxTs = Long.MIN_VALUE + 1;
  private long lastEventWallMs;

  public IdleAdvancingWatermarks(long outOfOrdernessMs, long idleMs, long firstRecordHoldMs) {
    this(outOfOrdernessMs, idleMs, firstRecordHoldMs, System::currentTimeMillis);
  }

  /** With the hold of a split without records being {@code idleMs} (or the bound, when 0). */
  public IdleAdvancingWatermarks(long outOfOrdernessMs, long idleMs, LongSupplier clock) {
    this(outOfOrdernessMs, idleMs, idleMs > 0 ? idleMs : outOfOrdernessMs, clock);
  }

  /** With the wall clock given (tests). */
  public IdleAdvancingWatermarks(
      long outOfOrdernessMs, long idleMs, long firstRecordHoldMs, LongSupplier clock) {
    this.outOfOrdernessMs = outOfOrdernessMs;
    this.idleMs = idleMs;
    this.firstRecordHoldMs = firstRecordHoldMs;
    this.clock = clock;
    this.lastEventWallMs = clock.getAsLong();
  }

  @Override
  public void onEvent(T event, long ts, WatermarkOutput out) {
    maxTs = Math.max(maxTs, ts);
    lastEventWallMs = clock.getAsLong();
  }

  @Override
  public void onPeriodicEmit(WatermarkOutput out) {
    long silentMs = clock.getAsLong() - lastEventWallMs;
    if (maxTs == Long.MIN_VALUE + 1) {
      if (silentMs > firstRecordHoldMs) {
        out.markIdle();
      }
      return;
    }
    long wm = maxTs - outOfOrdernessMs - 1;
    if (idleMs > 0 && silentMs > idleMs) {
      wm += silentMs - idleMs;
    }
    out.emitWatermark(new Watermark(wm));
  }
}
