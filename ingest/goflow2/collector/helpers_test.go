package collector

import (
	"bytes"
	"encoding/json"
	"flag"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"
)

// lineSink collects event lines written by the collector.
type lineSink struct {
	mu      sync.Mutex
	partial []byte
	lines   []string
}

func (s *lineSink) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.partial = append(s.partial, p...)
	for {
		i := bytes.IndexByte(s.partial, '\n')
		if i < 0 {
			break
		}
		s.lines = append(s.lines, string(s.partial[:i]))
		s.partial = s.partial[i+1:]
	}
	return len(p), nil
}

func (s *lineSink) reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.lines, s.partial = nil, nil
}

func (s *lineSink) snapshot() (lines []string, partial int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.lines...), len(s.partial)
}

// rejected returns the parsed "rejected" lines; any other line but "ready"
// or "counters" fails the test.
func (s *lineSink) rejected(t testing.TB) []RejectedEvent {
	t.Helper()
	lines, partial := s.snapshot()
	if partial != 0 {
		t.Fatalf("event stream has %d bytes without a newline", partial)
	}
	var out []RejectedEvent
	for _, l := range lines {
		var head struct{ Event string }
		if err := json.Unmarshal([]byte(l), &head); err != nil {
			t.Fatalf("event line is not JSON: %q: %v", l, err)
		}
		switch head.Event {
		case "ready", "counters":
		case "rejected":
			var ev RejectedEvent
			dec := json.NewDecoder(strings.NewReader(l))
			dec.DisallowUnknownFields()
			if err := dec.Decode(&ev); err != nil {
				t.Fatalf("rejected line %q: %v", l, err)
			}
			out = append(out, ev)
		default:
			t.Fatalf("unexpected event line %q", l)
		}
	}
	return out
}

// eventually polls cond until it holds or the deadline passes.
func eventually(t testing.TB, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for %s", timeout, what)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// setFlag sets one of goflow2's driver flags for the test and restores it.
func setFlag(t testing.TB, name, value string) {
	t.Helper()
	f := flag.Lookup(name)
	if f == nil {
		t.Fatalf("flag -%s is not registered", name)
	}
	old := f.Value.String()
	if err := flag.Set(name, value); err != nil {
		t.Fatalf("setting -%s: %v", name, err)
	}
	t.Cleanup(func() { _ = flag.Set(name, old) })
}

type testLogWriter struct{ t testing.TB }

func (w testLogWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

func testLogger(t testing.TB) *slog.Logger {
	return slog.New(slog.NewTextHandler(testLogWriter{t}, &slog.HandlerOptions{Level: slog.LevelDebug}))
}
