package collector

import (
	"bytes"
	"encoding/base64"
	"net/netip"
	"runtime"
	"testing"
	"time"

	"cheetah/ingest/goflow2/internal/flowtest"
)

// The collector's fuzz targets, one per goflow2 decoder entry point it calls:
// the NetFlow pipe (netflowlegacy for v5, netflow for v9 and IPFIX, chosen by
// the version field) and the sFlow pipe. Each drives the production decode
// chain (buildDecoder, strict on: guard, panic catch, rejecter), not the bare
// decoder. They are listed in scripts/fuzz_targets.txt (`./cheetah bench
// fuzz` runs them for minutes); plain `go test` replays their corpus in
// testdata/fuzz/<name>/ as part of this suite.
//
//	go test -run='^$' -fuzz='^FuzzNetFlowV9$' -fuzztime=30s -fuzzminimizetime=1s ./collector

// decodeLimit bounds one decode. Normal ones take microseconds; the bound is
// only there to name the input of a hang (the failure it catches never
// returns at all), so it is set far above what a loaded 2-core machine, or
// `go test -fuzz` with a worker per core, can add to a microsecond (the guard
// tests use 5 s for the same reason).
const decodeLimit = 10 * time.Second

var knownReasons = map[string]bool{
	ReasonUnsupportedVersion: true, ReasonTruncated: true, ReasonLengthMismatch: true,
	ReasonTemplateNotFound: true, ReasonMalformed: true, ReasonUnmappableRecord: true,
	ReasonDecoderPanic: true, ReasonExportFailed: true, ReasonQueueFull: true, ReasonUnsupportedTemplate: true,
	ReasonBadCounterRecord: true,
}

// FuzzNetFlowV5 feeds the NetFlow pipe datagrams whose version field is 5;
// the input is the datagram after that field.
func FuzzNetFlowV5(f *testing.F) {
	v5 := flowtest.V5(flowtest.V5Header{SysUptime: 5000, UnixSecs: 1700000000}, flowtest.V5Record{
		Src: netip.MustParseAddr("10.0.0.1"), Dst: netip.MustParseAddr("10.0.0.2"), Packets: 2, Octets: 100, SrcPort: 1, DstPort: 2, Proto: 17})
	fuzzNetFlow(f, 5, v5, v5[:10], append(flowtest.Be(uint16(5)), make([]byte, 30)...))
}

// FuzzNetFlowV9 feeds the NetFlow pipe v9 datagrams (templates persist
// between inputs, as they do per exporter in the collector).
func FuzzNetFlowV9(f *testing.F) {
	tmpl := flowtest.TemplateSet(0, 256, flowtest.Field{Type: 1, Length: 4}, flowtest.Field{Type: 2, Length: 4}, flowtest.Field{Type: 7, Length: 2})
	opts := flowtest.Set{ID: 1, Body: flowtest.Be(uint16(257), uint16(4), uint16(4), uint16(1), uint16(4), uint16(34), uint16(4))}
	data := flowtest.Set{ID: 256, Body: make([]byte, 12)}
	fuzzNetFlow(f, 9, flowtest.V9(1, 2, tmpl, data), flowtest.V9(1, 1, data), flowtest.V9(1, 1, opts), flowtest.V9(1, 0))
}

// FuzzIPFIX feeds the NetFlow pipe IPFIX (version 10) messages.
func FuzzIPFIX(f *testing.F) {
	tmpl := flowtest.TemplateSet(2, 256, flowtest.Field{Type: 1, Length: 8}, flowtest.Field{Type: 8, Length: 4})
	pen := flowtest.TemplateSet(2, 257, flowtest.Field{Type: 0x8000 | 100, Length: 2, PEN: 29305}, flowtest.Field{Type: 7, Length: 2})
	fuzzNetFlow(f, 10,
		flowtest.IPFIX(1, -1, tmpl, flowtest.Set{ID: 256, Body: make([]byte, 12)}),
		flowtest.IPFIX(1, 300, tmpl),
		flowtest.IPFIX(1, -1, pen, flowtest.Set{ID: 257, Body: make([]byte, 4)}))
}

// FuzzSFlow feeds the sFlow pipe whole datagrams (sFlow's version is a
// 32-bit field the decoder checks itself).
func FuzzSFlow(f *testing.F) {
	f.Add(flowtest.Be(uint32(5), uint32(1), uint32(0x7f000001), uint32(0), uint32(1), uint32(100), uint32(1),
		uint32(1), uint32(20), uint32(1), uint32(0), uint32(1), uint32(0), uint32(0), uint32(0), uint32(1)))
	f.Add(flowtest.Be(uint32(5), uint32(2)))
	f.Add([]byte{})
	for _, seed := range counterDatagrams() { // counter samples (counters_test.go), good and bad
		f.Add(seed)
	}
	sf := newChain(f, "sflow", true, &memTransport{}, quietLogger())
	f.Fuzz(func(t *testing.T, payload []byte) { checkDecode(t, sf, "sflow", payload) })
}

// fuzzNetFlow runs the NetFlow pipe on BE16(version) ++ input; seeds are
// whole datagrams (their own version field is dropped).
func fuzzNetFlow(f *testing.F, version uint16, seeds ...[]byte) {
	f.Helper()
	for _, s := range seeds {
		f.Add(append([]byte(nil), s[2:]...))
	}
	f.Add([]byte{})
	nf := newChain(f, "netflow", true, &memTransport{}, quietLogger())
	f.Fuzz(func(t *testing.T, rest []byte) {
		checkDecode(t, nf, "netflow", append(flowtest.Be(version), rest...))
	})
}

// checkDecode holds the invariants of one datagram: nothing escapes as a
// panic or a hang; it is either decoded (no line) or refused with exactly one
// well-formed line carrying it byte for byte, for a known reason.
func checkDecode(t *testing.T, c *chain, scheme string, payload []byte) {
	sent := append([]byte(nil), payload...)
	c.events.reset() // the chain (and goflow2's templates) persist, the lines need not
	done := make(chan error, 1)
	go func() { done <- c.feed(payload) }()
	var err error
	select {
	case err = <-done:
	case <-time.After(decodeLimit):
		stacks := make([]byte, 1<<20)
		t.Fatalf("decode did not return within %v on %x\n%s", decodeLimit, sent, stacks[:runtime.Stack(stacks, true)])
	}
	evs := c.events.rejected(t)
	if err == nil {
		if len(evs) != 0 {
			t.Fatalf("decoded datagram also reported: %+v", evs)
		}
		return
	}
	if len(evs) != 1 {
		t.Fatalf("refused datagram (%v) gave %d lines, want 1", err, len(evs))
	}
	ev := evs[0]
	if !knownReasons[ev.Reason] {
		t.Fatalf("unknown reason %q", ev.Reason)
	}
	if ev.Reason == ReasonDecoderPanic {
		t.Fatalf("goflow2 panicked on %x: %s", sent, ev.Detail)
	}
	if ev.Detail != err.Error() {
		t.Fatalf("detail %q != error %q", ev.Detail, err)
	}
	if p, decErr := base64.StdEncoding.DecodeString(ev.PayloadB64); decErr != nil || !bytes.Equal(p, sent) {
		t.Fatalf("payload not intact: %x vs %x", p, sent)
	}
	if unsupportedVersion(scheme, sent) != (ev.Reason == ReasonUnsupportedVersion) {
		t.Fatalf("reason %s disagrees with version field of %x", ev.Reason, sent)
	}
}
