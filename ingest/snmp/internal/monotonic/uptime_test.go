package monotonic

import (
	"testing"
	"time"
)

// at returns a time with a monotonic reading, offset by d from a fixed base.
var base = time.Now()

func at(d time.Duration) time.Time { return base.Add(d) }

func TestUptimeAdvancingIsOK(t *testing.T) {
	var w UptimeWatch
	if v := w.Observe(100_000, at(0), at(20*time.Millisecond)); v != UptimeFirst {
		t.Fatalf("first sample: %v", v)
	}
	// 10 s later: +1000 ticks
	if v := w.Observe(101_000, at(10*time.Second), at(10*time.Second+20*time.Millisecond)); v != UptimeOK {
		t.Fatalf("+10 s: %v, want ok", v)
	}
}

// sysUpTime went backwards: 100000 ticks (1000 s) -> 300 ticks (3 s).
func TestUptimeBackwardsIsRestart(t *testing.T) {
	var w UptimeWatch
	w.Observe(100_000, at(0), at(0))
	if v := w.Observe(300, at(10*time.Second), at(10*time.Second)); v != UptimeRestarted {
		t.Fatalf("1000 s -> 3 s: %v, want restarted", v)
	}
	// and the restarted agent is then followed normally
	if v := w.Observe(1300, at(20*time.Second), at(20*time.Second)); v != UptimeOK {
		t.Fatalf("after restart: %v, want ok", v)
	}
}

// A restart inside a long interval: 60 s between polls, old uptime 5 s (500),
// the agent restarted and has run 40 s (4000 ticks): the value went up, but by
// 35 s in 60 s of wall time: a restart.
func TestUptimeRestartThatStillWentUp(t *testing.T) {
	var w UptimeWatch
	w.Observe(500, at(0), at(0))
	if v := w.Observe(4000, at(60*time.Second), at(60*time.Second)); v != UptimeRestarted {
		t.Fatalf("5 s -> 40 s over 60 s: %v, want restarted", v)
	}
}

// Slack: 1 s + 1 % of elapsed. Over 100 s the agent may lag by up to 2 s.
func TestUptimeSlackBoundary(t *testing.T) {
	var w UptimeWatch
	w.Observe(0, at(0), at(0))
	// advanced 98.00 s in 100 s: exactly at the slack, not a restart
	if v := w.Observe(9800, at(100*time.Second), at(100*time.Second)); v != UptimeOK {
		t.Fatalf("98 s in 100 s: %v, want ok", v)
	}
	// then 97.99 s in 100 s: below the slack, a restart
	if v := w.Observe(9800+9799, at(200*time.Second), at(200*time.Second)); v != UptimeRestarted {
		t.Fatalf("97.99 s in 100 s: %v, want restarted", v)
	}
}

// Response latency widens the window: request sent at 10 s, answered at 13 s
// (slow agent, retries). The previous sample was answered at 0.5 s, so at
// least 9.5 s elapsed; 9.0 s of uptime is within 1.095 s of slack.
func TestUptimeUsesSendAndReceiveTimes(t *testing.T) {
	var w UptimeWatch
	w.Observe(1000, at(0), at(500*time.Millisecond))
	if v := w.Observe(1900, at(10*time.Second), at(13*time.Second)); v != UptimeOK {
		t.Fatalf("9 s over [9.5 s, 13 s]: %v, want ok", v)
	}
}

// TimeTicks wrap after 2^32 ticks (~497 days): 4294967000 -> 704 over 10 s is
// 296 + 704 = 1000 ticks = 10 s: a wrap, not a restart.
func TestUptimeWrap(t *testing.T) {
	var w UptimeWatch
	w.Observe(4294967000, at(0), at(0))
	if v := w.Observe(704, at(10*time.Second), at(10*time.Second)); v != UptimeWrapped {
		t.Fatalf("4294967000 -> 704 over 10 s: %v, want wrapped", v)
	}
}

// Backwards but not near the top: 4000000000 -> 704 over 10 s would be a
// 294967296+704-tick (~34 day) advance: a restart.
func TestUptimeBackwardsFarFromTopIsRestart(t *testing.T) {
	var w UptimeWatch
	w.Observe(4000000000, at(0), at(0))
	if v := w.Observe(704, at(10*time.Second), at(10*time.Second)); v != UptimeRestarted {
		t.Fatalf("4000000000 -> 704 over 10 s: %v, want restarted", v)
	}
}

// Uptime advancing faster than our clock (this host was suspended) is not a
// restart.
func TestUptimeFasterThanWallClockIsOK(t *testing.T) {
	var w UptimeWatch
	w.Observe(1000, at(0), at(0))
	if v := w.Observe(1000+360000, at(10*time.Second), at(10*time.Second)); v != UptimeOK {
		t.Fatalf("1 h of uptime in 10 s: %v, want ok", v)
	}
}
