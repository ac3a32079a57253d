package collector

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"cheetah/ingest/goflow2/internal/flowtest"

	flowpb "github.com/netsampler/goflow2/v2/pb"
)

const waitLimit = 10 * time.Second

// running is a collector started by startCollector.
type running struct {
	events    *lineSink
	flowsPath string
	ready     ReadyEvent
	cancel    context.CancelFunc
	done      chan error
}

// startCollector runs Run in-process with the file transport writing bin
// flows to a temp file, and waits for its ready line. It is stopped (and
// must return nil) at the end of the test.
//
// Only one test may open the file transport per test process: goflow2's
// FileDriver, re-opened after Close, rewrites a field its previous SIGHUP
// goroutine may still read (go test -race flags it). The binary opens it once.
func startCollector(t *testing.T, listen string) *running {
	t.Helper()
	r := &running{events: &lineSink{}, flowsPath: filepath.Join(t.TempDir(), "flows.bin"), done: make(chan error, 1)}
	setFlag(t, "transport.file", r.flowsPath)
	setFlag(t, "transport.file.sep", "")

	cfg := DefaultConfig()
	cfg.Listen = listen
	cfg.MetricsAddr = "127.0.0.1:0"
	cfg.Events = r.events
	cfg.Logger = testLogger(t)
	ctx, cancel := context.WithCancel(context.Background())
	r.cancel = cancel
	go func() { r.done <- Run(ctx, cfg) }()
	t.Cleanup(func() { r.stop(t) })

	deadline := time.Now().Add(waitLimit)
	for {
		select {
		case err := <-r.done:
			r.done <- err
			t.Fatalf("collector exited before ready: %v", err)
		default:
		}
		if lines, _ := r.events.snapshot(); len(lines) > 0 {
			if err := json.Unmarshal([]byte(lines[0]), &r.ready); err != nil || r.ready.Event != "ready" {
				t.Fatalf("first event line is not ready: %q", lines[0])
			}
			return r
		}
		if time.Now().After(deadline) {
			t.Fatal("no ready line")
		}
		time.Sleep(2 * time.Millisecond)
	}
}

func (r *running) stop(t *testing.T) {
	t.Helper()
	r.cancel()
	select {
	case err := <-r.done:
		r.done <- err
		if err != nil {
			t.Errorf("Run returned %v after cancel, want nil", err)
		}
	case <-time.After(waitLimit):
		t.Error("Run did not return after cancel")
	}
}

func (r *running) flows(t *testing.T) []*flowpb.FlowMessage {
	t.Helper()
	data, err := os.ReadFile(r.flowsPath)
	if err != nil {
		t.Fatalf("reading flows: %v", err)
	}
	flows, err := flowtest.ReadFlows(data)
	if err != nil {
		t.Fatalf("flows file is not length-delimited FlowMessages: %v", err)
	}
	return flows
}

func (r *running) waitFlows(t *testing.T, n int) []*flowpb.FlowMessage {
	t.Helper()
	var flows []*flowpb.FlowMessage
	eventually(t, waitLimit, fmt.Sprintf("%d flows in %s", n, r.flowsPath), func() bool {
		flows = r.flows(t)
		return len(flows) >= n
	})
	return flows
}

func (r *running) get(t *testing.T, path string) string {
	t.Helper()
	resp, err := http.Get("http://" + r.ready.MetricsAddr + path)
	if err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %s", path, resp.Status)
	}
	return string(body)
}

func dial(t *testing.T, port int) *net.UDPConn {
	t.Helper()
	c, err := net.DialUDP("udp", nil, &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1), Port: port})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func send(t *testing.T, c *net.UDPConn, payload []byte) {
	t.Helper()
	if _, err := c.Write(payload); err != nil {
		t.Fatalf("sending %d bytes: %v", len(payload), err)
	}
}

var testRecord = flowtest.V5Record{
	Src: netip.MustParseAddr("10.0.0.1"), Dst: netip.MustParseAddr("10.0.0.2"),
	Input: 1, Output: 2, Packets: 10, Octets: 1500, First: 9000, Last: 9500,
	SrcPort: 12345, DstPort: 443, TCPFlags: 0x18, Proto: 6, SrcMask: 24, DstMask: 16,
}

var testHeader = flowtest.V5Header{SysUptime: 10000, UnixSecs: 1700000000, Sequence: 7}

func TestCollectorDecodesAndRejectsOverSockets(t *testing.T) {
	nfPort, sfPort := flowtest.FreeUDPPort(t), flowtest.FreeUDPPort(t)
	// Two NetFlow listeners and templates.path set: stock goflow2 panics here.
	nf2Port := flowtest.FreeUDPPort(t)
	listen := fmt.Sprintf("netflow://127.0.0.1:%d?workers=1,sflow://127.0.0.1:%d,netflow://127.0.0.1:%d", nfPort, sfPort, nf2Port)
	r := startCollector(t, listen)
	if r.ready.Listen != listen || r.ready.MetricsAddr == "" {
		t.Fatalf("ready = %+v", r.ready)
	}
	nf := dial(t, nfPort)
	exporterPort := uint16(nf.LocalAddr().(*net.UDPAddr).Port)

	// (a) a valid v5 datagram becomes one FlowMessage with its values.
	send(t, nf, flowtest.V5(testHeader, testRecord))
	flows := r.waitFlows(t, 1)
	f := flows[0]
	wantStart := uint64(1700000000)*1e9 - 1000*1e6 // uptime 10000 ms, first 9000 ms
	if f.Type != flowpb.FlowMessage_NETFLOW_V5 || f.Bytes != 1500 || f.Packets != 10 ||
		f.SrcPort != 12345 || f.DstPort != 443 || f.Proto != 6 || f.TcpFlags != 0x18 ||
		f.InIf != 1 || f.OutIf != 2 || f.SrcNet != 24 || f.DstNet != 16 || f.SequenceNum != 7 ||
		!bytes.Equal(f.SrcAddr, []byte{10, 0, 0, 1}) || !bytes.Equal(f.DstAddr, []byte{10, 0, 0, 2}) ||
		!bytes.Equal(f.SamplerAddress, []byte{127, 0, 0, 1}) ||
		f.TimeFlowStartNs != wantStart || f.TimeFlowEndNs != wantStart+500*1e6 {
		t.Fatalf("decoded flow differs: %v", f)
	}

	// (b) malformed datagrams: one rejected line each, payload intact.
	rnd := []byte{0xde, 0xad, 0xbe, 0xef, 0x13, 0x37, 0x42, 0x00, 0xff, 0x10}
	bad := []struct {
		payload []byte
		reason  string
	}{
		{rnd, ReasonUnsupportedVersion},
		{flowtest.V5(testHeader, testRecord)[:14], ReasonTruncated},
		{append(flowtest.Be(uint16(42), uint16(1)), make([]byte, 68)...), ReasonUnsupportedVersion},
		{flowtest.V9(99, 1, flowtest.Set{ID: 260, Body: make([]byte, 16)}), ReasonTemplateNotFound},
		{flowtest.IPFIX(5, 1000, flowtest.TemplateSet(2, 256, flowtest.Field{Type: 1, Length: 8})), ReasonLengthMismatch},
		{append(flowtest.Be(uint16(5), uint16(30)), flowtest.V5(testHeader, testRecord)[4:]...), ReasonLengthMismatch},
	}
	for _, b := range bad {
		send(t, nf, b.payload)
	}
	// The listener has one worker, so once the next valid datagram's flow is
	// out, everything sent before it has been handled: counts are final.
	send(t, nf, flowtest.V5(testHeader, testRecord))
	r.waitFlows(t, 2)
	got := r.events.rejected(t)
	if len(got) != len(bad) {
		t.Fatalf("got %d rejected lines, want %d: %+v", len(got), len(bad), got)
	}
	for i, ev := range got {
		p, err := base64.StdEncoding.DecodeString(ev.PayloadB64)
		if err != nil || !bytes.Equal(p, bad[i].payload) {
			t.Errorf("line %d: payload %x, sent %x", i, p, bad[i].payload)
		}
		if ev.Reason != bad[i].reason {
			t.Errorf("line %d: reason %s, want %s (%s)", i, ev.Reason, bad[i].reason, ev.Detail)
		}
		if ev.Exporter != "127.0.0.1" || ev.ExporterPort != exporterPort || ev.Detail == "" {
			t.Errorf("line %d: exporter %s:%d detail %q", i, ev.Exporter, ev.ExporterPort, ev.Detail)
		}
		if age := time.Since(time.Unix(0, ev.ReceivedNs)); age < 0 || age > time.Minute {
			t.Errorf("line %d: received_ns %d is not recent", i, ev.ReceivedNs)
		}
	}

	// NetFlow v9 template then data in one datagram, on the second listener.
	tmpl := flowtest.TemplateSet(0, 256,
		flowtest.Field{Type: 1, Length: 4}, flowtest.Field{Type: 2, Length: 4}, flowtest.Field{Type: 4, Length: 1},
		flowtest.Field{Type: 7, Length: 2}, flowtest.Field{Type: 8, Length: 4}, flowtest.Field{Type: 11, Length: 2},
		flowtest.Field{Type: 12, Length: 4})
	rec := flowtest.Be(uint32(4242), uint32(3), uint8(17), uint16(5353), uint32(0xc0a80001), uint16(53), uint32(0xc0a80002))
	send(t, dial(t, nf2Port), flowtest.V9(1, 2, tmpl, flowtest.Set{ID: 256, Body: append(rec, 0, 0, 0)}))
	flows = r.waitFlows(t, 3)
	if v9 := flows[2]; v9.Type != flowpb.FlowMessage_NETFLOW_V9 || v9.Bytes != 4242 || v9.Packets != 3 ||
		v9.SrcPort != 5353 || v9.DstPort != 53 || v9.Proto != 17 || !bytes.Equal(v9.DstAddr, []byte{192, 168, 0, 2}) {
		t.Fatalf("v9 flow differs: %v", v9)
	}

	// sFlow listener: a bad datagram is reported too.
	sfBad := append(flowtest.Be(uint32(5), uint32(7)), 1, 2, 3)
	send(t, dial(t, sfPort), sfBad)
	eventually(t, waitLimit, "sFlow rejected line", func() bool { return len(r.events.rejected(t)) == len(bad)+1 })
	if ev := r.events.rejected(t)[len(bad)]; ev.Reason != ReasonMalformed || ev.PayloadB64 != base64.StdEncoding.EncodeToString(sfBad) {
		t.Fatalf("sFlow rejection: %+v", ev)
	}

	// Still alive and decoding after all that.
	send(t, nf, flowtest.V5(testHeader, testRecord))
	r.waitFlows(t, 4)

	// goflow2's HTTP endpoints on -addr.
	metrics := r.get(t, "/metrics")
	for _, want := range []string{
		`cheetah_goflow2_rejected_datagrams_total{reason="template_not_found"}`,
		`goflow2_flow_decoder_error_total{name="netflow",router="127.0.0.1"}`,
		`goflow2_flow_traffic_packets_total`,
	} {
		if !strings.Contains(metrics, want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
	if h := r.get(t, "/__health"); h != "OK\n" {
		t.Errorf("/__health = %q", h)
	}
	if tpl := r.get(t, "/templates"); !strings.Contains(tpl, "127.0.0.1") {
		t.Errorf("/templates does not list the v9 exporter: %s", tpl)
	}
}

func TestRunRefusesBadConfig(t *testing.T) {
	port := flowtest.FreeUDPPort(t)
	cases := []struct {
		name, listen, transportFile, want string
	}{
		{"flows would go to stdout", fmt.Sprintf("netflow://127.0.0.1:%d", port), "", "stdout is reserved"},
		{"port 0", "netflow://127.0.0.1:0", "x", "must be 1-65535"},
		{"unknown scheme", fmt.Sprintf("ipfix://127.0.0.1:%d", port), "x", "not one of sflow, netflow, flow"},
		{"bad workers", fmt.Sprintf("netflow://127.0.0.1:%d?workers=two", port), "x", "workers"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			file := ""
			if tc.transportFile != "" {
				file = filepath.Join(t.TempDir(), "flows.bin")
			}
			setFlag(t, "transport.file", file)
			cfg := DefaultConfig()
			cfg.Listen = tc.listen
			cfg.MetricsAddr = ""
			cfg.Events = &lineSink{}
			cfg.Logger = testLogger(t)
			ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
			defer cancel()
			err := Run(ctx, cfg)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Run = %v, want error containing %q", err, tc.want)
			}
		})
	}
}

// A busy metrics port fails Run before the transport is opened.
func TestRunFailsOnBusyMetricsPort(t *testing.T) {
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	flowsPath := filepath.Join(t.TempDir(), "flows.bin")
	setFlag(t, "transport.file", flowsPath)
	cfg := DefaultConfig()
	cfg.Listen = fmt.Sprintf("netflow://127.0.0.1:%d", flowtest.FreeUDPPort(t))
	cfg.MetricsAddr = busy.Addr().String()
	cfg.Events = &lineSink{}
	cfg.Logger = testLogger(t)
	if err := Run(context.Background(), cfg); err == nil || !strings.Contains(err.Error(), "-addr") {
		t.Fatalf("Run = %v, want an -addr error", err)
	}
	if _, err := os.Stat(flowsPath); !os.IsNotExist(err) {
		t.Fatalf("the flows file was opened anyway (stat: %v)", err)
	}
}
