// Package poller polls the configured links of one SNMP target per
// goroutine, turns raw agent values into monotonic totals
// (internal/monotonic) and hands one cheetah.v1.SnmpCounters per link per
// poll to a Sink. It counts everything that goes wrong and logs each kind of
// trouble once per streak, so a dead agent polled every 10 s does not flood
// the log.
package poller

import "sync/atomic"

// Stats are the poller's own counters (docs/SNMP.md, "Counters"), shared by
// every target.
type Stats struct {
	Polls           atomic.Uint64 // polls attempted (per target)
	PollsFailed     atomic.Uint64 // polls that produced nothing: timeout or error
	Timeouts        atomic.Uint64 // requests with no answer after every retry
	Errors          atomic.Uint64 // other request failures (auth, error-status, socket)
	Restarts        atomic.Uint64 // agent restarts seen in sysUpTime
	UptimeWraps     atomic.Uint64 // sysUpTime wraps (2^32 ticks) that were not restarts
	Wraps           atomic.Uint64 // counter wraps folded into a total
	CounterResets   atomic.Uint64 // counters that went back without a restart
	Discontinuities atomic.Uint64 // ifCounterDiscontinuityTime or ifIndex changes
	MissingValues   atomic.Uint64 // noSuchInstance/noSuchObject/wrong type, per value
	// ImplausibleValues: counter values refused because they rose by half
	// the counter's range or more in one interval (monotonic.Implausible)
	ImplausibleValues atomic.Uint64
	// SamplesSkipped: links the agent answered for but not published this
	// poll, because a counter was missing, of the wrong type or implausible
	SamplesSkipped  atomic.Uint64
	ResolveFailures atomic.Uint64 // links whose if_name could not be resolved
	Messages        atomic.Uint64 // messages handed to the sink
}

// Snapshot returns the counters by their documented names.
func (s *Stats) Snapshot() map[string]uint64 {
	return map[string]uint64{
		"polls":              s.Polls.Load(),
		"polls_failed":       s.PollsFailed.Load(),
		"timeouts":           s.Timeouts.Load(),
		"errors":             s.Errors.Load(),
		"restarts":           s.Restarts.Load(),
		"uptime_wraps":       s.UptimeWraps.Load(),
		"wraps":              s.Wraps.Load(),
		"counter_resets":     s.CounterResets.Load(),
		"discontinuities":    s.Discontinuities.Load(),
		"missing_values":     s.MissingValues.Load(),
		"implausible_values": s.ImplausibleValues.Load(),
		"samples_skipped":    s.SamplesSkipped.Load(),
		"resolve_failures":   s.ResolveFailures.Load(),
		"messages":           s.Messages.Load(),
	}
}
