package monotonic

import "time"

// uptimeRange is the span of sysUpTime (TimeTicks, 1/100 s, 32 bits): it
// wraps after about 497 days.
const uptimeRange = uint64(1) << 32

// UptimeVerdict is what a new sysUpTime sample says about the agent.
type UptimeVerdict int

const (
	// UptimeFirst: nothing to compare with yet.
	UptimeFirst UptimeVerdict = iota
	// UptimeOK: the agent kept running.
	UptimeOK
	// UptimeWrapped: sysUpTime wrapped past 2^32 ticks; the agent kept running.
	UptimeWrapped
	// UptimeRestarted: the agent restarted (or another agent answers): its
	// counters are discontinuous.
	UptimeRestarted
)

func (v UptimeVerdict) String() string {
	switch v {
	case UptimeFirst:
		return "first"
	case UptimeOK:
		return "ok"
	case UptimeWrapped:
		return "wrapped"
	case UptimeRestarted:
		return "restarted"
	}
	return "unknown"
}

// UptimeWatch detects agent restarts from sysUpTime. A sample is taken by the
// agent at some instant between the request's send and the response's
// receipt, so between two samples the agent ran at least (sent now − received
// before) of wall time. sysUpTime advancing by less than that, minus a slack
// for clock-rate differences, means the agent restarted in between. This also
// catches a restart whose new sysUpTime already exceeds the old one (a long
// poll interval), which "went backwards" alone would miss.
type UptimeWatch struct {
	seen         bool
	lastTicks    uint32
	lastSent     time.Time
	lastReceived time.Time
}

// slack tolerates clock-rate differences and TimeTicks resolution: 1 s plus
// 1 % of the elapsed time.
func slack(elapsed time.Duration) time.Duration {
	return time.Second + elapsed/100
}

// Observe takes sysUpTime (ticks of 10 ms) of a response whose request was
// sent at sent and answered at received (times with a monotonic reading).
func (w *UptimeWatch) Observe(ticks uint32, sent, received time.Time) UptimeVerdict {
	if !w.seen {
		w.remember(ticks, sent, received)
		return UptimeFirst
	}
	minElapsed := sent.Sub(w.lastReceived)
	maxElapsed := received.Sub(w.lastSent)
	advanced := ticksToDuration((uint64(ticks) - uint64(w.lastTicks)) % uptimeRange)
	wrapped := ticks < w.lastTicks
	w.remember(ticks, sent, received)

	if advanced < minElapsed-slack(minElapsed) {
		return UptimeRestarted
	}
	if wrapped {
		// Going backwards is a wrap only if the old value was close enough to
		// 2^32 ticks for the elapsed time to cross it; otherwise the modular
		// advance would be about 497 days.
		if advanced > maxElapsed+slack(maxElapsed) {
			return UptimeRestarted
		}
		return UptimeWrapped
	}
	// Advancing faster than the wall clock is not a restart: it happens when
	// this host was suspended (its monotonic clock stops, the agent's does not).
	return UptimeOK
}

func (w *UptimeWatch) remember(ticks uint32, sent, received time.Time) {
	w.seen, w.lastTicks, w.lastSent, w.lastReceived = true, ticks, sent, received
}

// Forget drops the last sample, e.g. after the target changed address.
func (w *UptimeWatch) Forget() { *w = UptimeWatch{} }

func ticksToDuration(ticks uint64) time.Duration {
	return time.Duration(ticks) * 10 * time.Millisecond
}
