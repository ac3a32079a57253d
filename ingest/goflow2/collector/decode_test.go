package collector

import (
	"bytes"
	"encoding/base64"
	"errors"
	"io"
	"log/slog"
	"net/netip"
	"strings"
	"sync"
	"testing"
	"time"

	"cheetah/ingest/goflow2/internal/flowtest"

	"github.com/netsampler/goflow2/v2/format"
	"github.com/netsampler/goflow2/v2/metrics"
	"github.com/netsampler/goflow2/v2/transport"
	"github.com/netsampler/goflow2/v2/utils"
)

// memTransport is a goflow2 transport that keeps what it is sent.
type memTransport struct {
	mu   sync.Mutex
	msgs [][]byte
	fail error
	keep bool
}

func (m *memTransport) Prepare() error { return nil }
func (m *memTransport) Init() error    { return nil }
func (m *memTransport) Close() error   { return nil }

func (m *memTransport) Send(_, data []byte) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.fail != nil {
		return m.fail
	}
	if m.keep {
		m.msgs = append(m.msgs, append([]byte(nil), data...))
	}
	return nil
}

var exporter = netip.MustParseAddrPort("192.0.2.1:40000")

// chain is the production decode chain (buildDecoder) over a real goflow2
// pipe, without sockets.
type chain struct {
	decode utils.DecoderFunc
	events *lineSink
	out    *memTransport
}

func newChain(t testing.TB, scheme string, strict bool, out *memTransport, logger *slog.Logger) *chain {
	t.Helper()
	formatter, err := format.FindFormat("bin")
	if err != nil {
		t.Fatal(err)
	}
	prod, err := newProducer(nil)
	if err != nil {
		t.Fatal(err)
	}
	// Wrapped like FindTransport does, so errors carry transport.ErrTransport.
	cfg := &utils.PipeConfig{Format: formatter, Transport: &transport.Transport{TransportDriver: out}, Producer: prod, NetFlowTemplater: metrics.NewDefaultPromTemplateSystem}
	var p utils.FlowPipe
	switch scheme {
	case "netflow":
		p = utils.NewNetFlowPipe(cfg)
	case "sflow":
		p = utils.NewSFlowPipe(cfg)
	case "flow":
		p = utils.NewFlowPipe(cfg)
	}
	events := &lineSink{}
	return &chain{
		decode: buildDecoder(scheme, p.DecodeFlow, strict, NewRejecter(NewEventWriter(events), nil, logger)),
		events: events,
		out:    out,
	}
}

func (c *chain) feed(payload []byte) error {
	return c.decode(&utils.Message{
		Src:      exporter,
		Dst:      netip.MustParseAddrPort("127.0.0.1:2055"),
		Payload:  payload,
		Received: time.Unix(1700000000, 5),
	})
}

func quietLogger() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

func TestRejectedReasons(t *testing.T) {
	v5ok := flowtest.V5(flowtest.V5Header{SysUptime: 1000}, flowtest.V5Record{Src: netip.MustParseAddr("10.0.0.1"), Dst: netip.MustParseAddr("10.0.0.2")})
	unknownTemplate := flowtest.V9(1, 1, flowtest.Set{ID: 300, Body: make([]byte, 8)})
	cases := []struct {
		name    string
		scheme  string
		payload []byte
		reason  string // "" = accepted
	}{
		{"valid v5", "netflow", v5ok, ""},
		{"valid v9 template+data (padded)", "netflow", flowtest.V9(1, 2,
			flowtest.TemplateSet(0, 256, flowtest.Field{Type: 1, Length: 4}, flowtest.Field{Type: 7, Length: 2}),
			flowtest.Set{ID: 256, Body: []byte{0, 0, 0, 9, 0, 80, 0, 0}}), ""},
		{"valid ipfix template+data", "netflow", flowtest.IPFIX(1, -1,
			flowtest.TemplateSet(2, 256, flowtest.Field{Type: 1, Length: 8}, flowtest.Field{Type: 0x8000 | 100, Length: 2, PEN: 29305}, flowtest.Field{Type: 7, Length: 2}),
			flowtest.Set{ID: 256, Body: flowtest.Be(uint64(9), uint16(1), uint16(80))}), ""},
		{"empty-ish", "netflow", []byte{0}, ReasonTruncated},
		{"random bytes", "netflow", []byte{0xde, 0xad, 0xbe, 0xef, 1, 2, 3}, ReasonUnsupportedVersion},
		{"version 42", "netflow", append(flowtest.Be(uint16(42)), make([]byte, 30)...), ReasonUnsupportedVersion},
		{"truncated v5 header", "netflow", v5ok[:10], ReasonTruncated},
		{"v5 count larger than records", "netflow", append(flowtest.Be(uint16(5), uint16(2)), v5ok[4:]...), ReasonLengthMismatch},
		{"v5 trailing bytes", "netflow", append(append([]byte(nil), v5ok...), 0, 0), ReasonLengthMismatch},
		{"v9 unknown template", "netflow", unknownTemplate, ReasonTemplateNotFound},
		{"v9 truncated header", "netflow", unknownTemplate[:12], ReasonTruncated},
		{"v9 set longer than datagram", "netflow", unknownTemplate[:len(unknownTemplate)-2], ReasonLengthMismatch},
		{"v9 bad set id", "netflow", flowtest.V9(1, 1, flowtest.Set{ID: 7, Body: make([]byte, 4)}), ReasonMalformed},
		{"v9 set length below 4", "netflow", append(flowtest.V9(1, 1), 1, 0, 0, 2), ReasonMalformed},
		{"ipfix length lies (longer)", "netflow", flowtest.IPFIX(1, 200, flowtest.TemplateSet(2, 256, flowtest.Field{Type: 1, Length: 4})), ReasonLengthMismatch},
		{"ipfix length lies (shorter)", "netflow", flowtest.IPFIX(1, 16, flowtest.TemplateSet(2, 256, flowtest.Field{Type: 1, Length: 4})), ReasonLengthMismatch},
		{"ipfix length zero", "netflow", flowtest.IPFIX(1, 0), ReasonLengthMismatch},
		{"ipfix unknown template", "netflow", flowtest.IPFIX(1, -1, flowtest.Set{ID: 999, Body: make([]byte, 4)}), ReasonTemplateNotFound},
		{"sflow version 4", "sflow", append(flowtest.Be(uint32(4)), make([]byte, 24)...), ReasonUnsupportedVersion},
		{"sflow truncated", "sflow", flowtest.Be(uint32(5), uint32(1)), ReasonTruncated},
		{"sflow bad ip version", "sflow", flowtest.Be(uint32(5), uint32(3), uint32(0)), ReasonMalformed},
		{"flow scheme garbage", "flow", []byte("GET / HTTP/1.1\r\n"), ReasonUnsupportedVersion},
		{"flow scheme v5 count lies", "flow", append(flowtest.Be(uint16(5), uint16(9)), v5ok[4:]...), ReasonLengthMismatch},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := newChain(t, tc.scheme, true, &memTransport{keep: true}, quietLogger())
			err := c.feed(tc.payload)
			got := c.events.rejected(t)
			if tc.reason == "" {
				if err != nil || len(got) != 0 || len(c.out.msgs) != 1 {
					t.Fatalf("want accepted as 1 flow, got err=%v events=%+v flows=%d", err, got, len(c.out.msgs))
				}
				return
			}
			if err == nil {
				t.Fatalf("want rejection %s, decoder returned nil (%d flows out)", tc.reason, len(c.out.msgs))
			}
			if len(got) != 1 {
				t.Fatalf("want exactly 1 rejected line, got %d", len(got))
			}
			ev := got[0]
			if ev.Reason != tc.reason {
				t.Errorf("reason = %s, want %s (detail %q)", ev.Reason, tc.reason, ev.Detail)
			}
			if ev.Detail != err.Error() {
				t.Errorf("detail = %q, want goflow2's error %q", ev.Detail, err.Error())
			}
			if p, _ := base64.StdEncoding.DecodeString(ev.PayloadB64); !bytes.Equal(p, tc.payload) {
				t.Errorf("payload_b64 decodes to %x, sent %x", p, tc.payload)
			}
			if ev.Exporter != "192.0.2.1" || ev.ExporterPort != 40000 || ev.ReceivedNs != 1700000000000000005 {
				t.Errorf("exporter/port/time = %s/%d/%d", ev.Exporter, ev.ExporterPort, ev.ReceivedNs)
			}
			if len(c.out.msgs) != 0 {
				t.Errorf("a rejected datagram produced %d flows", len(c.out.msgs))
			}
		})
	}
}

// Without -strict the length checks are off and goflow2 decides alone:
// a v5 whose count exceeds its records becomes phantom zero flows.
func TestNotStrictIsStockGoflow2(t *testing.T) {
	v5 := flowtest.V5(flowtest.V5Header{}, flowtest.V5Record{Packets: 3})
	lying := append(flowtest.Be(uint16(5), uint16(3)), v5[4:]...)
	c := newChain(t, "netflow", false, &memTransport{keep: true}, quietLogger())
	if err := c.feed(lying); err != nil {
		t.Fatalf("stock goflow2 accepted this before; now: %v", err)
	}
	if len(c.out.msgs) != 3 {
		t.Fatalf("want 3 flows (1 real + 2 phantom) from goflow2, got %d", len(c.out.msgs))
	}
	if got := c.events.rejected(t); len(got) != 0 {
		t.Fatalf("rejected lines: %+v", got)
	}
}

func TestPanicIsRejectedWithItsValue(t *testing.T) {
	events := &lineSink{}
	r := NewRejecter(NewEventWriter(events), nil, quietLogger())
	boom := func(msg interface{}) error {
		var s []int
		_ = s[3] // runtime error, not a string: goflow2's own wrapper would lose the text
		return nil
	}
	decode := buildDecoder("netflow", boom, true, r)
	payload := flowtest.V5(flowtest.V5Header{})
	err := decode(&utils.Message{Src: exporter, Dst: exporter, Payload: payload})
	if err == nil {
		t.Fatal("panic was not turned into an error")
	}
	got := events.rejected(t)
	if len(got) != 1 || got[0].Reason != ReasonDecoderPanic || !strings.Contains(got[0].Detail, "index out of range") {
		t.Fatalf("got %+v", got)
	}
}

func TestExportFailureIsRejected(t *testing.T) {
	c := newChain(t, "netflow", true, &memTransport{fail: errors.New("disk full")}, quietLogger())
	v5 := flowtest.V5(flowtest.V5Header{}, flowtest.V5Record{})
	if err := c.feed(v5); err == nil {
		t.Fatal("transport failure was swallowed")
	}
	got := c.events.rejected(t)
	if len(got) != 1 || got[0].Reason != ReasonExportFailed || !strings.Contains(got[0].Detail, "disk full") {
		t.Fatalf("got %+v", got)
	}
}

func TestQueueFullDropIsRejected(t *testing.T) {
	events := &lineSink{}
	d := droppedReporter{rejecter: NewRejecter(NewEventWriter(events), nil, quietLogger()), next: metrics.NewReceiverMetric()}
	d.Dropped(utils.Message{Src: exporter, Dst: exporter, Payload: []byte{1, 2, 3}})
	got := events.rejected(t)
	if len(got) != 1 || got[0].Reason != ReasonQueueFull || got[0].PayloadB64 != "AQID" {
		t.Fatalf("got %+v", got)
	}
}

// Several workers write at once: every line stays whole.
func TestEventLinesAreWholeUnderConcurrency(t *testing.T) {
	events := &lineSink{}
	w := NewEventWriter(events)
	payload := bytes.Repeat([]byte{0xab}, 9000)
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 50; i++ {
				if err := w.Rejected(&utils.Message{Src: exporter, Payload: payload}, ReasonMalformed, "x"); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	wg.Wait()
	got := events.rejected(t)
	if len(got) != 400 {
		t.Fatalf("got %d lines, want 400", len(got))
	}
	for _, ev := range got {
		if p, _ := base64.StdEncoding.DecodeString(ev.PayloadB64); !bytes.Equal(p, payload) {
			t.Fatal("payload damaged")
		}
	}
}
