package integration

import (
	"bytes"
	"fmt"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"

	"cheetah/ingest/snmp/gen/cheetahv1"
	"cheetah/ingest/snmp/internal/config"
	"cheetah/ingest/snmp/internal/poller"
)

// lockedBuffer collects the poller's log lines for assertions.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// count is how many log lines contain s.
func (l *lockedBuffer) count(s string) int { return strings.Count(l.String(), s) }

type harness struct {
	target *poller.Target
	stats  *poller.Stats
	log    *lockedBuffer
}

// newHarness parses a one-target config file (JSON, as a user writes it) and
// prepares the target.
func newHarness(t *testing.T, configJSON string) *harness {
	t.Helper()
	cfg, err := config.Parse(t.Name()+".json", []byte(configJSON))
	if err != nil {
		t.Fatalf("config: %v", err)
	}
	h := &harness{stats: &poller.Stats{}, log: &lockedBuffer{}}
	log := slog.New(slog.NewTextHandler(h.log, nil))
	h.target = poller.NewTarget(cfg, &cfg.Targets[0], h.stats, log)
	t.Cleanup(h.target.Close)
	return h
}

// poll polls once and returns the messages by link id.
func (h *harness) poll() map[string]*cheetahv1.SnmpCounters {
	out := map[string]*cheetahv1.SnmpCounters{}
	for _, m := range h.target.Poll() {
		out[m.GetLinkId()] = m
	}
	return out
}

func v2cTarget(a *snmpd, links string) string {
	return fmt.Sprintf(`{"interval": "10s", "timeout": "500ms", "retries": 1, "targets": [
	  {"device": "test-agent", "address": "127.0.0.1:%d", "version": "2c", "community": %q, "links": [%s]}]}`,
		a.Port, roCommunity, links)
}

func v3Target(port uint16, authPass, links string) string {
	return fmt.Sprintf(`{"interval": "10s", "timeout": "500ms", "retries": 1, "targets": [
	  {"device": "test-agent-v3", "address": "127.0.0.1:%d", "version": "3",
	   "v3": {"user": %q, "level": "authPriv", "auth_protocol": "SHA", "auth_passphrase": %q,
	          "priv_protocol": "AES", "priv_passphrase": %q},
	   "links": [%s]}]}`, port, v3User, authPass, v3PrivPass, links)
}

// delta is what a consumer computes from two messages of one link.
type delta struct{ octets, packets, discards uint64 }

func deltaOf(a, b *cheetahv1.SnmpCounters) delta {
	return delta{b.GetIfHcOutOctets() - a.GetIfHcOutOctets(), b.GetIfHcOutUcastPkts() - a.GetIfHcOutUcastPkts(),
		b.GetIfOutDiscards() - a.GetIfOutDiscards()}
}

func sysfsSpeed(t *testing.T, dev string) uint64 {
	t.Helper()
	b, err := os.ReadFile("/sys/class/net/" + dev + "/speed")
	if err != nil {
		t.Fatalf("speed of %s: %v", dev, err)
	}
	v, err := strconv.ParseUint(strings.TrimSpace(string(b)), 10, 64)
	if err != nil {
		t.Fatalf("speed of %s: %v", dev, err)
	}
	return v
}
