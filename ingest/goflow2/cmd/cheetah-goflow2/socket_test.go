package main

import (
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"cheetah/ingest/goflow2/internal/flowtest"
	"cheetah/ingest/goflow2/internal/udptest"
)

// stalledBurst starts the real binary with -rcvbuf, stops it (SIGSTOP: its
// reader cannot drain the socket), sends `sent` one-record v5 datagrams,
// resumes it and waits until every datagram is either decoded or dropped by
// the kernel. It returns the ready line and the metrics seen then.
func stalledBurst(t *testing.T, rcvbuf, sent int) (ready map[string]any, drops, decoded, ssSays int, stderr string) {
	t.Helper()
	bin := buildBinary(t)
	port := flowtest.FreeUDPPort(t)
	var errBuf bytes.Buffer
	cmd := exec.Command(bin,
		"-listen", fmt.Sprintf("netflow://127.0.0.1:%d?workers=1", port),
		"-rcvbuf", strconv.Itoa(rcvbuf),
		"-addr", "127.0.0.1:0",
		"-format", "bin", "-transport", "file",
		"-transport.file", filepath.Join(t.TempDir(), "flows.bin"), "-transport.file.sep", "")
	cmd.Stderr = &errBuf
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		_ = cmd.Process.Signal(syscall.SIGCONT)
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		if t.Failed() {
			t.Logf("stderr:\n%s", errBuf.String())
		}
	}()
	ready = nextLine(t, stdoutLines(t, stdout))
	if ready["event"] != "ready" {
		t.Fatalf("first line = %v", ready)
	}
	metricsURL := fmt.Sprintf("http://%s/metrics", ready["metrics_addr"])

	if err := cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the collector to stop (SIGSTOP)", func() bool { return processState(t, cmd.Process.Pid) == "T" })
	conn, err := net.DialUDP("udp", nil, &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1), Port: port})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	dgram := flowtest.V5(flowtest.V5Header{SysUptime: 1000, UnixSecs: 1700000000}, flowtest.V5Record{
		Src: netip.MustParseAddr("10.1.1.1"), Dst: netip.MustParseAddr("10.2.2.2"), Packets: 5, Octets: 500, SrcPort: 1000, DstPort: 80, Proto: 6})
	for i := 0; i < sent; i++ {
		if _, err := conn.Write(dgram); err != nil {
			t.Fatal(err)
		}
	}
	ssSays = udptest.SSDrops(t, port) // while stopped: nothing more can arrive
	if err := cmd.Process.Signal(syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "every datagram decoded or dropped", func() bool {
		body := scrape(t, metricsURL)
		drops = int(metricSum(body, "cheetah_goflow2_socket_drops_total"))
		decoded = int(metricSum(body, "goflow2_flow_traffic_packets_total"))
		return drops+decoded >= sent
	})
	return ready, drops, decoded, ssSays, errBuf.String()
}

// The smallest buffer, a stalled reader and a burst: the kernel drops, and the
// collector's metric says exactly how many (as ss does, and as sent - decoded).
func TestKernelDropsMetricCountsWhatTheKernelDropped(t *testing.T) {
	const sent = 300
	ready, drops, decoded, ss, _ := stalledBurst(t, 1, sent)
	granted := int(ready["rcvbuf_bytes"].(float64))
	if ready["rcvbuf_asked"] != float64(1) || granted <= 0 || granted > 8192 {
		t.Fatalf("ready line %v: want rcvbuf_asked 1 and the kernel's minimum buffer", ready)
	}
	if drops == 0 || drops != ss || drops != sent-decoded {
		t.Fatalf("metric drops %d; ss says %d; sent %d, decoded %d (sent - decoded = %d)", drops, ss, sent, decoded, sent-decoded)
	}
}

// A buffer as big as the kernel allows takes the same burst whole: 0 drops,
// and asking beyond net.core.rmem_max gets a warning with the remedy.
func TestBigReceiveBufferTakesTheBurst(t *testing.T) {
	rmemMax := readInt(t, "/proc/sys/net/core/rmem_max")
	const sent = 300
	if rmemMax < 512*1024 {
		t.Skipf("net.core.rmem_max is %d: too small to hold the burst", rmemMax)
	}
	ready, drops, decoded, ss, stderr := stalledBurst(t, 2*rmemMax, sent)
	if ready["rcvbuf_bytes"] != float64(2*rmemMax) {
		t.Fatalf("ready line %v: want rcvbuf_bytes %d (2 x rmem_max)", ready, 2*rmemMax)
	}
	if drops != 0 || ss != 0 || decoded != sent {
		t.Fatalf("metric drops %d, ss %d, decoded %d of %d: want no drop", drops, ss, decoded, sent)
	}
	if want := fmt.Sprintf("sysctl -w net.core.rmem_max=%d", 2*rmemMax); !strings.Contains(stderr, want) {
		t.Fatalf("stderr lacks the warning %q:\n%s", want, stderr)
	}
}

func TestRcvbufNegativeIsRefused(t *testing.T) {
	cmd := exec.Command(buildBinary(t), "-listen", fmt.Sprintf("netflow://127.0.0.1:%d", flowtest.FreeUDPPort(t)),
		"-rcvbuf", "-5", "-addr", "", "-transport", "file", "-transport.file", filepath.Join(t.TempDir(), "f"))
	out, err := cmd.CombinedOutput()
	if code := cmd.ProcessState.ExitCode(); err == nil || code != 1 || !strings.Contains(string(out), "-rcvbuf -5") {
		t.Fatalf("exit %d, output %s", code, out)
	}
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(waitLimit)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for %s", waitLimit, what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// processState is the state letter of /proc/PID/stat (R, S, T, ...).
func processState(t *testing.T, pid int) string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	return strings.Fields(s[strings.LastIndexByte(s, ')')+1:])[0]
}

func scrape(t *testing.T, url string) string {
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return string(body)
}

// metricSum adds the values of every series of one metric in a Prometheus text page.
func metricSum(page, name string) float64 {
	var sum float64
	for _, l := range strings.Split(page, "\n") {
		if strings.HasPrefix(l, name+"{") || strings.HasPrefix(l, name+" ") {
			v, _ := strconv.ParseFloat(l[strings.LastIndexByte(l, ' ')+1:], 64)
			sum += v
		}
	}
	return sum
}

func readInt(t *testing.T, path string) int {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	n, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	return n
}
