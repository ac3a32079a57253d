package main

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"cheetah/ingest/goflow2/internal/flowtest"
)

const waitLimit = 20 * time.Second

var (
	buildOnce sync.Once
	builtPath string
	buildErr  error
	buildDir  string
)

func TestMain(m *testing.M) {
	code := m.Run()
	if buildDir != "" {
		_ = os.RemoveAll(buildDir)
	}
	os.Exit(code)
}

// buildBinary builds cheetah-goflow2 once per test run, the way build.sh does.
func buildBinary(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		if buildDir, buildErr = os.MkdirTemp("", "cheetah-goflow2-test"); buildErr != nil {
			return
		}
		builtPath = filepath.Join(buildDir, "cheetah-goflow2")
		cmd := exec.Command(filepath.Join(runtime.GOROOT(), "bin", "go"), "build", "-trimpath", "-o", builtPath, ".")
		cmd.Env = append(os.Environ(), "GOFLAGS=-mod=readonly -buildvcs=false")
		if b, err := cmd.CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, b)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return builtPath
}

// stdoutLines streams the child's stdout lines.
func stdoutLines(t *testing.T, r io.Reader) <-chan string {
	lines := make(chan string, 100)
	go func() {
		defer close(lines)
		s := bufio.NewScanner(r)
		s.Buffer(make([]byte, 64*1024), 1<<20)
		for s.Scan() {
			lines <- s.Text()
		}
	}()
	return lines
}

func nextLine(t *testing.T, lines <-chan string) map[string]any {
	t.Helper()
	select {
	case l, ok := <-lines:
		if !ok {
			t.Fatal("stdout closed")
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("stdout line is not JSON: %q", l)
		}
		return m
	case <-time.After(waitLimit):
		t.Fatal("no stdout line in time")
	}
	return nil
}

func TestBinaryEndToEnd(t *testing.T) {
	bin := buildBinary(t)
	port := flowtest.FreeUDPPort(t)
	flowsPath := filepath.Join(t.TempDir(), "flows.bin")
	var stderr bytes.Buffer
	cmd := exec.Command(bin,
		"-listen", fmt.Sprintf("netflow://127.0.0.1:%d?workers=1", port),
		"-addr", "127.0.0.1:0",
		"-format", "bin", "-transport", "file",
		"-transport.file", flowsPath, "-transport.file.sep", "",
		"-loglevel", "debug", "-logfmt", "json")
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	defer func() {
		_ = cmd.Process.Kill()
		if t.Failed() {
			t.Logf("stderr:\n%s", stderr.String())
		}
	}()
	lines := stdoutLines(t, stdout)

	ready := nextLine(t, lines)
	if ready["event"] != "ready" || ready["metrics_addr"] == "" {
		t.Fatalf("first line = %v", ready)
	}

	conn, err := net.DialUDP("udp", nil, &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1), Port: port})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	bad := flowtest.V9(3, 1, flowtest.Set{ID: 999, Body: make([]byte, 12)})
	good := flowtest.V5(flowtest.V5Header{SysUptime: 1000, UnixSecs: 1700000000}, flowtest.V5Record{
		Src: netip.MustParseAddr("10.1.1.1"), Dst: netip.MustParseAddr("10.2.2.2"), Packets: 5, Octets: 500, SrcPort: 1000, DstPort: 80, Proto: 6})
	for _, p := range [][]byte{bad, good} {
		if _, err := conn.Write(p); err != nil {
			t.Fatal(err)
		}
	}

	rej := nextLine(t, lines)
	if rej["event"] != "rejected" || rej["reason"] != "template_not_found" || rej["exporter"] != "127.0.0.1" ||
		rej["payload_b64"] != base64.StdEncoding.EncodeToString(bad) ||
		rej["exporter_port"] != float64(conn.LocalAddr().(*net.UDPAddr).Port) {
		t.Fatalf("rejected line = %v", rej)
	}

	// Metrics are served where the ready line says.
	resp, err := http.Get(fmt.Sprintf("http://%s/metrics", ready["metrics_addr"]))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(body), `cheetah_goflow2_rejected_datagrams_total{reason="template_not_found"} 1`) {
		t.Errorf("/metrics lacks the rejected counter")
	}

	// SIGTERM: exit 0, flows flushed, stdout closed with nothing but JSON lines.
	deadline := time.Now().Add(waitLimit)
	for {
		data, _ := os.ReadFile(flowsPath)
		if flows, _ := flowtest.ReadFlows(data); len(flows) == 1 {
			if flows[0].Bytes != 500 || flows[0].DstPort != 80 {
				t.Fatalf("flow = %v", flows[0])
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("valid datagram never reached the flows file")
		}
		time.Sleep(5 * time.Millisecond)
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	for l := range lines {
		t.Errorf("unexpected stdout line after the rejected one: %q", l)
	}
	select {
	case err := <-exited:
		if err != nil {
			t.Fatalf("exit after SIGTERM: %v", err)
		}
	case <-time.After(waitLimit):
		t.Fatal("no exit after SIGTERM")
	}
	if !strings.Contains(stderr.String(), "collector stopped") {
		t.Errorf("stderr lacks the shutdown log")
	}
}

func TestBinaryRefusesFlowsOnStdout(t *testing.T) {
	bin := buildBinary(t)
	cmd := exec.Command(bin, "-listen", fmt.Sprintf("netflow://127.0.0.1:%d", flowtest.FreeUDPPort(t)), "-addr", "")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var exitErr *exec.ExitError
	if !errors.As(err, &exitErr) || exitErr.ExitCode() != 1 {
		t.Fatalf("want exit 1, got %v", err)
	}
	if stdout.Len() != 0 || !strings.Contains(stderr.String(), "-transport.file") {
		t.Fatalf("stdout %q, stderr %q", stdout.String(), stderr.String())
	}
}
