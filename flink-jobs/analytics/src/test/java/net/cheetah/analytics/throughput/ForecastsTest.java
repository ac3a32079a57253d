package net.cheetah.analytics.throughput;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.ArrayList;
import java.util.List;
import net.cheetah.analytics.throughput.Forecasts.Forecast;
import net.cheetah.analytics.throughput.Forecasts.Observation;
import net.cheetah.analytics.throughput.Forecasts.Series;
import org.junit.jupiter.api.Test;

class ForecastsTest {
  private final Forecasts f = new Forecasts(5, 0.7, 2);

  static List<Observation> series(double... v) {
    List<Observation> o = new ArrayList<>();
    for (int i = 0; i < v.length; i++) {
      o.add(new Observation(i * 600_000L, v[i]));
    }
    return o;
  }

  @Test
  void meanOfTheLastFiveAndEwmaByHand() {
    Series s = f.run(series(10, 12, 14, 16, 18, 30));
    List<Forecast> r = s.rows();
    assertThat(r.subList(0, 5)).allMatch(x -> !x.hasMean() && !x.outsideBand());
    // Sixth: mean(10..18) = 14; deviations -4,-2,0,2,4 -> 40 / 4 = 10, sd = sqrt(10) = 3.1623;
    // band 14 ± 6.325: 30 is outside.
    assertThat(r.get(5).mean()).isCloseTo(14, within(1e-12));
    assertThat(r.get(5).sd()).isCloseTo(Math.sqrt(10), within(1e-12));
    assertThat(r.get(5).outsideBand()).isTrue();
    // EWMA: 10; 0.7x10 + 0.3x12 = 10.6; 7.42 + 4.2 = 11.62; 8.134 + 4.8 = 12.934;
    // 9.0538 + 5.4 = 14.4538 (the forecasts of observations 2..6).
    assertThat(r.get(0).ewma()).isNaN();
    assertThat(r.stream().skip(1).mapToDouble(Forecast::ewma).toArray())
        .containsExactly(new double[] {10, 10.6, 11.62, 12.934, 14.4538}, within(1e-9));
    // Errors: mean |14 - 30| / 30 = 0.53333; EWMA (2/12 + 3.4/14 + 4.38/16 + 5.066/18 + 15.5462/30)
    // / 5
    //  = (0.166667 + 0.242857 + 0.27375 + 0.281444 + 0.518207) / 5 = 0.296585.
    assertThat(s.meanError()).isCloseTo(16.0 / 30, within(1e-12));
    assertThat(s.ewmaError()).isCloseTo(0.296585, within(1e-6));
  }

  @Test
  void insideTheBandIsNoAlert() {
    // |15 - 14| = 1 < 2 x 3.1623.
    assertThat(f.run(series(10, 12, 14, 16, 18, 15)).rows().get(5).outsideBand()).isFalse();
  }

  @Test
  void fewerThanFiveObservationsGiveNoMeanForecast() {
    Series s = f.run(series(10, 12, 14, 16));
    assertThat(s.rows()).hasSize(4).noneMatch(Forecast::hasMean).noneMatch(Forecast::outsideBand);
    assertThat(s.meanError()).isNaN();
    // EWMA: 10 for 12 (2/12), 10.6 for 14 (3.4/14), 11.62 for 16 (4.38/16): mean 0.227758.
    assertThat(s.ewmaError()).isCloseTo((2.0 / 12 + 3.4 / 14 + 4.38 / 16) / 3, within(1e-12));
  }

  @Test
  void noObservationsNoRows() {
    Series s = f.run(List.of());
    assertThat(s.rows()).isEmpty();
    assertThat(s.meanError()).isNaN();
    assertThat(s.ewmaError()).isNaN();
  }

  @Test
  void aConstantHistoryAlertsOnAnyChange() {
    // sd 0: the band is the mean alone.
    List<Forecast> r = f.run(series(5, 5, 5, 5, 5, 5, 6)).rows();
    assertThat(r.get(5).outsideBand()).isFalse();
    assertThat(r.get(6).outsideBand()).isTrue();
  }
}
