package integration

import (
	"fmt"
	"net"
	"sync/atomic"
	"testing"
	"time"
)

// TestSilentAgentTimesOut polls an "agent" that is a bound UDP socket never
// answering: each poll sends exactly retries + 1 requests, is counted as a
// timeout, takes at least timeout × (retries + 1), publishes nothing, and
// only the first of the streak is logged. Both v2c and v3 (whose engine
// discovery is what times out).
func TestSilentAgentTimesOut(t *testing.T) {
	silent, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	defer silent.Close()
	port := silent.LocalAddr().(*net.UDPAddr).Port
	// count what the poller sends; never answer
	var requests atomic.Int64
	go func() {
		buf := make([]byte, 65536)
		for {
			if _, _, err := silent.ReadFromUDP(buf); err != nil {
				return // closed at the end of the test
			}
			requests.Add(1)
		}
	}()

	// Timing bounds, chosen to hold on a loaded 2-core machine and still fail
	// a wrong implementation:
	//   - at least 2 tries × 400 ms = 800 ms: Go timers never fire early, so
	//     a poll that returns sooner did not wait out its timeout;
	//   - under 1500 ms: a poller that waited twice the timeout per try (or
	//     three tries) needs 1600 ms or more; the 700 ms left over the ideal
	//     800 ms absorbs scheduling delays of a busy machine.
	// A retry count that is wrong is caught exactly by the number of
	// requests the silent agent received, whatever the machine's load.
	const timeout, tries = 400 * time.Millisecond, 2
	const tooLong = 1500 * time.Millisecond
	for _, tc := range []struct{ name, config string }{
		{"v2c", fmt.Sprintf(`{"interval": "2s", "timeout": "400ms", "retries": 1, "targets": [
		  {"address": "127.0.0.1:%d", "version": "2c", "community": "x", "links": [{"id": "a", "if_index": 1}]}]}`, port)},
		{"v3", fmt.Sprintf(`{"interval": "2s", "timeout": "400ms", "retries": 1, "targets": [
		  {"address": "127.0.0.1:%d", "version": "3", "v3": {"user": "u", "auth_protocol": "SHA", "auth_passphrase": "12345678",
		   "priv_protocol": "AES", "priv_passphrase": "12345678"}, "links": [{"id": "a", "if_name": "eth0"}]}]}`, port)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, tc.config)
			for i := 1; i <= 3; i++ {
				before := requests.Load()
				start := time.Now()
				if m := h.poll(); len(m) != 0 {
					t.Fatalf("silent agent published %v", m)
				}
				took := time.Since(start)
				if took < tries*timeout || took >= tooLong {
					t.Errorf("poll %d took %v; want at least %v (timeout %v × %d tries) and under %v", i, took, tries*timeout, timeout, tries, tooLong)
				}
				// the last request may still be on its way to the reader
				waitFor(t, 2*time.Second, func() (bool, string) {
					return requests.Load()-before >= tries, fmt.Sprintf("%d requests of poll %d at the silent agent", tries, i)
				})
				if n := requests.Load() - before; n != tries {
					t.Errorf("poll %d sent %d requests; want %d (retries 1 + 1)", i, n, tries)
				}
				if s := h.stats.Snapshot(); s["timeouts"] != uint64(i) || s["polls_failed"] != uint64(i) || s["errors"] != 0 {
					t.Fatalf("after poll %d: stats %v; want %d timeouts and failed polls, 0 errors", i, s, i)
				}
			}
			if n := h.log.count("poll failed"); n != 1 {
				t.Errorf("%d 'poll failed' lines for one streak of 3, want 1:\n%s", n, h.log)
			}
		})
	}
}
