package main

import (
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"os/exec"
	"regexp"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"cheetah/ingest/goflow2/collector"
	"cheetah/ingest/goflow2/gen/cheetahv1"
	"cheetah/ingest/goflow2/internal/flowtest"
	"cheetah/ingest/goflow2/internal/kafkatest"

	"google.golang.org/protobuf/proto"
)

// The collector keeps refused datagrams on its own, on a real broker: each
// becomes exactly one cheetah.v1.RejectedRecord on flows.rejected.v1 with its
// reason and the datagram's bytes, while valid flows still reach
// flows.goflow2.v1; and a record Kafka refuses is counted and logged.
func TestBinaryPublishesRejectedDatagrams(t *testing.T) {
	bin := buildBinary(t)
	bootstrap := kafkatest.Broker(t)

	t.Run("every refused datagram is on the topic once", func(t *testing.T) {
		rejectedFrom := kafkatest.End(t, bootstrap, collector.DefaultRejectedTopic)
		flowsFrom := kafkatest.End(t, bootstrap, collector.DefaultFlowsTopic)
		port := flowtest.FreeUDPPort(t)
		// The flags Cheetah's supervisor passes; the rejected brokers default
		// to the flows' brokers.
		c := startBinary(t, bin,
			"-listen", fmt.Sprintf("netflow://127.0.0.1:%d?workers=1", port),
			"-addr", "127.0.0.1:0", "-format", "bin", "-transport", "kafka",
			"-transport.kafka.brokers", bootstrap,
			"-transport.kafka.topic", collector.DefaultFlowsTopic,
			"-transport.kafka.flushfreq", "100ms",
			"-rejected.kafka.topic", collector.DefaultRejectedTopic)

		unsupported := append([]byte{0x13, 0x37}, make([]byte, 30)...)
		truncated := []byte{0x00, 0x05, 0x00, 0x01, 0x00, 0x0F, 0x42, 0x40, 0x00, 0x00}
		noTemplate := flowtest.V9(3, 1, flowtest.Set{ID: 999, Body: make([]byte, 12)})
		good := flowtest.V5(flowtest.V5Header{SysUptime: 1000, UnixSecs: 1700000000}, flowtest.V5Record{
			Src: netip.MustParseAddr("10.1.1.1"), Dst: netip.MustParseAddr("10.2.2.2"), Packets: 5, Octets: 500,
			SrcPort: 1000, DstPort: 80, Proto: 6})
		want := map[string][]byte{
			"unsupported_version": unsupported,
			"truncated_datagram":  truncated,
			"template_not_found":  noTemplate,
		}
		before := uint64(time.Now().UnixMilli())
		conn := dialUDP(t, port)
		for _, p := range [][]byte{unsupported, truncated, noTemplate, good} {
			if _, err := conn.Write(p); err != nil {
				t.Fatal(err)
			}
		}
		for range want {
			if l := nextLine(t, c.lines); l["event"] != "rejected" {
				t.Fatalf("stdout line = %v, want a rejected event", l)
			}
		}
		waitMetric(t, c.metrics, "cheetah_goflow2_rejected_published_total", 3)
		// Cheetah's flows transport (collector/kafka.go) counts each message
		// every in-sync replica acknowledged: the valid datagram's one.
		waitMetric(t, c.metrics, "cheetah_goflow2_flows_published_total", 1)
		c.stop(t) // SIGTERM: exit 0 once Kafka has every record
		after := uint64(time.Now().UnixMilli())

		values := kafkatest.Read(t, bootstrap, collector.DefaultRejectedTopic, rejectedFrom)
		if len(values) != len(want) {
			t.Fatalf("%d records on %s, want %d (one per refused datagram)", len(values), collector.DefaultRejectedTopic, len(want))
		}
		loopback := []byte{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 127, 0, 0, 1}
		for _, v := range values {
			var r cheetahv1.RejectedRecord
			if err := proto.Unmarshal(v, &r); err != nil {
				t.Fatalf("a record on %s is not a RejectedRecord: %v", collector.DefaultRejectedTopic, err)
			}
			payload, ok := want[r.Reason]
			if !ok {
				t.Fatalf("unexpected or repeated reason %q: %v", r.Reason, &r)
			}
			delete(want, r.Reason)
			if !bytes.Equal(r.Payload, payload) || r.Stage != "goflow2" || !bytes.Equal(r.Exporter, loopback) ||
				r.ReceivedMs < before || r.ReceivedMs > after || r.Detail == "" {
				t.Errorf("record %v, want stage goflow2, payload %x, exporter ::ffff:127.0.0.1, received in [%d, %d]",
					&r, payload, before, after)
			}
		}
		var flows int
		for _, v := range kafkatest.Read(t, bootstrap, collector.DefaultFlowsTopic, flowsFrom) {
			f, err := flowtest.ReadFlows(v)
			if err != nil {
				t.Fatalf("a record on %s is not goflow2's bin format: %v", collector.DefaultFlowsTopic, err)
			}
			flows += len(f)
		}
		if flows != 1 {
			t.Errorf("%d flows on %s, want the valid datagram's 1", flows, collector.DefaultFlowsTopic)
		}
	})

	t.Run("sFlow counter samples reach snmp.counters.v1", func(t *testing.T) {
		from := kafkatest.End(t, bootstrap, collector.DefaultCountersTopic)
		port := flowtest.FreeUDPPort(t)
		c := startBinary(t, bin,
			"-listen", fmt.Sprintf("sflow://127.0.0.1:%d?workers=1", port),
			"-addr", "127.0.0.1:0", "-format", "bin", "-transport", "kafka",
			"-transport.kafka.brokers", bootstrap,
			"-transport.kafka.topic", collector.DefaultFlowsTopic,
			"-transport.kafka.flushfreq", "100ms",
			"-rejected.kafka.topic", collector.DefaultRejectedTopic,
			"-counters.kafka.topic", collector.DefaultCountersTopic)
		conn := dialUDP(t, port)
		// Two ports of agent 127.0.0.1 in one datagram, as OVS pushes them (docs/FABRIC.md, "sFlow").
		d := flowtest.SFlow(5000, flowtest.SFlowCounterSample(1037, flowtest.SFlowIfCounters(1037, 10_000_000_000, 5400, 100, 0)),
			flowtest.SFlowCounterSample(1039, flowtest.SFlowIfCounters(1039, 10_000_000_000, 10800, 200, 1)))
		if _, err := conn.Write(d); err != nil {
			t.Fatal(err)
		}
		waitMetric(t, c.metrics, "cheetah_goflow2_counters_published_total", 2)
		c.stop(t)
		got := map[string]*cheetahv1.SnmpCounters{}
		for _, v := range kafkatest.Read(t, bootstrap, collector.DefaultCountersTopic, from) {
			var r cheetahv1.SnmpCounters
			if err := proto.Unmarshal(v, &r); err != nil {
				t.Fatalf("a record on %s is not SnmpCounters: %v", collector.DefaultCountersTopic, err)
			}
			got[r.LinkId] = &r
		}
		a, b := got["127.0.0.1/1037"], got["127.0.0.1/1039"]
		if len(got) != 2 || a == nil || b == nil || a.IfHcOutOctets != 5400 || b.IfHcOutOctets != 10800 ||
			b.IfOutDiscards != 1 || a.IfHighSpeedMbps != 10_000 || !a.CountersReset || a.SysUptimeTicks != 500 {
			t.Fatalf("got %v", got)
		}
	})

	t.Run("a record Kafka refuses is counted and logged", func(t *testing.T) {
		port := flowtest.FreeUDPPort(t)
		// A topic the broker does not have (it creates none on demand).
		c := startBinary(t, bin,
			"-listen", fmt.Sprintf("netflow://127.0.0.1:%d?workers=1", port),
			"-addr", "127.0.0.1:0", "-format", "bin",
			"-transport", "file", "-transport.file", t.TempDir()+"/flows.bin", "-transport.file.sep", "",
			"-rejected.kafka.brokers", bootstrap, "-rejected.kafka.topic", "cheetah.test.no-such-topic.v1")
		conn := dialUDP(t, port)
		if _, err := conn.Write([]byte{0x13, 0x37, 0, 0}); err != nil {
			t.Fatal(err)
		}
		if l := nextLine(t, c.lines); l["event"] != "rejected" {
			t.Fatalf("stdout line = %v", l)
		}
		waitMetric(t, c.metrics, "cheetah_goflow2_rejected_publish_errors_total", 1)
		c.stop(t)
		if !bytes.Contains(c.stderr.Bytes(), []byte("rejected datagram not published")) {
			t.Errorf("stderr does not log the failed publish:\n%s", c.stderr.String())
		}
	})

	t.Run("a flow message Kafka refuses is counted and logged", func(t *testing.T) {
		port := flowtest.FreeUDPPort(t)
		// A flows topic the broker does not have: once the producer gives up
		// on it the message is lost, and must be counted and logged.
		c := startBinary(t, bin,
			"-listen", fmt.Sprintf("netflow://127.0.0.1:%d?workers=1", port),
			"-addr", "127.0.0.1:0", "-format", "bin", "-transport", "kafka",
			"-transport.kafka.brokers", bootstrap,
			"-transport.kafka.topic", "cheetah.test.no-such-flows-topic.v1",
			"-transport.kafka.flushfreq", "100ms",
			"-rejected.kafka.topic", collector.DefaultRejectedTopic)
		good := flowtest.V5(flowtest.V5Header{SysUptime: 1000, UnixSecs: 1700000000}, flowtest.V5Record{
			Src: netip.MustParseAddr("10.1.1.1"), Dst: netip.MustParseAddr("10.2.2.2"), Packets: 5, Octets: 500,
			SrcPort: 1000, DstPort: 80, Proto: 6})
		if _, err := dialUDP(t, port).Write(good); err != nil {
			t.Fatal(err)
		}
		waitMetric(t, c.metrics, "cheetah_goflow2_flows_publish_errors_total", 1)
		c.stop(t)
		if !bytes.Contains(c.stderr.Bytes(), []byte("flow message lost")) {
			t.Errorf("stderr does not log the lost flow message:\n%s", c.stderr.String())
		}
	})
}

// binary is a running cheetah-goflow2 past its ready line.
type binary struct {
	cmd     *exec.Cmd
	lines   <-chan string
	metrics string // http://ADDR/metrics
	stderr  *lockedBuffer
	exited  chan error
}

func startBinary(t *testing.T, bin string, args ...string) *binary {
	t.Helper()
	b := &binary{cmd: exec.Command(bin, args...), stderr: &lockedBuffer{}, exited: make(chan error, 1)}
	b.cmd.Stderr = b.stderr
	stdout, err := b.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := b.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { b.exited <- b.cmd.Wait() }()
	t.Cleanup(func() {
		_ = b.cmd.Process.Kill() // by PID; a no-op once stop has run
		if t.Failed() {
			t.Logf("cheetah-goflow2 stderr:\n%s", b.stderr.String())
		}
	})
	b.lines = stdoutLines(t, stdout)
	ready := nextLine(t, b.lines)
	if ready["event"] != "ready" {
		t.Fatalf("first line = %v; stderr:\n%s", ready, b.stderr.String())
	}
	b.metrics = fmt.Sprintf("http://%s/metrics", ready["metrics_addr"])
	return b
}

// stop sends SIGTERM and wants exit 0.
func (b *binary) stop(t *testing.T) {
	t.Helper()
	if err := b.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-b.exited:
		if err != nil {
			t.Fatalf("exit after SIGTERM: %v; stderr:\n%s", err, b.stderr.String())
		}
	case <-time.After(waitLimit):
		t.Fatal("no exit within the wait limit after SIGTERM")
	}
}

func dialUDP(t *testing.T, port int) *net.UDPConn {
	t.Helper()
	conn, err := net.DialUDP("udp", nil, &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1), Port: port})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn
}

// waitMetric polls /metrics until the counter reaches want (a deadline, no
// fixed sleep: Kafka acknowledges when it does).
func waitMetric(t *testing.T, url, name string, want float64) {
	t.Helper()
	re := regexp.MustCompile(`(?m)^` + name + ` (\S+)$`)
	deadline := time.Now().Add(60 * time.Second)
	var got float64
	for time.Now().Before(deadline) {
		if resp, err := http.Get(url); err == nil {
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if m := re.FindSubmatch(body); m != nil {
				got, _ = strconv.ParseFloat(string(m[1]), 64)
				if got >= want {
					if got > want {
						t.Fatalf("%s = %v, want %v", name, got, want)
					}
					return
				}
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("%s = %v after 60 s, want %v", name, got, want)
}

// lockedBuffer is a bytes.Buffer the child's stderr copier and the test share.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) Bytes() []byte {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]byte(nil), b.buf.Bytes()...)
}

func (b *lockedBuffer) String() string { return string(b.Bytes()) }
