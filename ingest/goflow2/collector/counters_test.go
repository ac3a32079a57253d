package collector

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"cheetah/ingest/goflow2/gen/cheetahv1"
	"cheetah/ingest/goflow2/internal/flowtest"

	"google.golang.org/protobuf/proto"
)

var (
	ifCounters    = flowtest.SFlowIfCounters
	counterSample = flowtest.SFlowCounterSample
	sflowDatagram = flowtest.SFlow
)

// ethernetCounters: counter_data format 2, 13 zero counters (OVS sends one beside the generic record).
var ethernetCounters = append(flowtest.Be(uint32(2), uint32(52)), make([]byte, 52)...)

// counterDatagrams are the fuzz seeds: one good, one with both bad records.
func counterDatagrams() [][]byte {
	return [][]byte{
		sflowDatagram(123456, counterSample(1037, ifCounters(1037, 10_000_000_000, 5400, 100, 3), ethernetCounters)),
		sflowDatagram(1, counterSample(1039, ifCounters(1040, 1, 2, 3, 4)), counterSample(0, ifCounters(0, 1, 2, 3, 4))),
	}
}

type countersSink struct {
	mu  sync.Mutex
	got []*cheetahv1.SnmpCounters
}

func (s *countersSink) PublishCounters(r []*cheetahv1.SnmpCounters) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.got = append(s.got, r...)
}

func (s *countersSink) take() []*cheetahv1.SnmpCounters {
	s.mu.Lock()
	defer s.mu.Unlock()
	got := s.got
	s.got = nil
	return got
}

func countersChain(t *testing.T) (*chain, *countersSink) {
	c := newChain(t, "sflow", true, &memTransport{}, quietLogger())
	sink := &countersSink{}
	c.decode = wrapCounters(c.decode, sink, NewRejecter(NewEventWriter(c.events), nil, quietLogger()))
	return c, sink
}

func TestCounterSamplesBecomeSnmpCounters(t *testing.T) {
	c, sink := countersChain(t)
	good := counterDatagrams()[0]
	if err := c.feed(good); err != nil {
		t.Fatal(err)
	}
	// By hand from the datagram: agent 127.0.0.1, ifIndex 1037, 10 Gb/s, 5400 octets out, 100 unicast
	// packets, 3 discards; received at 1700000000 s (chain.feed); uptime 123456 ms = 12345 ticks.
	want := &cheetahv1.SnmpCounters{LinkId: "127.0.0.1/1037", Device: "127.0.0.1", IfIndex: 1037, PolledMs: 1_700_000_000_000,
		IfHcOutOctets: 5400, IfHcOutUcastPkts: 100, IfOutDiscards: 3, IfHighSpeedMbps: 10_000, CountersReset: true, SysUptimeTicks: 12345}
	got := sink.take()
	if len(got) != 1 || !proto.Equal(got[0], want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	if evs := c.events.rejected(t); len(evs) != 0 {
		t.Fatalf("refused: %+v", evs)
	}
	// The same port again later: no reset. Then the agent restarted (uptime went back): a reset.
	for _, step := range []struct {
		uptime uint32
		reset  bool
	}{{124456, false}, {1000, true}, {2000, false}} {
		if err := c.feed(sflowDatagram(step.uptime, counterSample(1037, ifCounters(1037, 1e9, 6000, 1, 0)))); err != nil {
			t.Fatal(err)
		}
		got := sink.take()
		if len(got) != 1 || got[0].CountersReset != step.reset || got[0].SysUptimeTicks != step.uptime/10 {
			t.Fatalf("uptime %d: got %v, want reset %v", step.uptime, got, step.reset)
		}
	}
}

func TestBadCounterRecordsAreRefusedSayingWhy(t *testing.T) {
	c, sink := countersChain(t)
	bad := counterDatagrams()[1]
	if err := c.feed(bad); err != nil {
		t.Fatal(err) // the datagram decodes; only its records are refused
	}
	if got := sink.take(); len(got) != 0 {
		t.Fatalf("published %v", got)
	}
	evs := c.events.rejected(t)
	want := []string{
		"agent 127.0.0.1 sub-agent 2: counter sample of ifIndex 1039 carries the counters of ifIndex 1040",
		"agent 127.0.0.1 sub-agent 2: counter sample 9 has ifIndex 0",
	}
	if len(evs) != len(want) {
		t.Fatalf("got %+v", evs)
	}
	for i, ev := range evs {
		if ev.Reason != ReasonBadCounterRecord || ev.Detail != want[i] {
			t.Errorf("line %d: %s %q, want %s %q", i, ev.Reason, ev.Detail, ReasonBadCounterRecord, want[i])
		}
	}
	// A truncated counter datagram is refused once (goflow2 alone decodes it silently, losing the
	// cut sample: strict.go), before any counters are read; so is one with bytes after its samples.
	good := counterDatagrams()[0]
	for _, cut := range [][]byte{good[:len(good)-10], good[:len(good)-60], good[:40], append(append([]byte(nil), good...), 0, 0, 0, 0)} {
		c.events.reset()
		if err := c.feed(cut); err == nil {
			t.Fatalf("%d bytes of %d decoded", len(cut), len(good))
		}
		if evs := c.events.rejected(t); len(evs) != 1 || evs[0].Reason != ReasonLengthMismatch {
			t.Fatalf("%d bytes: got %+v", len(cut), evs)
		}
		if got := sink.take(); len(got) != 0 {
			t.Fatalf("published %v", got)
		}
	}
}

// Every kept FuzzSFlow input, counters read too: no panic, and a refused record always has a reason.
func TestFuzzCorpusThroughTheCounters(t *testing.T) {
	files, _ := filepath.Glob("testdata/fuzz/FuzzSFlow/*")
	c, _ := countersChain(t)
	read := 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		// go test fuzz v1 file: the []byte value is the second line, []byte("...") quoted Go.
		lines := strings.SplitN(string(data), "\n", 3)
		if len(lines) < 2 || !strings.HasPrefix(lines[1], "[]byte(") {
			continue
		}
		payload, err := strconv.Unquote(strings.TrimSuffix(strings.TrimPrefix(lines[1], "[]byte("), ")"))
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		read++
		c.events.reset()
		_ = c.feed([]byte(payload))
		for _, ev := range c.events.rejected(t) {
			if !knownReasons[ev.Reason] || ev.Detail == "" {
				t.Fatalf("%s: %+v", f, ev)
			}
		}
	}
	if read == 0 || read != len(files) {
		t.Fatalf("read %d of %d corpus files", read, len(files))
	}
}

// Without brokers the records are "counters" event lines with SnmpCounters' field names.
func TestCountersWithoutKafkaAreEventLines(t *testing.T) {
	sink := &lineSink{}
	p, err := NewCountersPublisher(nil, DefaultCountersTopic, NewEventWriter(sink), quietLogger())
	if err != nil {
		t.Fatal(err)
	}
	p.PublishCounters([]*cheetahv1.SnmpCounters{{LinkId: "127.0.0.1/5", Device: "127.0.0.1", IfIndex: 5, PolledMs: 9, IfHcOutOctets: 1 << 40, CountersReset: true}})
	p.Stop()
	lines, _ := sink.snapshot()
	want := `{"event":"counters","link_id":"127.0.0.1/5","device":"127.0.0.1","if_index":5,"polled_ms":9,"if_hc_out_octets":1099511627776,"if_hc_out_ucast_pkts":0,"if_out_discards":0,"if_high_speed_mbps":0,"counters_reset":true,"sys_uptime_ticks":0}`
	if len(lines) != 1 || lines[0] != want {
		t.Fatalf("got %q\nwant %q", lines, want)
	}
}
