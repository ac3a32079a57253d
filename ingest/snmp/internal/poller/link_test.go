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
	m := l.message("d", 0, 0)
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
	if l.fold(in, false, &ev) {
		t.Fatal("a reading with discards missing must not be published")
	}
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
	if m := l.message("dev", 123, 4567); m.GetIfHighSpeedMbps() != 10000 || m.GetLinkId() != "x" || m.GetIfIndex() != 7 || m.GetPolledMs() != 123 || m.GetSysUptimeTicks() != 4567 {
		t.Fatalf("message fields: %v", m)
	}
}

// counters_reset marks exactly the messages whose difference with the
// previous one is not the interval's traffic: the first of the link, and any
// poll the poller rebaselined (restart, ifCounterDiscontinuityTime, ifIndex
// change, counter reset, counter type change). Wraps and missing polls are
// ordinary intervals.
func TestCountersResetFlag(t *testing.T) {
	l := &link{cfg: config.Link{ID: "x"}, ifIndex: 7}
	var d0, d1 uint64 = 0, 4500
	steps := []struct {
		name      string
		in        *agent.Interface
		restarted bool
		moved     bool // the if_name resolved to another ifIndex before this poll
		want      bool
	}{
		{"first poll", reading(1000, 10, 4294967290, 10000, &d0), false, false, true},
		{"normal poll", reading(2000, 20, 4294967295, 10000, &d0), false, false, false},
		{"discards wrap", reading(3000, 30, 4, 10000, &d0), false, false, false},
		{"no traffic", reading(3000, 30, 4, 10000, &d0), false, false, false},
		{"agent restarted", reading(10, 1, 0, 10000, &d0), true, false, true},
		{"after the restart", reading(20, 2, 0, 10000, &d0), false, false, false},
		{"discontinuity time changed", reading(30, 3, 0, 10000, &d1), false, false, true},
		{"after the discontinuity", reading(40, 4, 0, 10000, &d1), false, false, false},
		// octets 40 -> 5: more than 2^63 back, a cleared counter, not a wrap
		{"counter reset", reading(5, 5, 0, 10000, &d1), false, false, true},
		{"after the reset", reading(6, 6, 0, 10000, &d1), false, false, false},
		{"ifIndex changed", reading(777, 77, 7, 10000, &d1), false, true, true},
		{"after the move", reading(778, 78, 7, 10000, &d1), false, false, false},
	}
	for _, s := range steps {
		l.indexChanged = s.moved
		var ev foldEvents
		if !l.fold(s.in, s.restarted, &ev) {
			t.Fatalf("%s: fold reported no counter", s.name)
		}
		if got := l.message("d", 0, 0).GetCountersReset(); got != s.want {
			t.Fatalf("%s: counters_reset %v, want %v", s.name, got, s.want)
		}
	}

	// discards missing in the restart poll: the restart still applies when
	// they return (the old raw value 7 is from before the restart; 9 is not
	// 2 more), so that message is a new baseline too and adds nothing
	noDiscards := func(i *agent.Interface) *agent.Interface {
		i.Values[agent.OutDiscards] = agent.Value{Missing: "NoSuchInstance"}
		return i
	}
	var ev foldEvents
	l.fold(noDiscards(reading(800, 80, 0, 10000, &d1)), true, &ev)
	if m := l.message("d", 0, 0); !m.GetCountersReset() || m.GetIfOutDiscards() != 4294967300 {
		t.Fatalf("restart with discards missing: %v; want counters_reset and discards total 4294967300", m)
	}
	l.fold(reading(810, 81, 9, 10000, &d1), false, &ev)
	if m := l.message("d", 0, 0); !m.GetCountersReset() || m.GetIfOutDiscards() != 4294967300 {
		t.Fatalf("discards back after a restart: %v; want counters_reset and discards total unchanged 4294967300", m)
	}
	l.fold(reading(820, 82, 11, 10000, &d1), false, &ev)
	if m := l.message("d", 0, 0); m.GetCountersReset() || m.GetIfOutDiscards() != 4294967302 {
		t.Fatalf("next poll: %v; want no reset, discards +2", m)
	}
}

// A link whose answer has a counter missing, of the wrong type or
// implausible is not published that poll, and the next complete answer is:
// with totals that carry the skipped interval, so that every message's
// difference with the previous one is true for all three counters at once.
func TestIncompleteReadingIsSkipped(t *testing.T) {
	l := &link{cfg: config.Link{ID: "x"}, ifIndex: 7}
	var d0 uint64
	var ev foldEvents
	if !l.fold(reading(1000, 10, 5, 10000, &d0), false, &ev) {
		t.Fatal("first complete reading not published")
	}
	wrongType := reading(0, 20, 6, 10000, &d0)
	wrongType.Values[agent.HCOutOctets] = agent.Value{Missing: "unexpected type OctetString, want a Counter32 or Counter64"}
	if l.fold(wrongType, false, &ev) {
		t.Fatal("octets of the wrong type: published")
	}
	// -5 sent as a Counter64 is 2^64 - 5
	negative := reading(^uint64(0)-4, 30, 7, 10000, &d0)
	ev = foldEvents{}
	if l.fold(negative, false, &ev) || ev.implausible[0] == "" || ev.implausible[1] != "" {
		t.Fatalf("octets 2^64-5 after 1000: want not published and refused as implausible, got %+v", ev)
	}
	if !l.fold(reading(4000, 40, 9, 10000, &d0), false, &ev) {
		t.Fatal("complete reading after the bad ones not published")
	}
	// by hand: 1000 -> 4000 octets, 10 -> 40 packets, 5 -> 9 discards
	if got, m := totals(l), l.message("d", 0, 0); got != [3]uint64{4000, 40, 9} || m.GetCountersReset() {
		t.Fatalf("after two skipped polls: totals %v counters_reset %v; want [4000 40 9], false", got, m.GetCountersReset())
	}

	// octets cleared (4000 -> 100: a reset) in a poll that is not published
	// (discards missing): the next message still says counters_reset,
	// because its octets difference is not the traffic
	cleared := reading(100, 50, 0, 10000, &d0)
	cleared.Values[agent.OutDiscards] = agent.Value{Missing: "NoSuchInstance"}
	ev = foldEvents{}
	if l.fold(cleared, false, &ev) || ev.resets != 1 {
		t.Fatalf("reset poll with discards missing: want not published and 1 reset, got %+v", ev)
	}
	if !l.fold(reading(300, 60, 10, 10000, &d0), false, &ev) || !l.message("d", 0, 0).GetCountersReset() {
		t.Fatal("the message after an unpublished reset must have counters_reset")
	}
	if !l.fold(reading(400, 70, 11, 10000, &d0), false, &ev) || l.message("d", 0, 0).GetCountersReset() {
		t.Fatal("the next message must not have counters_reset")
	}
}
