package integration

import (
	"testing"
	"time"
)

// waitFor re-checks cond every 20 ms until it holds, failing the test with
// cond's description of what it waited for when the deadline passes. This is
// waiting on a condition, not sleeping for one.
func waitFor(t *testing.T, limit time.Duration, cond func() (ok bool, what string)) {
	t.Helper()
	deadline := time.Now().Add(limit)
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		ok, what := cond()
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("gave up after %v waiting for: %s", limit, what)
		}
		<-tick.C
	}
}
