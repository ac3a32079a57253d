package integration

import (
	"fmt"
	"net"
	"testing"
	"time"
)

// TestSilentAgentTimesOut polls an "agent" that is a bound UDP socket never
// answering: each poll is counted as a timeout, takes timeout × (retries + 1),
// publishes nothing, and only the first of the streak is logged. Both v2c and
// v3 (whose engine discovery is what times out).
func TestSilentAgentTimesOut(t *testing.T) {
	silent, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	defer silent.Close()
	port := silent.LocalAddr().(*net.UDPAddr).Port

	for _, tc := range []struct{ name, config string }{
		{"v2c", fmt.Sprintf(`{"interval": "1s", "timeout": "150ms", "retries": 1, "targets": [
		  {"address": "127.0.0.1:%d", "version": "2c", "community": "x", "links": [{"id": "a", "if_index": 1}]}]}`, port)},
		{"v3", fmt.Sprintf(`{"interval": "1s", "timeout": "150ms", "retries": 1, "targets": [
		  {"address": "127.0.0.1:%d", "version": "3", "v3": {"user": "u", "auth_protocol": "SHA", "auth_passphrase": "12345678",
		   "priv_protocol": "AES", "priv_passphrase": "12345678"}, "links": [{"id": "a", "if_name": "eth0"}]}]}`, port)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, tc.config)
			for i := 1; i <= 3; i++ {
				start := time.Now()
				if m := h.poll(); len(m) != 0 {
					t.Fatalf("silent agent published %v", m)
				}
				took := time.Since(start)
				// 2 tries × 150 ms; allow scheduling slack, refuse anything near the interval
				if took < 290*time.Millisecond || took > 900*time.Millisecond {
					t.Errorf("poll %d took %v; want about 300 ms (timeout 150 ms × 2 tries)", i, took)
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
