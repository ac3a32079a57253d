package net.cheetah.jobs.flink;

import org.apache.flink.api.common.eventtime.Watermark;
import org.apache.flink.api.common.eventtime.WatermarkGenerator;
import org.apache.flink.api.common.eventtime.WatermarkOutput;

/**
 * Bounded out-of-orderness watermarks that keep moving when the input falls silent: after {@code
 * idleMs} of wall-clock silence, event time advances with the wall clock, so flows and flowsets of
 * a link that went quiet still end. {@code idleMs = 0} disables the advance. Use it without Flink's
 * withIdleness, which stops asking the generator once a split is idle.
 */
public final class IdleAdvancingWatermarks<T> implements WatermarkGenerator<T> {
  private final long outOfOrdernessMs;
  private final long idleMs;
  private long maxTs = Long.MIN_VALUE + 1;
  private long lastEventWallMs = System.currentTimeMillis();

  public IdleAdvancingWatermarks(long outOfOrdernessMs, long idleMs) {
    this.outOfOrdernessMs = outOfOrdernessMs;
    this.idleMs = idleMs;
  }

  @Override
  public void onEvent(T event, long ts, WatermarkOutput out) {
    maxTs = Math.max(maxTs, ts);
    lastEventWallMs = System.currentTimeMillis();
  }

  @Override
  public void onPeriodicEmit(WatermarkOutput out) {
    if (maxTs == Long.MIN_VALUE + 1) {
      // A partition that has never had a record holds event time back for the idle period (a
      // backlog may be about to arrive on it: marking it idle at once let the partition read
      // first drive event time alone, and the other's records came late), then stops holding.
      if (System.currentTimeMillis() - lastEventWallMs > idleMs) {
        out.markIdle();
      }
      return;
    }
    long wm = maxTs - outOfOrdernessMs - 1;
    long silentMs = System.currentTimeMillis() - lastEventWallMs;
    if (idleMs > 0 && silentMs > idleMs) {
      wm += silentMs - idleMs;
    }
    out.emitWatermark(new Watermark(wm));
  }
}
