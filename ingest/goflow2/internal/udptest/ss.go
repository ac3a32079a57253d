// Package udptest holds what the collector's tests read about UDP sockets from outside the
// collector itself, so that they check its own accounting independently.
package udptest

import (
	"os/exec"
	"regexp"
	"strconv"
	"testing"
)

var skmemDrops = regexp.MustCompile(`skmem:\([^)]*\bd(\d+)\)`)

// SSDrops is the kernel's drop count for the UDP socket on port, as `ss` reports it
// (skmem d<N>): read independently of the collector's /proc parsing.
func SSDrops(t testing.TB, port int) int {
	t.Helper()
	out, err := exec.Command("ss", "-uamnH", "sport = :"+strconv.Itoa(port)).CombinedOutput()
	if err != nil {
		t.Fatalf("ss: %v: %s", err, out)
	}
	m := skmemDrops.FindAllStringSubmatch(string(out), -1)
	if len(m) != 1 {
		t.Fatalf("ss shows %d sockets on port %d: %s", len(m), port, out)
	}
	n, _ := strconv.Atoi(m[0][1])
	return n
}
