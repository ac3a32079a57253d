package net.cheetah.jobs.flink;

import java.io.Serializable;
import java.util.concurrent.atomic.AtomicLong;
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
 * idle at once), unless given apart (detection.first-record-hold-ms). The hold runs from the
 * generator's start, and again from each first record of another split of the same reader ({@link
 * FirstRecords}): a job started long before its input marks every split idle, and when the input
 * comes (a transaction fills every partition at once) the splits read later are held for again
 * until their own first records, instead of letting the split read first drive event time alone.
 */
public final class IdleAdvancingWatermarks<T> implements WatermarkGenerator<T> {
  private final long outOfOrdernessMs;
  private final long idleMs;
  private final long firstRecordHoldMs;
  private final LongSupplier clock;
  private long maxTs = Long.MIN_VALUE + 1;
  private long lastEventWallMs;
  private final long startWallMs;
  private final FirstRecords firstRecords;
  private boolean idle;

  /**
   * When a split of one source reader last had its first record: shared by the generators the
   * reader creates for its splits (one instance per deserialised strategy, so per subtask).
   */
  public static final class FirstRecords implements Serializable {
    private static final long serialVersionUID = 1L;
    private transient AtomicLong latestWallMs;

    synchronized AtomicLong latest() {
      if (latestWallMs == null) {
        latestWallMs = new AtomicLong(Long.MIN_VALUE);
      }
      return latestWallMs;
    }
  }

  public IdleAdvancingWatermarks(
      long outOfOrdernessMs, long idleMs, long firstRecordHoldMs, FirstRecords firstRecords) {
    this(outOfOrdernessMs, idleMs, firstRecordHoldMs, firstRecords, System::currentTimeMillis);
  }

  /** With the hold of a split without records being {@code idleMs} (or the bound, when 0). */
  public IdleAdvancingWatermarks(long outOfOrdernessMs, long idleMs, LongSupplier clock) {
    this(outOfOrdernessMs, idleMs, idleMs > 0 ? idleMs : outOfOrdernessMs, clock);
  }

  /** With the wall clock given (tests), and no other split. */
  public IdleAdvancingWatermarks(
      long outOfOrdernessMs, long idleMs, long firstRecordHoldMs, LongSupplier clock) {
    this(outOfOrdernessMs, idleMs, firstRecordHoldMs, new FirstRecords(), clock);
  }

  /** With the splits' shared first records and the wall clock given (tests). */
  public IdleAdvancingWatermarks(
      long outOfOrdernessMs,
      long idleMs,
      long firstRecordHoldMs,
      FirstRecords firstRecords,
      LongSupplier clock) {
    this.outOfOrdernessMs = outOfOrdernessMs;
    this.idleMs = idleMs;
    this.firstRecordHoldMs = firstRecordHoldMs;
    this.firstRecords = firstRecords;
    this.clock = clock;
    this.startWallMs = clock.getAsLong();
    this.lastEventWallMs = startWallMs;
  }

  @Override
  public void onEvent(T event, long ts, WatermarkOutput out) {
    long now = clock.getAsLong();
    if (maxTs == Long.MIN_VALUE + 1) {
      firstRecords.latest().accumulateAndGet(now, Math::max);
    }
    maxTs = Math.max(maxTs, ts);
    lastEventWallMs = now;
  }

  @Override
  public void onPeriodicEmit(WatermarkOutput out) {
    long now = clock.getAsLong();
    long silentMs = now - lastEventWallMs;
    if (maxTs == Long.MIN_VALUE + 1) {
      long heldSince = Math.max(startWallMs, firstRecords.latest().get());
      if (now - heldSince > firstRecordHoldMs) {
        out.markIdle();
        idle = true;
      } else if (idle) {
        // Another split has just had its first record: hold event time again (the lowest
        // watermark makes this split active again without moving anything).
        out.emitWatermark(new Watermark(Long.MIN_VALUE));
        idle = false;
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
