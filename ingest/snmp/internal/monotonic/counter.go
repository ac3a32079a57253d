// Package monotonic turns the raw, wrapping, resettable counters an SNMP agent
// returns into the monotonic 64-bit totals the poller publishes, so that a
// consumer's "current minus previous" is the traffic of the interval even
// across Counter32 wraps and agent restarts (docs/SNMP.md, "What the counters
// mean"). Pure logic: no SNMP, no Kafka, no clock.
package monotonic

// Event says how one observation was folded into the total.
type Event int

const (
	// First: the first value seen; the total starts at the raw value, so a
	// published total equals what the agent says until the first wrap or
	// discontinuity.
	First Event = iota
	// Advanced: raw >= previous raw; the difference was added.
	Advanced
	// Wrapped: the raw value decreased by less than half the counter's range,
	// read as one wrap at 2^width; the modular difference was added.
	Wrapped
	// Reset: the raw value decreased by more than half the range without the
	// agent restarting (the interface's counters were cleared or the interface
	// was re-created); nothing was added, the new raw value is the baseline.
	Reset
	// Rebaselined: the caller said the counter is discontinuous (agent restart,
	// ifCounterDiscontinuityTime changed, counter type changed); nothing was
	// added, the new raw value is the baseline.
	Rebaselined
	// Implausible: the raw value rose by half the counter's range or more
	// (2^31 for Counter32, 2^63 for Counter64) since the last accepted one,
	// more than one interval can count: the mirror of the wrap/reset rule
	// (e.g. an agent answering -5 for a Counter64, which is 2^64 - 5 on the
	// wire). Nothing was added and the value is not kept: the next one is
	// compared with the last accepted value, so one bad answer costs one
	// poll, not a bogus rate. A next value that confirms the jump (it
	// advances by less than half the range from the refused one) is taken
	// as a Reset: the counter really is up there now.
	Implausible
)

func (e Event) String() string {
	switch e {
	case First:
		return "first"
	case Advanced:
		return "advanced"
	case Wrapped:
		return "wrapped"
	case Reset:
		return "reset"
	case Rebaselined:
		return "rebaselined"
	case Implausible:
		return "implausible"
	}
	return "unknown"
}

// Counter extends one SNMP counter (Counter32 or Counter64) into a monotonic
// 64-bit total. The zero value has seen nothing yet.
type Counter struct {
	seen    bool
	width   uint // 32 or 64 bits: the width of the last raw value
	lastRaw uint64
	total   uint64
	// refused: the last observation was Implausible, with raw value refusedRaw
	refused    bool
	refusedRaw uint64
}

// Total is the published value: the first raw value plus every delta since.
// It never decreases during one poller run (modulo 2^64, which at 400 Gb/s
// takes over 11 years of octets).
func (c *Counter) Total() uint64 { return c.total }

// Last is the last raw value accepted (0 before the first).
func (c *Counter) Last() uint64 { return c.lastRaw }

// Seen reports whether any raw value was observed.
func (c *Counter) Seen() bool { return c.seen }

// Observe folds a raw value of the given width (32 or 64) into the total and
// returns what was added and how. discontinuous forces a new baseline: the
// interval since the previous observation is unknowable, so it adds 0 rather
// than a guess (a restarted agent may or may not have cleared its counters).
func (c *Counter) Observe(raw uint64, width uint, discontinuous bool) (delta uint64, ev Event) {
	if width != 32 && width != 64 {
		panic("monotonic: counter width must be 32 or 64")
	}
	half := uint64(1) << (width - 1)
	switch {
	case !c.seen:
		c.seen, c.total, ev = true, raw, First
	case discontinuous || width != c.width:
		ev = Rebaselined
	case raw >= c.lastRaw && raw-c.lastRaw < half:
		delta, ev = raw-c.lastRaw, Advanced
	case raw >= c.lastRaw:
		if !c.refused || raw < c.refusedRaw || raw-c.refusedRaw >= half {
			c.refused, c.refusedRaw = true, raw
			return 0, Implausible
		}
		ev = Reset // two readings agree on the jump
	default:
		// A decrease is a wrap if the wrapped distance is the shorter reading
		// (under half the range), else a reset: a counter that wrapped by more
		// than 2^(width-1) between two polls is not plausible (2^31 discards,
		// or 2^63 octets, in one interval).
		modular := modularDistance(c.lastRaw, raw, width)
		if modular < half {
			delta, ev = modular, Wrapped
		} else {
			ev = Reset
		}
	}
	c.width, c.lastRaw, c.refused = width, raw, false
	c.total += delta
	return delta, ev
}

// modularDistance is (to - from) mod 2^width.
func modularDistance(from, to uint64, width uint) uint64 {
	d := to - from // mod 2^64
	if width < 64 {
		d &= uint64(1)<<width - 1
	}
	return d
}
