package poller

import (
	"testing"

	"cheetah/ingest/snmp/internal/agent"
	"cheetah/ingest/snmp/internal/config"
)

// reading builds an agent answer for one interface: octets and packets as
// Counter64, discards as Counter32, speed, and ifCounterDiscontinuityTime
// (nil = the agent lacks it).
func reading(octets, pkts, discards, speed uint64, disc *uint64) *agent.Interface {
	i := &agent.Interface{Index: 7}
	i.Values[agent.HCOutOctets] = agent.Value{Raw: octets, Width: 64}
	i.Values[agent.HCOutUcastPkts] = agent.Value{Raw: pkts, Width: 64}
	i.Values[agent.OutDiscards] = agent.Value{Raw: discards, Width: 32}
	i.Values[agent.HighSpeed] = agent.Value{Raw: speed}
	if disc != nil {
		i.Values[agent.CounterDiscontinuityTime] = agent.Value{Raw: *disc}
	} else {
		i.Values[agent.CounterDiscontinuityTime] = agent.Value{Missing: "NoSuchInstance"}
	}
	return i
}

func totals(l *link) [3]uint64 {
	m := l.message("d", 0)
	return [3]uint64{m.GetIfHcOutOctets(), m.GetIfHcOutUcastPkts(), m.GetIfOutDiscards()}
}

// A link's totals through a discards wrap, a changed
// ifCounterDiscontinuityTime, an agent restart and a missing counter; each
// expected total computed by hand.
func TestLinkFold(t *testing.T) {
	l := &link{cfg: config.Link{ID: "x"}, ifIndex: 7}
	var d0, d1 uint64 = 0, 4500
	steps := []struct {
		name      string
		in        *agent.Interface
		restarted bool
		want      [3]uint64
		wraps     uint64
		disc      bool
	}{
		{"first: totals = raw", reading(1000, 10, 4294967290, 10000, &d0), false, [3]uint64{1000, 10, 4294967290}, 0, false},
		// discards 4294967290 -> 4: 6 to 2^32, 4 after = 10
		{"discards wrap", reading(3000, 30, 4, 10000, &d0), false, [3]uint64{3000, 30, 4294967300}, 1, false},
		// ifCounterDiscontinuityTime 0 -> 4500: counters cleared at 45 s; adds 0
		{"discontinuity time changed", reading(50, 1, 0, 10000, &d1), false, [3]uint64{3000, 30, 4294967300}, 0, true},
		{"after the discontinuity", reading(550, 6, 2, 10000, &d1), false, [3]uint64{3500, 35, 4294967302}, 0, false},
		// restart: raw values jump; adds 0 whatever they are
		{"agent restarted", reading(900000, 9000, 77, 10000, &d0), true, [3]uint64{3500, 35, 4294967302}, 0, false},
		{"after the restart", reading(900100, 9001, 80, 10000, &d0), false, [3]uint64{3600, 36, 4294967305}, 0, false},
	}
	for _, s := range steps {
		var ev foldEvents
		if !l.fold(s.in, s.restarted, &ev) {
			t.Fatalf("%s: fold reported no counter", s.name)
		}
		if got := totals(l); got != s.want || ev.wraps != s.wraps || ev.discontinuity != s.disc {
			t.Fatalf("%s: totals %v wraps %d discontinuity %v; want %v, %d, %v", s.name, got, ev.wraps, ev.discontinuity, s.want, s.wraps, s.disc)
		}
	}

	// discards missing: its total stays, the others move; the increase lands
	// when it returns (80 -> 95 = 15)
	in := reading(900200, 9002, 0, 10000, &d0)
	in.Values[agent.OutDiscards] = agent.Value{Missing: "NoSuchInstance"}
	var ev foldEvents
	l.fold(in, false, &ev)
	if got := totals(l); got != [3]uint64{3700, 37, 4294967305} {
		t.Fatalf("discards missing: totals %v", got)
	}
	l.fold(reading(900200, 9002, 95, 10000, &d0), false, &ev)
	if got := totals(l); got != [3]uint64{3700, 37, 4294967320} {
		t.Fatalf("discards back: totals %v", got)
	}

	// nothing at all: no message
	empty := &agent.Interface{Index: 7}
	for i := range empty.Values {
		empty.Values[i] = agent.Value{Missing: "NoSuchInstance"}
	}
	if l.fold(empty, false, &ev) {
		t.Fatal("a reading without counters must not be published")
	}
	if m := l.message("dev", 123); m.GetIfHighSpeedMbps() != 10000 || m.GetLinkId() != "x" || m.GetIfIndex() != 7 || m.GetPolledMs() != 123 {
		t.Fatalf("message fields: %v", m)
	}
}
