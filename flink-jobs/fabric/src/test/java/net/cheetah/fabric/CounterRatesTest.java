package net.cheetah.fabric;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Link utilisation from successive counter samples; every expected rate is worked by hand. */
class CounterRatesTest {
  private static final String LINK = "leaf1:2>spine1:1";
  private static final double SPEED = 10e9;

  @Test
  void theRateIsOctetDeltaTimesEightOverTheInterval() {
    CounterRates r = new CounterRates();
    assertThat(r.update(LINK, 1000, 5400, 64, SPEED, false))
        .isEqualTo(new CounterRates.Rate(Optional.empty(), "first sample of the link"));
    // 1 250 000 octets in 1 s = 10 000 000 bit/s.
    assertThat(r.update(LINK, 2000, 5400 + 1_250_000, 64, SPEED, false).bps()).contains(10e6);
    // 500 000 octets in 2.5 s = 1 600 000 bit/s.
    assertThat(r.update(LINK, 4500, 5400 + 1_750_000, 64, SPEED, false).bps()).contains(1.6e6);
    // no traffic: 0 bit/s
    assertThat(r.update(LINK, 5500, 5400 + 1_750_000, 64, SPEED, false).bps()).contains(0.0);
    // links are independent
    assertThat(r.update("other", 5500, 7, 64, SPEED, false).bps()).isEmpty();
  }

  @Test
  void aResetStartsANewBaseline() {
    CounterRates r = new CounterRates();
    r.update(LINK, 1000, 1_000_000, 64, SPEED, false);
    assertThat(r.update(LINK, 2000, 300, 64, SPEED, true))
        .isEqualTo(new CounterRates.Rate(Optional.empty(), "counters reset"));
    // after it, from 300: 1300 octets in 1 s = 10 400 bit/s
    assertThat(r.update(LINK, 3000, 1600, 64, SPEED, false).bps()).contains(10400.0);
    // a 64-bit counter that goes down unannounced is a reset too
    assertThat(r.update(LINK, 4000, 100, 64, SPEED, false))
        .isEqualTo(new CounterRates.Rate(Optional.empty(), "counter went down: a reset"));
    assertThat(r.update(LINK, 5000, 225, 64, SPEED, false).bps()).contains(1000.0);
  }

  @Test
  void a32BitCounterWrapsWhenThatIsPlausible() {
    CounterRates r = new CounterRates();
    r.update(LINK, 1000, 4_294_967_000L, 32, 10e6, false);
    // wrap: 2^32 - 4 294 967 000 = 296 octets, plus 954 = 1250 octets in 1 s = 10 000 bit/s
    assertThat(r.update(LINK, 2000, 954, 32, 10e6, false).bps()).contains(10000.0);
    // down from 954 to 10: a wrap would be 2^32 - 944 octets in 1 s, about 34.4 Gbit/s, above the
    // 10 Mb/s port: a reset
    CounterRates.Rate reset = r.update(LINK, 3000, 10, 32, 10e6, false);
    assertThat(reset.bps()).isEmpty();
    assertThat(reset.reason()).startsWith("counter went down and a wrap would mean");
    assertThat(r.update(LINK, 3500, 1L << 32, 32, 10e6, false).reason())
        .isEqualTo("octets 4294967296 do not fit a 32-bit counter");
  }

  @Test
  void timeThatDoesNotAdvanceGivesNoRate() {
    CounterRates r = new CounterRates();
    r.update(LINK, 2000, 100, 64, SPEED, false);
    assertThat(r.update(LINK, 2000, 200, 64, SPEED, false).reason())
        .isEqualTo("time did not advance (2000 <= 2000)");
    assertThat(r.update(LINK, 1500, 200, 64, SPEED, false).bps()).isEmpty();
    // the baseline is still (2000, 100): 900 octets in 1 s
    assertThat(r.update(LINK, 3000, 1000, 64, SPEED, false).bps()).contains(7200.0);
  }
}
