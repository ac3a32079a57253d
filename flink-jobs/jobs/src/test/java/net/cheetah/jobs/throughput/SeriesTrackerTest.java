package net.cheetah.jobs.throughput;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import net.cheetah.config.CheetahConfig;
import org.junit.jupiter.api.Test;

/**
 * The throughput job's series analyses one observation at a time, against values worked out by hand
 * (forecast window 3, EWMA weight 0.7, band 2 sd, step window 2).
 */
class SeriesTrackerTest {
  static final CheetahConfig.Throughput CFG =
      CheetahConfig.load(
              Optional.empty(),
              Map.of(
                  "throughput.forecast-window", "3",
                  "throughput.step-window", "2",
                  "throughput.history", "10"))
          .throughput();
  // Wednesday 2026-11-25 10:00 UTC, then every 10 minutes.
  static final long T0 = 1_795_600_800_000L;
  static final long SLOT = 600_000;

  private static List<SeriesTracker.Update> run(double... values) {
    SeriesTracker t = new SeriesTracker(CFG);
    SeriesState s = SeriesState.empty();
    List<SeriesTracker.Update> out = new ArrayList<>();
    for (int i = 0; i < values.length; i++) {
      SeriesTracker.Update u = t.observe(s, T0 + i * SLOT, values[i]);
      out.add(u);
      s = u.next();
    }
    return out;
  }

  @Test
  void forecastsBandAndTheStepAreTheHandWorkedOnes() {
    List<SeriesTracker.Update> u = run(2.0, 2.2, 1.8, 2.0, 0.5, 0.5, 0.5, 0.5);
    assertThat(u.get(0).forecast().ewma()).isNaN();
    assertThat(u.get(2).forecast().mean()).isNaN();
    // mean(2.0, 2.2, 1.8) = 2.0, sd 0.2; EWMA 0.7 (0.7 2.0 + 0.3 2.2) + 0.3 1.8 = 1.982.
    assertThat(u.get(3).forecast().mean()).isCloseTo(2.0, within(1e-12));
    assertThat(u.get(3).forecast().sd()).isCloseTo(0.2, within(1e-12));
    assertThat(u.get(3).forecast().ewma()).isCloseTo(1.982, within(1e-12));
    // 0.5 against 2.0 ± 2·0.2: outside; then inside (sd 0.81, 0.87; then 0 off a band of 0).
    assertThat(u.stream().map(x -> x.forecast().outsideBand()).toList())
        .containsExactly(false, false, false, false, true, false, false, false);
    // The step at observation 4 (before 1.9, after 0.5, t = 1.4 / 0.1 = 14), decided at 6.
    for (int i = 0; i < u.size(); i++) {
      assertThat(u.get(i).step().isPresent()).as("a step decided at %d", i).isEqualTo(i == 6);
    }
    SeriesTracker.Step st = u.get(6).step().orElseThrow();
    assertThat(st.ms()).isEqualTo(T0 + 4 * SLOT);
    assertThat(st.lastBeforeMs()).isEqualTo(T0 + 3 * SLOT);
    assertThat(st.before()).isCloseTo(1.9, within(1e-12));
    assertThat(st.after()).isCloseTo(0.5, within(1e-12));
    assertThat(st.t()).isCloseTo(14, within(1e-9));
  }

  @Test
  void historyIsBoundedAndTheFitWaitsForFourPointsThenForTheNextHour() {
    double[] v = new double[25];
    for (int i = 0; i < v.length; i++) {
      v[i] = 1e9 + 1e8 * Math.sin(i);
    }
    List<SeriesTracker.Update> u = run(v);
    assertThat(u.get(24).next().size()).as("throughput.history").isEqualTo(10);
    assertThat(u.get(24).next().ms()[0]).isEqualTo(T0 + 15 * SLOT);
    assertThat(u.get(2).fit().c()).isNaN();
    assertThat(u.get(3).fit().n()).isEqualTo(4);
    // Observations 0-5 are 10:00-10:50: the fit of observation 3 stands until 11:00.
    assertThat(u.get(5).fit()).isEqualTo(u.get(3).fit());
    assertThat(u.get(6).fit().n()).isEqualTo(7);
  }
}
