package integration

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"cheetah/ingest/snmp/gen/cheetahv1"
)

// TestVethCountersV2c polls a veth's counters through a real snmpd while
// traffic and drops happen on it, and checks that the published totals grow
// by exactly what was sent (delivered frames in octets and packets, frames
// dropped by veth_xmit in ifOutDiscards).
func TestVethCountersV2c(t *testing.T) {
	link := newVethLink(t)
	agent := startSnmpd(t)
	h := newHarness(t, v2cTarget(agent, fmt.Sprintf(`{"id": "by-name", "if_name": %q}, {"id": "by-index", "if_index": %d}`, link.Name, link.IfIndex)))

	poll := func() map[string]*cheetahv1.SnmpCounters {
		t.Helper()
		agent.expireIfCache(t)
		m := h.poll()
		if m["by-name"] == nil || m["by-index"] == nil {
			t.Fatalf("poll gave %v; want both links; poller log:\n%s", m, h.log)
		}
		return m
	}
	first := poll()
	for id, m := range first {
		if m.GetIfIndex() != link.IfIndex || m.GetDevice() != "test-agent" {
			t.Errorf("%s: if_index %d device %q; want %d (%s) and test-agent", id, m.GetIfIndex(), m.GetDevice(), link.IfIndex, link.Name)
		}
		if want := sysfsSpeed(t, link.Name); m.GetIfHighSpeedMbps() != want {
			t.Errorf("%s: ifHighSpeed %d Mb/s; the kernel says %d", id, m.GetIfHighSpeedMbps(), want)
		}
	}
	// The first total is the agent's raw value: here the kernel's own counters.
	kb, kp, kd := link.KernelTx(t)
	if got := first["by-name"]; got.GetIfHcOutOctets() != kb || got.GetIfHcOutUcastPkts() != kp || got.GetIfOutDiscards() != kd {
		t.Fatalf("first poll %v; kernel tx_bytes %d tx_packets %d tx_dropped %d", got, kb, kp, kd)
	}

	// Traffic with drops flows while the poller polls.
	const rounds, small, big = 20, 25, 5
	var wg sync.WaitGroup
	done := make(chan struct{})
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer close(done)
		for r := 0; r < rounds; r++ {
			link.Send(t, small, smallPayload)
			link.Send(t, big, bigPayload)
		}
	}()
	prev := first
	polls := 0
	for running := true; running; {
		select {
		case <-done:
			running = false
		default:
		}
		cur := poll()
		polls++
		for id := range cur {
			if cur[id].GetIfHcOutOctets() < prev[id].GetIfHcOutOctets() || cur[id].GetIfHcOutUcastPkts() < prev[id].GetIfHcOutUcastPkts() ||
				cur[id].GetIfOutDiscards() < prev[id].GetIfOutDiscards() {
				t.Fatalf("%s: a published total went down: %v -> %v", id, prev[id], cur[id])
			}
		}
		prev = cur
	}
	wg.Wait()
	last := poll()
	want := delta{octets: rounds * small * smallFrame, packets: rounds * small, discards: rounds * big}
	for _, id := range []string{"by-name", "by-index"} {
		if got := deltaOf(first[id], last[id]); got != want {
			t.Errorf("%s: consumer deltas %+v over %d polls; sent %+v", id, got, polls+1, want)
		}
	}
	if s := h.stats.Snapshot(); s["polls_failed"] != 0 || s["missing_values"] != 0 || s["restarts"] != 0 {
		t.Errorf("stats %v: want no failures, missing values or restarts", s)
	}
	t.Logf("%d polls during traffic; deltas %+v", polls, deltaOf(first["by-name"], last["by-name"]))
}

// TestVethCountersV3AuthPriv reads the same counters as SNMPv3 user with
// SHA authentication and AES privacy, and refuses a wrong passphrase without
// publishing anything.
func TestVethCountersV3AuthPriv(t *testing.T) {
	link := newVethLink(t)
	agent := startSnmpd(t)
	h := newHarness(t, v3Target(agent.Port, v3AuthPass, fmt.Sprintf(`{"id": "v3-link", "if_name": %q}`, link.Name)))

	agent.expireIfCache(t)
	first := h.poll()["v3-link"]
	if first == nil {
		t.Fatalf("no message over SNMPv3; poller log:\n%s", h.log)
	}
	link.Send(t, 40, smallPayload)
	link.Send(t, 9, bigPayload)
	agent.expireIfCache(t)
	second := h.poll()["v3-link"]
	if second == nil {
		t.Fatalf("no second message over SNMPv3; poller log:\n%s", h.log)
	}
	if got, want := deltaOf(first, second), (delta{40 * smallFrame, 40, 9}); got != want {
		t.Errorf("v3 deltas %+v; sent %+v", got, want)
	}

	bad := newHarness(t, v3Target(agent.Port, "wrong-pass-0000", fmt.Sprintf(`{"id": "v3-bad", "if_index": %d}`, link.IfIndex)))
	for i := 0; i < 2; i++ {
		if m := bad.poll(); len(m) != 0 {
			t.Fatalf("wrong passphrase published %v", m)
		}
	}
	if s := bad.stats.Snapshot(); s["polls_failed"] != 2 {
		t.Errorf("wrong passphrase: stats %v, want 2 failed polls", s)
	}
	if n := bad.log.count("poll failed"); n != 1 {
		t.Errorf("wrong passphrase: %d 'poll failed' log lines, want 1 per streak:\n%s", n, bad.log)
	}
	t.Logf("wrong passphrase reported as: %s", bad.log)
}

// TestMissingObjectsAndNames: an ifIndex the agent does not have gives
// noSuchInstance (counted per value, logged once per streak, no message), a
// name that resolves nowhere is counted and logged once; the good link is
// still published.
func TestMissingObjectsAndNames(t *testing.T) {
	link := newVethLink(t)
	agent := startSnmpd(t)
	h := newHarness(t, v2cTarget(agent, fmt.Sprintf(`{"id": "gone", "if_index": 2147483000}, {"id": "typo", "if_name": "no-such-interface"}, {"id": "ok", "if_index": %d}`, link.IfIndex)))
	for i := 1; i <= 2; i++ {
		m := h.poll()
		if len(m) != 1 || m["ok"] == nil {
			t.Fatalf("poll %d: %v, want only link ok; log:\n%s", i, m, h.log)
		}
		s := h.stats.Snapshot()
		// 4 required objects of "gone" per poll (ifCounterDiscontinuityTime is optional)
		if s["missing_values"] != uint64(4*i) || s["resolve_failures"] != uint64(i) {
			t.Fatalf("poll %d: stats %v; want missing_values %d, resolve_failures %d", i, s, 4*i, i)
		}
	}
	if n := h.log.count("value unusable"); n != 4 {
		t.Errorf("%d 'value unusable' lines, want 4 (one per object, once per streak):\n%s", n, h.log)
	}
	if n := h.log.count("does not resolve"); n != 1 {
		t.Errorf("%d 'does not resolve' lines, want 1:\n%s", n, h.log)
	}
	if n := h.log.count("NoSuchInstance"); n != 4 {
		t.Errorf("the reason NoSuchInstance should be logged with each missing object:\n%s", h.log)
	}
}

// TestAgentRestartRebaselines restarts snmpd: sysUpTime starts again from 0
// while the kernel's counters go on. The poll after the restart must add 0
// (the interval is unknowable in general: a rebooted router clears its
// counters, a restarted snmpd does not), and the next interval is exact again.
func TestAgentRestartRebaselines(t *testing.T) {
	for _, version := range []string{"v2c", "v3"} {
		t.Run(version, func(t *testing.T) { testAgentRestart(t, version) })
	}
}

func testAgentRestart(t *testing.T, version string) {
	link := newVethLink(t)
	agent := startSnmpd(t)
	links := fmt.Sprintf(`{"id": "l", "if_index": %d}`, link.IfIndex)
	cfg := v2cTarget(agent, links)
	if version == "v3" {
		cfg = v3Target(agent.Port, v3AuthPass, links)
	}
	h := newHarness(t, cfg)
	poll := func() *cheetahv1.SnmpCounters {
		t.Helper()
		agent.expireIfCache(t)
		m := h.poll()["l"]
		if m == nil {
			t.Fatalf("no message; log:\n%s", h.log)
		}
		return m
	}
	m0 := poll()
	link.Send(t, 10, smallPayload)
	m1 := poll()
	if got := deltaOf(m0, m1); got != (delta{10 * smallFrame, 10, 0}) {
		t.Fatalf("before restart: %+v", got)
	}
	if !m0.GetCountersReset() || m1.GetCountersReset() {
		t.Fatalf("counters_reset %v then %v; want true on the link's first message, false on the next", m0.GetCountersReset(), m1.GetCountersReset())
	}
	// sysUpTime is read when the agent answers; two polls may fall in the
	// same 10 ms tick
	if m1.GetSysUptimeTicks() < m0.GetSysUptimeTicks() {
		t.Fatalf("sys_uptime_ticks %d then %d; want no decrease while the agent runs", m0.GetSysUptimeTicks(), m1.GetSysUptimeTicks())
	}
	// A restart is seen when sysUpTime comes back lower than it was; the old
	// agent must have lived longer than the new one will have at the next
	// poll (well under a second here). Wait for that, do not guess.
	waitFor(t, 10*time.Second, func() (bool, string) {
		up := agent.uptime(t)
		return up >= 150 && up > m0.GetSysUptimeTicks(), "the first snmpd's sysUpTime to pass 1.5 s and the first poll's"
	})
	m1 = poll()
	if m1.GetCountersReset() || m1.GetSysUptimeTicks() <= m0.GetSysUptimeTicks() {
		t.Fatalf("later poll: counters_reset %v, sys_uptime_ticks %d after %d; want false and growing while the agent runs",
			m1.GetCountersReset(), m1.GetSysUptimeTicks(), m0.GetSysUptimeTicks())
	}
	agent.restart(t)
	link.Send(t, 7, smallPayload) // falls in the restart interval
	m2 := poll()
	if got := h.stats.Restarts.Load(); got != 1 {
		t.Fatalf("restarts = %d, want 1; log:\n%s", got, h.log)
	}
	if got := deltaOf(m1, m2); got != (delta{}) {
		t.Errorf("the restart interval added %+v; want 0 (new baseline)", got)
	}
	if !m2.GetCountersReset() || m2.GetSysUptimeTicks() >= m1.GetSysUptimeTicks() {
		t.Errorf("restart poll: counters_reset %v, sys_uptime_ticks %d after %d; want true and smaller (a new agent)",
			m2.GetCountersReset(), m2.GetSysUptimeTicks(), m1.GetSysUptimeTicks())
	}
	link.Send(t, 5, smallPayload)
	link.Send(t, 3, bigPayload)
	// at most one 10 ms tick, so that sys_uptime_ticks must grow
	waitFor(t, 5*time.Second, func() (bool, string) {
		return agent.uptime(t) > m2.GetSysUptimeTicks(), "the new snmpd's sysUpTime to pass the restart poll's"
	})
	m3 := poll()
	if got := deltaOf(m2, m3); got != (delta{5 * smallFrame, 5, 3}) {
		t.Errorf("after restart: %+v, want 5 frames and 3 discards", got)
	}
	if m3.GetCountersReset() || m3.GetSysUptimeTicks() <= m2.GetSysUptimeTicks() {
		t.Errorf("poll after the restart: counters_reset %v, sys_uptime_ticks %d after %d; want false and growing",
			m3.GetCountersReset(), m3.GetSysUptimeTicks(), m2.GetSysUptimeTicks())
	}
	if h.log.count("agent restarted") != 1 {
		t.Errorf("want one 'agent restarted' log line:\n%s", h.log)
	}
}
