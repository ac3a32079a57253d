package main

import (
	"os"
	"path/filepath"
	"testing"
)

// Exit statuses of the documented contract: 0 help, 2 bad flags, 1 bad config.
func TestExitStatuses(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(bad, []byte(`{"targets": []}`), 0o600); err != nil {
		t.Fatal(err)
	}
	good := filepath.Join(dir, "good.json")
	if err := os.WriteFile(good, []byte(`{"targets": [{"address": "127.0.0.1:9", "version": "2c", "community": "c", "links": [{"id": "a", "if_index": 1}]}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want int
	}{
		{[]string{"--help"}, 0},
		{[]string{"--version"}, 0},
		{[]string{}, 2},                                   // no --config
		{[]string{"--config", good, "--no-such-flag"}, 2}, // unknown flag
		{[]string{"--config", good, "--brokers", ""}, 2},  // publishes nowhere
		{[]string{"--config", good, "--log-level", "loud"}, 2},
		{[]string{"--config", bad}, 1},
		// the agent refuses (port 9, ICMP unreachable): no message, status 3
		{[]string{"--config", good, "--once", "--brokers", "", "--print"}, 3},
		{[]string{"--config", filepath.Join(dir, "missing.json")}, 1},
	} {
		if got := run(tc.args); got != tc.want {
			t.Errorf("run(%q) = %d, want %d", tc.args, got, tc.want)
		}
	}
}
