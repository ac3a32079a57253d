package poller

import (
	"fmt"

	"cheetah/ingest/snmp/gen/cheetahv1"
	"cheetah/ingest/snmp/internal/agent"
	"cheetah/ingest/snmp/internal/config"
	"cheetah/ingest/snmp/internal/monotonic"
)

// published counters, in SnmpCounters order
var counterObjects = [...]agent.Object{agent.HCOutOctets, agent.HCOutUcastPkts, agent.OutDiscards}

// link is the state kept for one configured link between polls.
type link struct {
	cfg     config.Link
	ifIndex uint32 // 0 until resolved (if_name links)
	// indexChanged: the name now resolves to another ifIndex; the next
	// values belong to another interface and must be rebaselined.
	indexChanged bool

	counters [len(counterObjects)]monotonic.Counter
	// rebaselinePending: a discontinuity came while this counter was
	// missing; its next value is a new baseline, not an increase.
	rebaselinePending [len(counterObjects)]bool
	// newBaseline: some counter started a new baseline (first value,
	// restart, discontinuity, reset, type change) in the last fold or in a
	// fold since the last published message; published as counters_reset.
	newBaseline bool
	// unpublished: the last fold was incomplete (no message), so its
	// newBaseline carries over to the next message.
	unpublished bool
	// ifHighSpeed is a gauge: published as last read.
	highSpeed uint64
	// last ifCounterDiscontinuityTime (TimeTicks), when the agent has it
	discontinuity     uint64
	discontinuitySeen bool

	missing    [len(agent.Objects)]streak
	unresolved streak
}

// fold applies one interface reading to the link's totals. restarted is the
// target's verdict for this poll. It returns whether every counter had a
// usable value: only then is the link published, so that every message's
// three totals are the agent's values at polled_ms and a consumer's rate
// between two messages is true for each counter (a total held back while
// another moved would read as a wrong discard rate). The counters that had a
// value are folded in all the same; their increase shows in the next message.
// ev gets the events worth counting.
func (l *link) fold(iface *agent.Interface, restarted bool, ev *foldEvents) (complete bool) {
	disc := restarted || l.indexChanged
	if v := iface.Values[agent.CounterDiscontinuityTime]; v.Missing == "" {
		if l.discontinuitySeen && v.Raw != l.discontinuity && !restarted {
			disc = true
			ev.discontinuity = true
		}
		l.discontinuity, l.discontinuitySeen = v.Raw, true
	}
	if l.indexChanged {
		ev.discontinuity = true
		l.indexChanged = false
	}
	if !l.unpublished {
		l.newBaseline = false
	}
	complete = true
	for i, o := range counterObjects {
		v := iface.Values[o]
		if v.Missing != "" {
			l.rebaselinePending[i] = l.rebaselinePending[i] || disc
			complete = false
			continue
		}
		last := l.counters[i].Last()
		_, e := l.counters[i].Observe(v.Raw, v.Width, disc || l.rebaselinePending[i])
		if e == monotonic.Implausible {
			ev.implausible[i] = fmt.Sprintf("implausible value %d: %d above the last accepted %d, at least half the Counter%d range in one interval (a negative number sent as a counter?)",
				v.Raw, v.Raw-last, last, v.Width)
			complete = false
			continue
		}
		l.rebaselinePending[i] = false
		switch e {
		case monotonic.Wrapped:
			ev.wraps++
		case monotonic.Reset:
			ev.resets++
		}
		// anything but an increase: the difference with the previous
		// message is not this interval's traffic
		l.newBaseline = l.newBaseline || (e != monotonic.Advanced && e != monotonic.Wrapped)
	}
	if v := iface.Values[agent.HighSpeed]; v.Missing == "" {
		l.highSpeed = v.Raw
	}
	l.unpublished = !complete
	return complete
}

type foldEvents struct {
	wraps, resets uint64
	discontinuity bool
	// implausible: why a counter's value was refused (monotonic.Implausible),
	// by index in counterObjects; "" when it was not
	implausible [len(counterObjects)]string
}

// message is the link's current state as published, after a fold that
// returned true. uptimeTicks is the agent's sysUpTime.0 of that reading (0
// when the agent did not give it).
func (l *link) message(device string, polledMs uint64, uptimeTicks uint32) *cheetahv1.SnmpCounters {
	return &cheetahv1.SnmpCounters{
		LinkId:           l.cfg.ID,
		Device:           device,
		IfIndex:          l.ifIndex,
		PolledMs:         polledMs,
		IfHcOutOctets:    l.counters[0].Total(),
		IfHcOutUcastPkts: l.counters[1].Total(),
		IfOutDiscards:    l.counters[2].Total(),
		IfHighSpeedMbps:  l.highSpeed,
		CountersReset:    l.newBaseline,
		SysUptimeTicks:   uptimeTicks,
	}
}
