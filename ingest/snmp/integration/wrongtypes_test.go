package integration

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The interface the rogue agent serves: net-snmp's own ifXTable/ifTable
// handlers do not have it; a `pass` script answers its counters with
// whatever TYPE and VALUE the test wrote in a file before the poll.
const (
	rogueIndex     = 4242
	rogueOctets    = "1.3.6.1.2.1.31.1.1.1.10.4242"
	roguePkts      = "1.3.6.1.2.1.31.1.1.1.11.4242"
	rogueDiscards  = "1.3.6.1.2.1.2.2.1.19.4242"
	rogueSpeed     = "1.3.6.1.2.1.31.1.1.1.15.4242"
	partialComm    = "cheetah-no-octets"
	ifHCOutOctetsC = ".1.3.6.1.2.1.31.1.1.1.10"
)

// passScript answers `-g OID` from the file "answers" beside it (lines "OID
// TYPE VALUE"); no line, no output: snmpd then answers noSuchInstance.
const passScript = `#!/bin/sh
[ "$1" = "-g" ] || exit 0
oid="${2#.}"
while read -r o type value; do
  if [ "$o" = "$oid" ]; then printf '.%s\n%s\n%s\n' "$o" "$type" "$value"; exit 0; fi
done < "$(dirname "$0")/answers"
`

type rogueAgent struct {
	*snmpd
	answers string
}

// startRogueAgent is a real snmpd whose answers for ifIndex 4242 come from
// the test, and whose community cheetah-no-octets has a view without the
// ifHCOutOctets column (snmpd answers noSuchObject there).
func startRogueAgent(t *testing.T) *rogueAgent {
	t.Helper()
	dir := t.TempDir()
	script := filepath.Join(dir, "answer.sh")
	if err := os.WriteFile(script, []byte(passScript), 0o755); err != nil {
		t.Fatal(err)
	}
	r := &rogueAgent{answers: filepath.Join(dir, "answers")}
	r.set(t, map[string]string{})
	var extra strings.Builder
	for _, oid := range []string{rogueOctets, roguePkts, rogueDiscards, rogueSpeed} {
		fmt.Fprintf(&extra, "pass .%s %s\n", oid, script)
	}
	fmt.Fprintf(&extra, "view noOctets included .1\nview noOctets excluded %s\nrocommunity %s 127.0.0.1 -V noOctets\n", ifHCOutOctetsC, partialComm)
	r.snmpd = startSnmpdWith(t, extra.String())
	return r
}

// set writes what the agent answers next: OID -> "TYPE VALUE" (pass types:
// counter64, counter, gauge, integer, string, ...); an OID left out gets
// noSuchInstance.
func (r *rogueAgent) set(t *testing.T, answers map[string]string) {
	t.Helper()
	var b strings.Builder
	for oid, tv := range answers {
		fmt.Fprintf(&b, "%s %s\n", oid, tv)
	}
	if err := os.WriteFile(r.answers, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

func good(octets, pkts, discards uint64) map[string]string {
	return map[string]string{
		rogueOctets:   fmt.Sprintf("counter64 %d", octets),
		roguePkts:     fmt.Sprintf("counter64 %d", pkts),
		rogueDiscards: fmt.Sprintf("counter %d", discards),
		rogueSpeed:    "gauge 1000",
	}
}

func with(m map[string]string, oid, typeValue string) map[string]string {
	out := map[string]string{}
	for k, v := range m {
		out[k] = v
	}
	if typeValue == "" {
		delete(out, oid)
	} else {
		out[oid] = typeValue
	}
	return out
}

// TestAgentAnsweringWrongTypes: a real snmpd answers a link's counters with
// wrong types (OctetString, a negative Integer), with -5 sent as a
// Counter64 and as a Counter32 (2^64 - 5, 2^32 - 5 on the wire: a rise no
// interval can have), and with noSuchInstance. Each bad poll publishes
// nothing for the link, counts one skipped sample and the bad value (missing
// or implausible), and logs the OID and the reason; the good poll after it is
// published, and its totals differ from the last message's by exactly what the
// agent's good answers moved (computed by hand), so no bogus rate ever reaches
// a consumer.
func TestAgentAnsweringWrongTypes(t *testing.T) {
	agent := startRogueAgent(t)
	h := newHarness(t, v2cTarget(agent.snmpd, fmt.Sprintf(`{"id": "rogue", "if_index": %d}`, rogueIndex)))

	var want [3]uint64 // the totals the next published message must carry
	goodPoll := func(octets, pkts, discards uint64, reset bool) {
		t.Helper()
		agent.set(t, good(octets, pkts, discards))
		m := h.poll()["rogue"]
		if m == nil {
			t.Fatalf("good answer (%d, %d, %d) not published; log:\n%s", octets, pkts, discards, h.log)
		}
		want = [3]uint64{octets, pkts, discards}
		if got := [3]uint64{m.GetIfHcOutOctets(), m.GetIfHcOutUcastPkts(), m.GetIfOutDiscards()}; got != want || m.GetCountersReset() != reset {
			t.Fatalf("after a good answer: totals %v counters_reset %v; want %v, %v; log:\n%s", got, m.GetCountersReset(), want, reset, h.log)
		}
	}
	goodPoll(1000, 10, 5, true) // the link's first message
	steps := []struct {
		name, oid, answer string
		reason            string // in the log line
		implausible       bool
	}{
		{"ifHCOutOctets as OctetString", rogueOctets, "string 12345", "unexpected type OctetString, want a Counter32 or Counter64", false},
		{"ifHCOutUcastPkts as a negative Integer", roguePkts, "integer -5", "unexpected type Integer, want a Counter32 or Counter64", false},
		{"ifHCOutOctets -5 as Counter64", rogueOctets, "counter64 -5", "implausible value 18446744073709551611", true},
		{"ifOutDiscards -5 as Counter32", rogueDiscards, "counter -5", "implausible value 4294967291", true},
		{"ifHCOutOctets noSuchInstance", rogueOctets, "", "reason=NoSuchInstance", false},
		{"ifHighSpeed as OctetString", rogueSpeed, "string fast", "unexpected type OctetString, want a Gauge32 or TimeTicks", false},
	}
	var skipped, missing, implausible uint64
	for i, s := range steps {
		// the bad answer comes with good values moved on for the other
		// objects: they are folded, and show in the next message
		base := uint64(i+1) * 1000
		agent.set(t, with(good(want[0]+base, want[1]+base/100, want[2]+1), s.oid, s.answer))
		m := h.poll()
		st := h.stats.Snapshot()
		if s.oid == rogueSpeed {
			// a gauge, not a counter: the link is published with the last
			// speed read; the value is counted and logged
			if m["rogue"] == nil || m["rogue"].GetIfHighSpeedMbps() != 1000 {
				t.Fatalf("%s: %v; want the link published with the last ifHighSpeed 1000", s.name, m)
			}
			want = [3]uint64{want[0] + base, want[1] + base/100, want[2] + 1}
		} else {
			if len(m) != 0 {
				t.Fatalf("%s: published %v; want nothing for a poll with a bad counter", s.name, m)
			}
			skipped++
		}
		if s.implausible {
			implausible++
		} else {
			missing++
		}
		if st["samples_skipped"] != skipped || st["missing_values"] != missing || st["implausible_values"] != implausible || st["polls_failed"] != 0 {
			t.Fatalf("%s: stats %v; want samples_skipped %d, missing_values %d, implausible_values %d, polls_failed 0", s.name, st, skipped, missing, implausible)
		}
		if !strings.Contains(h.log.String(), s.reason) || !strings.Contains(h.log.String(), "object="+s.oid) {
			t.Fatalf("%s: the log does not name %s and %q:\n%s", s.name, s.oid, s.reason, h.log)
		}
		// the next good answer is published with exact totals
		goodPoll(want[0]+base+500, want[1]+base/100+5, want[2]+2, false)
	}
	if n := h.log.count("value unusable"); n != len(steps) {
		t.Errorf("%d 'value unusable' lines for %d bad polls (one per streak):\n%s", n, len(steps), h.log)
	}
	if n := h.log.count("value usable again"); n != len(steps) {
		t.Errorf("%d 'value usable again' lines, want %d:\n%s", n, len(steps), h.log)
	}

	// noSuchObject: a community whose view lacks the ifHCOutOctets column
	partial := newHarness(t, fmt.Sprintf(`{"interval": "10s", "timeout": "500ms", "retries": 1, "targets": [
	  {"device": "partial", "address": "127.0.0.1:%d", "version": "2c", "community": %q, "links": [{"id": "rogue", "if_index": %d}]}]}`,
		agent.Port, partialComm, rogueIndex))
	agent.set(t, good(1000, 10, 5))
	for i := uint64(1); i <= 2; i++ {
		if m := partial.poll(); len(m) != 0 {
			t.Fatalf("noSuchObject poll %d: published %v", i, m)
		}
		if st := partial.stats.Snapshot(); st["samples_skipped"] != i || st["missing_values"] != i {
			t.Fatalf("noSuchObject poll %d: stats %v; want %d skipped samples and missing values", i, st, i)
		}
	}
	if n := partial.log.count("reason=NoSuchObject"); n != 1 {
		t.Errorf("%d log lines with reason NoSuchObject for one streak, want 1:\n%s", n, partial.log)
	}
}
