package net.cheetah.analytics.throughput;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.ArrayList;
import java.util.List;
import net.cheetah.analytics.throughput.DiurnalFit.Fit;
import org.junit.jupiter.api.Test;

class DiurnalFitTest {
  private final DiurnalFit d = new DiurnalFit(0.2);

  /**
   * n points evenly over the day on |a|·sin(x + b) + c plus noise = amp·cos(h·x): with h ≠ 0, 1 and
   * n > 2h the noise is orthogonal to sin, cos and 1 over the points, so the least-squares fit is
   * the true (a, b, c) exactly and the residual sum of squares is amp²·n/2.
   */
  static List<double[]> points(int n, double a, double b, double c, double amp, int h) {
    List<double[]> p = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      double x = 2 * Math.PI * i / n;
      p.add(new double[] {x, a * Math.sin(x + b) + c + amp * Math.cos(h * x)});
    }
    return p;
  }

  @Test
  void recoversAKnownSinusoidAndItsErrors() {
    // a = 2, b = 1, c = 5, noise 0.5·√2·cos(3x) (so σ² = 0.25 per point), n = 24.
    // s² = RSS / (n - 3) = 0.25 x 24 / 21; JᵀJ = diag(n/2, a²·n/2, n) (cross terms sum to 0):
    // δb = sqrt(s² / (a² n / 2)) = sqrt(2 x 0.25 / (21 x 4)) = sqrt(0.5 / 84) = 0.077152;
    // δa = sqrt(2 x 0.25 / 21) = 0.154303; δc = sqrt(0.25 / 21) = 0.109109.
    Fit f = d.fit(points(24, 2, 1, 5, 0.5 * Math.sqrt(2), 3));
    assertThat(f.n()).isEqualTo(24);
    assertThat(f.a()).isCloseTo(2, within(1e-6));
    assertThat(f.b()).isCloseTo(1, within(1e-6));
    assertThat(f.c()).isCloseTo(5, within(1e-6));
    assertThat(f.db()).isCloseTo(Math.sqrt(0.5 / 84), within(1e-6));
    assertThat(f.da()).isCloseTo(Math.sqrt(0.5 / 21), within(1e-6));
    assertThat(f.dc()).isCloseTo(Math.sqrt(0.25 / 21), within(1e-6));
    assertThat(f.diurnal()).isTrue();
  }

  @Test
  void aPhaseFarFromTheStartAndLargerNumbers() {
    // b = 4 rad (the fit starts at π/2), a = 300e6, c = 600e6 bit/s, n = 48, noise 30e6·cos(5x):
    // δb = sqrt((30e6² x 48 / 2 / 45) / (300e6² x 48 / 2)) = sqrt(0.01 / 45) = 0.014907.
    Fit f = d.fit(points(48, 300e6, 4, 600e6, 30e6, 5));
    assertThat(f.a()).isCloseTo(300e6, within(1.0));
    assertThat(f.b()).isCloseTo(4, within(1e-6));
    assertThat(f.c()).isCloseTo(600e6, within(1.0));
    assertThat(f.db()).isCloseTo(Math.sqrt(0.01 / 45), within(1e-6));
    assertThat(f.diurnal()).isTrue();
  }

  @Test
  void noiseWithoutADailyCycleIsNotDiurnal() {
    // a = 0: only the 3rd harmonic, whose projection on the first is 0; b is then undetermined.
    Fit f = d.fit(points(24, 0, 0, 5, 1, 3));
    assertThat(f.diurnal()).isFalse();
  }

  @Test
  void aConstantSeriesIsNotDiurnal() {
    Fit f = d.fit(points(24, 0, 0, 5, 0, 3));
    assertThat(f.c()).isCloseTo(5, within(1e-9));
    assertThat(f.db()).isNaN();
    assertThat(f.diurnal()).isFalse();
  }

  @Test
  void fewerThanFourPointsAreNotFitted() {
    Fit f = d.fit(points(3, 2, 1, 5, 0, 3));
    assertThat(f.n()).isEqualTo(3);
    assertThat(f.a()).isNaN();
    assertThat(f.db()).isNaN();
    assertThat(f.diurnal()).isFalse();
  }

  @Test
  void timeOfDayAndWeekend() {
    // 1970-01-01 was a Thursday; 06:00 is a quarter of the day: π/2.
    assertThat(DiurnalFit.timeOfDay(6 * 3_600_000L)).isCloseTo(Math.PI / 2, within(1e-12));
    assertThat(DiurnalFit.weekend(0)).isFalse();
    assertThat(DiurnalFit.weekend(2 * 86_400_000L)).isTrue(); // Saturday
    assertThat(DiurnalFit.weekend(3 * 86_400_000L + 86_399_999L)).isTrue(); // Sunday 23:59:59.999
    assertThat(DiurnalFit.weekend(4 * 86_400_000L)).isFalse(); // Monday
  }

  @Test
  void weekdaysAndWeekendsAreFittedApart() {
    // Weekdays (Mon 1970-01-05 ..): a = 2, b = 1, c = 5; the weekend (Sat 01-03): a flat 9.
    List<Forecasts.Observation> obs = new ArrayList<>();
    for (double[] p : points(24, 2, 1, 5, 0, 3)) {
      obs.add(
          new Forecasts.Observation(
              4 * 86_400_000L + (long) Math.round(p[0] / (2 * Math.PI) * 86_400_000L), p[1]));
    }
    for (int i = 0; i < 8; i++) {
      obs.add(new Forecasts.Observation(2 * 86_400_000L + i * 3 * 3_600_000L, 9));
    }
    DiurnalFit.WeekFits w = d.fitWeek(obs);
    assertThat(w.weekday().n()).isEqualTo(24);
    assertThat(w.weekday().a()).isCloseTo(2, within(1e-6));
    assertThat(w.weekend().n()).isEqualTo(8);
    assertThat(w.weekend().c()).isCloseTo(9, within(1e-9));
    assertThat(w.weekend().diurnal()).isFalse();
  }
}
