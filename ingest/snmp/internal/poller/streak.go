package poller

import "time"

// streak tracks consecutive failures of one kind, so that the first failure
// is logged, the rest are only counted, and the recovery is logged with how
// many were missed.
type streak struct {
	n     uint64
	since time.Time
}

// fail records a failure and reports whether it starts a streak (log it).
func (s *streak) fail(now time.Time) (first bool) {
	s.n++
	if s.n == 1 {
		s.since = now
		return true
	}
	return false
}

// recover ends a streak; ok is false when there was none (log nothing).
func (s *streak) recover() (n uint64, since time.Time, ok bool) {
	n, since, ok = s.n, s.since, s.n > 0
	*s = streak{}
	return n, since, ok
}
