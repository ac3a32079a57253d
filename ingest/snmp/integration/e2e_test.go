package integration

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"cheetah/ingest/snmp/gen/cheetahv1"

	"github.com/twmb/franz-go/pkg/kgo"
	"google.golang.org/protobuf/proto"
)

// TestEndToEndIntoKafka runs the built command against a real snmpd and the
// Cheetah broker. The poller starts while the broker is down (messages are
// dropped or fail, counted, no crash), the broker then comes up on the port
// it was given and the poller reconnects by itself; a consumer decodes
// SnmpCounters from snmp.counters.v1 and finds the traffic sent on the veth.
func TestEndToEndIntoKafka(t *testing.T) {
	link := newVethLink(t)
	agent := startSnmpd(t)
	// The command polls on its own clock, so the cache cannot be expired
	// before each poll: make net-snmp reload interface counters every second.
	agent.setIfCache(t, 2, 1)
	bin := buildPoller(t)

	cfgPath := filepath.Join(t.TempDir(), "targets.json")
	cfg := fmt.Sprintf(`{"interval": "500ms", "timeout": "200ms", "retries": 1, "targets": [
	  {"device": "e2e-agent", "address": "127.0.0.1:%d", "version": "2c", "community": %q,
	   "links": [{"id": "e2e-link", "if_name": %q}]}]}`, agent.Port, roCommunity, link.Name)
	if err := os.WriteFile(cfgPath, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	kafkaPort := freeTCPPort(t)
	bootstrap := fmt.Sprintf("127.0.0.1:%d", kafkaPort)
	poller := startProcess(t, bin, "--config", cfgPath, "--brokers", bootstrap, "--print",
		"--delivery-timeout", "1s", "--max-buffered", "2", "--flush-timeout", "5s")
	ready := poller.next(t, 10*time.Second, "the poller's ready line")
	if ready["event"] != "ready" || ready["links"] != float64(1) {
		t.Fatalf("first stdout line %v; want {\"event\":\"ready\",\"links\":1,...}", ready)
	}
	// broker down: let at least 4 polls happen (messages fail after 1 s or
	// find the 2-record buffer full). --print shows each message as sent:
	// the first starts the link's baseline, the others do not; sysUpTime
	// grows by about the 500 ms interval between them.
	// firstPolled holds the polled_ms of each poller process's first
	// message, the only ones that may carry counters_reset.
	firstPolled := map[uint64]bool{}
	var prevTicks float64
	for i := 0; i < 4; i++ {
		l := poller.next(t, 5*time.Second, "a counters line while the broker is down")
		if l["event"] != "counters" {
			t.Fatalf("unexpected line %v", l)
		}
		ticks, _ := l["sys_uptime_ticks"].(float64)
		if l["counters_reset"] != (i == 0) || ticks <= prevTicks {
			t.Fatalf("counters line %d: %v; want counters_reset %v and sys_uptime_ticks above %v", i, l, i == 0, prevTicks)
		}
		if i == 0 {
			firstPolled[uint64(l["polled_ms"].(float64))] = true
		}
		prevTicks = ticks
	}

	t0 := time.Now()
	startBroker(t, kafkaPort)
	t.Logf("broker up in %v", time.Since(t0))
	consumer, err := kgo.NewClient(kgo.SeedBrokers(bootstrap), kgo.ConsumeTopics("snmp.counters.v1"),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	if err != nil {
		t.Fatal(err)
	}
	defer consumer.Close()
	var got []*cheetahv1.SnmpCounters
	consume := func(what string, until func(m *cheetahv1.SnmpCounters) bool) *cheetahv1.SnmpCounters {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		for {
			fetches := consumer.PollFetches(ctx)
			if ctx.Err() != nil {
				t.Fatalf("no message %s within 20 s; consumed %d: %v\npoller stderr:\n%s", what, len(got), got, poller.stderr())
			}
			for _, e := range fetches.Errors() {
				t.Logf("fetch: %v", e.Err)
			}
			var hit *cheetahv1.SnmpCounters
			fetches.EachRecord(func(r *kgo.Record) {
				m := &cheetahv1.SnmpCounters{}
				if err := proto.Unmarshal(r.Value, m); err != nil {
					t.Fatalf("record at offset %d is not a SnmpCounters: %v", r.Offset, err)
				}
				if string(r.Key) != "e2e-link" || m.GetLinkId() != "e2e-link" || m.GetDevice() != "e2e-agent" || m.GetIfIndex() != link.IfIndex {
					t.Fatalf("record key %q message %v; want key and link_id e2e-link, device e2e-agent, if_index %d", r.Key, m, link.IfIndex)
				}
				if m.GetCountersReset() != firstPolled[m.GetPolledMs()] {
					t.Fatalf("record %v: counters_reset must be set on each poller process's first message (polled_ms %v) and only there", m, firstPolled)
				}
				// one agent lifetime: sysUpTime grows, by 50 ticks a poll
				// within a process (a poller restart may fall in one tick)
				if n := len(got); n > 0 && (m.GetSysUptimeTicks() < got[n-1].GetSysUptimeTicks() ||
					!m.GetCountersReset() && m.GetSysUptimeTicks() == got[n-1].GetSysUptimeTicks()) {
					t.Fatalf("sys_uptime_ticks did not grow between records: %v -> %v", got[n-1], m)
				}
				if n := len(got); n > 0 && !m.GetCountersReset() && (m.GetIfHcOutUcastPkts() < got[n-1].GetIfHcOutUcastPkts() || m.GetIfOutDiscards() < got[n-1].GetIfOutDiscards()) {
					t.Fatalf("totals went down between records: %v -> %v", got[n-1], m)
				}
				got = append(got, m)
				if hit == nil && until(m) {
					hit = m
				}
			})
			if hit != nil {
				return hit
			}
		}
	}
	// The veth carried nothing yet: the first record is the baseline.
	base := consume("at all after the broker came up", func(*cheetahv1.SnmpCounters) bool { return true })
	t.Logf("first record after %v", time.Since(t0))
	link.Send(t, 60, smallPayload)
	link.Send(t, 11, bigPayload)
	want := delta{60 * smallFrame, 60, 11}
	consume(fmt.Sprintf("with totals grown by %+v", want), func(m *cheetahv1.SnmpCounters) bool {
		d := deltaOf(base, m)
		if d.packets > want.packets || d.discards > want.discards || d.octets > want.octets {
			t.Fatalf("totals grew by %+v, more than the %+v sent", d, want)
		}
		return d == want
	})

	poller.signal(t, syscall.SIGTERM)
	var stopped map[string]any
	for stopped == nil {
		if l := poller.next(t, 15*time.Second, "the stopped line"); l["event"] == "stopped" {
			stopped = l
		}
	}
	if code := poller.wait(t); code != 0 {
		t.Fatalf("exit status %d after SIGTERM; stderr:\n%s", code, poller.stderr())
	}
	c := stopped["counters"].(map[string]any)
	num := func(k string) uint64 { v, _ := c[k].(float64); return uint64(v) }
	if num("dropped_buffer_full")+num("delivery_failures") == 0 {
		t.Errorf("the broker was down at start but nothing was counted as dropped or failed: %v", c)
	}
	if num("published") < uint64(len(got)) || num("enqueued") != num("messages") {
		t.Errorf("counters %v: published must cover the %d records consumed, enqueued must equal messages", c, len(got))
	}
	if num("enqueued") != num("published")+num("dropped_buffer_full")+num("delivery_failures")+num("encode_failures") {
		t.Errorf("counters %v: every enqueued message must be published, dropped or failed at exit", c)
	}
	if !strings.Contains(poller.stderr(), "kafka delivering again") {
		t.Errorf("no reconnect logged; stderr:\n%s", poller.stderr())
	}
	t.Logf("consumed %d records; exit counters %v", len(got), c)

	// A new poller process starts new baselines: its first record carries
	// counters_reset, so a consumer skips that difference instead of
	// guessing from the totals (the consume check above asserts the flag on
	// every record and that the next one is a normal interval).
	again := startProcess(t, bin, "--config", cfgPath, "--brokers", bootstrap, "--print")
	if l := again.next(t, 10*time.Second, "the second poller's ready line"); l["event"] != "ready" {
		t.Fatalf("second poller: first line %v", l)
	}
	l := again.next(t, 10*time.Second, "the second poller's first counters line")
	if l["event"] != "counters" || l["counters_reset"] != true {
		t.Fatalf("second poller's first message %v; want counters_reset true", l)
	}
	restartPolled := uint64(l["polled_ms"].(float64))
	firstPolled[restartPolled] = true
	first := consume("from the second poller", func(m *cheetahv1.SnmpCounters) bool { return m.GetPolledMs() == restartPolled })
	next := consume("after the second poller's first", func(m *cheetahv1.SnmpCounters) bool { return m.GetPolledMs() > restartPolled })
	if !first.GetCountersReset() || next.GetCountersReset() {
		t.Errorf("second poller in Kafka: counters_reset %v then %v; want true then false", first.GetCountersReset(), next.GetCountersReset())
	}
	again.signal(t, syscall.SIGTERM)
	if code := again.wait(t); code != 0 {
		t.Fatalf("second poller: exit status %d after SIGTERM; stderr:\n%s", code, again.stderr())
	}
}

func buildPoller(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "cheetah-snmp-poller")
	cmd := exec.Command("go", "build", "-o", bin, "./cmd/cheetah-snmp-poller")
	cmd.Dir = ".."
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s\n(run ./gen.sh or ./build.sh first if gen/cheetahv1 is missing)", err, out)
	}
	return bin
}

// startBroker runs `cheetah broker --port PORT` (the repository's in-JVM
// KRaft broker with every topic created) until the test ends: closing its
// stdin stops it.
func startBroker(t *testing.T, port int) {
	t.Helper()
	root, err := filepath.Abs("../../..")
	if err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(root, "cheetah")
	if _, err := os.Stat(script); err != nil {
		t.Fatalf("no %s: the broker comes from the repository's ./cheetah broker", script)
	}
	b := startProcess(t, script, "broker", "--port", fmt.Sprint(port))
	l := b.next(t, 120*time.Second, "the broker's ready line")
	if l["event"] != "ready" {
		t.Fatalf("broker said %v; stderr:\n%s", l, b.stderr())
	}
}

// process is a child whose stdout is JSON lines, read as they come.
type process struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	lines  chan map[string]any
	errBuf *lockedBuffer
	exited chan struct{}
}

func startProcess(t *testing.T, name string, args ...string) *process {
	t.Helper()
	p := &process{cmd: exec.Command(name, args...), lines: make(chan map[string]any, 1024), errBuf: &lockedBuffer{}, exited: make(chan struct{})}
	p.cmd.Stderr = p.errBuf
	stdout, err := p.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if p.stdin, err = p.cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", name, err)
	}
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			var m map[string]any
			if json.Unmarshal(sc.Bytes(), &m) != nil {
				m = map[string]any{"event": "not-json", "line": sc.Text()}
			}
			p.lines <- m
		}
		_ = p.cmd.Wait()
		close(p.exited)
	}()
	t.Cleanup(func() { p.stop() })
	return p
}

func (p *process) next(t *testing.T, limit time.Duration, what string) map[string]any {
	t.Helper()
	select {
	case l := <-p.lines:
		return l
	case <-p.exited:
		select {
		case l := <-p.lines:
			return l
		default:
		}
		t.Fatalf("%s exited before %s; stderr:\n%s", p.cmd.Path, what, p.stderr())
	case <-time.After(limit):
		t.Fatalf("no %s within %v; stderr:\n%s", what, limit, p.stderr())
	}
	return nil
}

func (p *process) signal(t *testing.T, s os.Signal) {
	t.Helper()
	if err := p.cmd.Process.Signal(s); err != nil {
		t.Fatal(err)
	}
}

func (p *process) wait(t *testing.T) int {
	t.Helper()
	select {
	case <-p.exited:
	case <-time.After(15 * time.Second):
		t.Fatalf("%s did not exit", p.cmd.Path)
	}
	return p.cmd.ProcessState.ExitCode()
}

func (p *process) stderr() string { return p.errBuf.String() }

// stop closes stdin (the broker's stop signal), then SIGTERM, then SIGKILL,
// each by PID, waiting up to 10 s for each.
func (p *process) stop() {
	_ = p.stdin.Close()
	for _, s := range []os.Signal{nil, syscall.SIGTERM, syscall.SIGKILL} {
		if s != nil {
			_ = p.cmd.Process.Signal(s)
		}
		select {
		case <-p.exited:
			return
		case <-time.After(10 * time.Second):
		}
	}
}
