package monotonic

import "testing"

type step struct {
	raw           uint64
	width         uint
	discontinuous bool
	wantDelta     uint64
	wantEvent     Event
	wantTotal     uint64
}

func runSteps(t *testing.T, steps []step) {
	t.Helper()
	var c Counter
	for i, s := range steps {
		d, ev := c.Observe(s.raw, s.width, s.discontinuous)
		if d != s.wantDelta || ev != s.wantEvent || c.Total() != s.wantTotal {
			t.Fatalf("step %d: Observe(%d, %d, %v) = delta %d, %v, total %d; want delta %d, %v, total %d",
				i, s.raw, s.width, s.discontinuous, d, ev, c.Total(), s.wantDelta, s.wantEvent, s.wantTotal)
		}
	}
}

func TestCounterAdvances(t *testing.T) {
	runSteps(t, []step{
		{raw: 1000, width: 64, wantDelta: 0, wantEvent: First, wantTotal: 1000},
		{raw: 1500, width: 64, wantDelta: 500, wantEvent: Advanced, wantTotal: 1500},
		{raw: 1500, width: 64, wantDelta: 0, wantEvent: Advanced, wantTotal: 1500},
		{raw: 9000, width: 64, wantDelta: 7500, wantEvent: Advanced, wantTotal: 9000},
	})
}

// Counter32 ifOutDiscards wrapping: 4294967000 -> 200 is 296 to reach 2^32
// (4294967296 - 4294967000) plus 200 after it = 496.
func TestCounter32Wrap(t *testing.T) {
	runSteps(t, []step{
		{raw: 4294967000, width: 32, wantEvent: First, wantTotal: 4294967000},
		{raw: 200, width: 32, wantDelta: 496, wantEvent: Wrapped, wantTotal: 4294967496},
		{raw: 1200, width: 32, wantDelta: 1000, wantEvent: Advanced, wantTotal: 4294968496},
		// a second wrap: 1200 -> 2000001200 -> 4000001200 -> 4294967295
		// (advances of 2e9, 2e9, 294966095, each under 2^31), then -> 4
		// (1 to 2^32, 4 after) = 5.
		{raw: 2000001200, width: 32, wantDelta: 2000000000, wantEvent: Advanced, wantTotal: 6294968496},
		{raw: 4000001200, width: 32, wantDelta: 2000000000, wantEvent: Advanced, wantTotal: 8294968496},
		{raw: 4294967295, width: 32, wantDelta: 294966095, wantEvent: Advanced, wantTotal: 8589934591},
		{raw: 4, width: 32, wantDelta: 5, wantEvent: Wrapped, wantTotal: 8589934596},
	})
}

// The largest decrease still read as a wrap is 2^31 - 1 of modular distance;
// 2^31 exactly is a reset.
func TestCounter32WrapOrResetBoundary(t *testing.T) {
	runSteps(t, []step{
		{raw: 3000000000, width: 32, wantEvent: First, wantTotal: 3000000000},
		// 3e9 -> 852516351: (852516351 - 3e9) mod 2^32 = 2147483647 = 2^31 - 1
		{raw: 852516351, width: 32, wantDelta: 2147483647, wantEvent: Wrapped, wantTotal: 5147483647},
	})
	runSteps(t, []step{
		{raw: 3000000000, width: 32, wantEvent: First, wantTotal: 3000000000},
		// 3e9 -> 852516352: modular distance 2^31: a reset, nothing added
		{raw: 852516352, width: 32, wantDelta: 0, wantEvent: Reset, wantTotal: 3000000000},
		{raw: 852516852, width: 32, wantDelta: 500, wantEvent: Advanced, wantTotal: 3000000500},
	})
}

// Counter64 wrap "in theory": 2^64 - 10 -> 5 is 10 + 5 = 15.
func TestCounter64Wrap(t *testing.T) {
	max := ^uint64(0)
	runSteps(t, []step{
		{raw: max - 9, width: 64, wantEvent: First, wantTotal: max - 9},
		{raw: 5, width: 64, wantDelta: 15, wantEvent: Wrapped, wantTotal: 5}, // total wraps too: consumer subtracts mod 2^64
	})
}

// Counters cleared on a running agent (ifHCOutOctets 10^12 -> 300): a
// reset, not a wrap of ~2^64; nothing added, 300 is the new baseline.
func TestCounter64ResetIsNotAWrap(t *testing.T) {
	runSteps(t, []step{
		{raw: 1_000_000_000_000, width: 64, wantEvent: First, wantTotal: 1_000_000_000_000},
		{raw: 300, width: 64, wantDelta: 0, wantEvent: Reset, wantTotal: 1_000_000_000_000},
		{raw: 800, width: 64, wantDelta: 500, wantEvent: Advanced, wantTotal: 1_000_000_000_500},
	})
}

// An agent restart (decided by the caller from sysUpTime) adds nothing even
// if the raw value grew (net-snmp restarted while the kernel kept counting)
// or shrank (a router rebooted and cleared its counters).
func TestCounterRebaselineOnRestart(t *testing.T) {
	runSteps(t, []step{
		{raw: 5000, width: 64, wantEvent: First, wantTotal: 5000},
		{raw: 7000, width: 64, wantDelta: 2000, wantEvent: Advanced, wantTotal: 7000},
		{raw: 900000, width: 64, discontinuous: true, wantDelta: 0, wantEvent: Rebaselined, wantTotal: 7000},
		{raw: 900100, width: 64, wantDelta: 100, wantEvent: Advanced, wantTotal: 7100},
		{raw: 12, width: 64, discontinuous: true, wantDelta: 0, wantEvent: Rebaselined, wantTotal: 7100},
		{raw: 62, width: 64, wantDelta: 50, wantEvent: Advanced, wantTotal: 7150},
	})
}

// An agent that switches a counter's type (Counter32 <-> Counter64) is
// rebaselined: the two values are not comparable.
func TestCounterWidthChangeRebaselines(t *testing.T) {
	runSteps(t, []step{
		{raw: 100, width: 32, wantEvent: First, wantTotal: 100},
		{raw: 5_000_000_000, width: 64, wantDelta: 0, wantEvent: Rebaselined, wantTotal: 100},
		{raw: 5_000_000_010, width: 64, wantDelta: 10, wantEvent: Advanced, wantTotal: 110},
	})
}

// The consumer's view: sums of deltas of published totals over a window equal
// the true traffic, whatever wraps happened (restarts excepted).
func TestConsumerDeltasAcrossWraps(t *testing.T) {
	// true discards per interval, starting from raw 4294967200 (Counter32):
	// a wrap at the second and at the last interval; each under 2^31 (a rise
	// of 2^31 or more in one interval is refused as implausible)
	perInterval := []uint64{50, 46, 100, 0, 2147483000, 2147483000, 1700}
	raw := uint64(4294967200)
	var c Counter
	c.Observe(raw, 32, false)
	prev := c.Total()
	var sum uint64
	for i, n := range perInterval {
		raw = (raw + n) % (1 << 32)
		c.Observe(raw, 32, false)
		got := c.Total() - prev
		prev = c.Total()
		if got != n {
			t.Fatalf("interval %d: consumer delta %d, true %d", i, got, n)
		}
		sum += got
	}
	if sum != 4294967896 {
		t.Fatalf("sum of deltas %d, want 4294967896", sum)
	}
}

// An agent answering -5 for a Counter64 sends 2^64 - 5: a rise of almost
// 2^64 since 1000 is refused (nothing added, not kept), and the next good
// value 1800 advances from 1000, not from the refused one.
func TestCounter64ImplausibleRiseIsRefused(t *testing.T) {
	max := ^uint64(0)
	runSteps(t, []step{
		{raw: 1000, width: 64, wantEvent: First, wantTotal: 1000},
		{raw: max - 4, width: 64, wantDelta: 0, wantEvent: Implausible, wantTotal: 1000},
		{raw: 1800, width: 64, wantDelta: 800, wantEvent: Advanced, wantTotal: 1800},
		// refused twice in a row, the second not confirming the first
		// (it is below it): both refused
		{raw: max - 4, width: 64, wantDelta: 0, wantEvent: Implausible, wantTotal: 1800},
		{raw: 1<<63 + 1800, width: 64, wantDelta: 0, wantEvent: Implausible, wantTotal: 1800},
		{raw: 2000, width: 64, wantDelta: 200, wantEvent: Advanced, wantTotal: 2000},
	})
}

// The boundary, Counter32 (-5 answered as Counter32 is 4294967291): from 100,
// a rise of 2^31 - 1 is traffic, 2^31 is refused.
func TestCounter32ImplausibleRiseBoundary(t *testing.T) {
	runSteps(t, []step{
		{raw: 100, width: 32, wantEvent: First, wantTotal: 100},
		{raw: 4294967291, width: 32, wantDelta: 0, wantEvent: Implausible, wantTotal: 100},
		// below the refused value: does not confirm it, refused too
		{raw: 100 + 1<<31, width: 32, wantDelta: 0, wantEvent: Implausible, wantTotal: 100},
		{raw: 110, width: 32, wantDelta: 10, wantEvent: Advanced, wantTotal: 110},
		{raw: 110 + 1<<31 - 1, width: 32, wantDelta: 1<<31 - 1, wantEvent: Advanced, wantTotal: 110 + 1<<31 - 1},
	})
}

// A jump that two readings in a row agree on (the second advances normally
// from the first) is real: a new baseline, nothing added for the jump.
func TestConfirmedJumpIsAReset(t *testing.T) {
	runSteps(t, []step{
		{raw: 100, width: 32, wantEvent: First, wantTotal: 100},
		{raw: 3_000_000_000, width: 32, wantDelta: 0, wantEvent: Implausible, wantTotal: 100},
		{raw: 3_000_000_050, width: 32, wantDelta: 0, wantEvent: Reset, wantTotal: 100},
		{raw: 3_000_000_080, width: 32, wantDelta: 30, wantEvent: Advanced, wantTotal: 130},
	})
}
