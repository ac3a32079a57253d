package poller

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"cheetah/ingest/snmp/gen/cheetahv1"
	"cheetah/ingest/snmp/internal/agent"
	"cheetah/ingest/snmp/internal/config"
	"cheetah/ingest/snmp/internal/monotonic"
)

// Sink receives the messages of every poll. Publish must not block for long:
// a Kafka sink buffers (bounded) and counts what it cannot keep.
type Sink interface {
	Publish(msg *cheetahv1.SnmpCounters)
}

// Target polls the links of one SNMP agent. Inert until Poll or Run.
type Target struct {
	cfg      *config.Target
	interval time.Duration
	timeout  time.Duration
	retries  int
	stats    *Stats
	log      *slog.Logger

	session *agent.Session
	// sessionAnswered: the current session got an answer before
	sessionAnswered bool
	uptime          monotonic.UptimeWatch
	links           []*link
	failures        streak
	// resolveNames: (re)resolve if_name links before the next read (at
	// start, and after the agent restarted: ifIndexes may have moved).
	resolveNames bool
}

// NewTarget prepares polling of one configured target.
func NewTarget(c *config.Config, t *config.Target, stats *Stats, log *slog.Logger) *Target {
	tg := &Target{
		cfg:          t,
		interval:     t.EffectiveInterval(c),
		timeout:      t.EffectiveTimeout(c),
		retries:      t.EffectiveRetries(c),
		stats:        stats,
		log:          log.With("device", t.Device, "agent", t.Endpoint()),
		resolveNames: true,
	}
	for _, l := range t.Links {
		tg.links = append(tg.links, &link{cfg: l, ifIndex: l.IfIndex})
	}
	return tg
}

// Run polls now and then every interval until ctx is done.
func (t *Target) Run(ctx context.Context, sink Sink) {
	defer t.Close()
	tick := time.NewTicker(t.interval)
	defer tick.Stop()
	for {
		for _, m := range t.Poll() {
			sink.Publish(m)
			t.stats.Messages.Add(1)
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// Close releases the SNMP socket.
func (t *Target) Close() {
	if t.session != nil {
		t.session.Close()
		t.session = nil
	}
}

// Poll reads every link once and returns one message per link that the agent
// answered for. It never panics on agent behaviour and never blocks longer
// than timeout × (retries + 1) per request.
func (t *Target) Poll() []*cheetahv1.SnmpCounters {
	t.stats.Polls.Add(1)
	now := time.Now()
	if t.session == nil {
		s, err := agent.Open(t.cfg, t.timeout, t.retries)
		if err != nil {
			t.failed(now, err)
			return nil
		}
		t.session = s
	}
	if t.resolveNames {
		if err := t.resolve(now); err != nil {
			t.failed(now, err)
			return nil
		}
	}

	indexes := t.pollIndexes()
	if len(indexes) == 0 {
		// every link is an unresolved name: counted in resolve(); try again
		t.resolveNames = true
		return nil
	}
	samples, err := t.session.Read(indexes)
	if len(samples) == 0 && err != nil && !errors.Is(err, agent.ErrTimeout) && t.sessionAnswered {
		// A v3 session goes stale when the agent restarts (new engine boots
		// and time: gosnmp then refuses the answers as not authentic). A fresh
		// session rediscovers the engine; one immediate retry costs one round
		// trip, where giving up would cost a poll.
		t.log.Debug("request failed on an established session; retrying once on a new one", "err", err)
		t.Close()
		if t.session, err = agent.Open(t.cfg, t.timeout, t.retries); err != nil {
			t.failed(now, err)
			return nil
		}
		samples, err = t.session.Read(indexes)
	}
	t.sessionAnswered = len(samples) > 0
	if len(samples) == 0 {
		t.failed(now, err)
		return nil
	}
	if err != nil {
		// some requests answered, some not: publish what came, count the rest
		t.countFailure(err)
		t.log.Warn("part of the poll failed; links in the failed request are skipped this time", "err", err)
	}
	t.recovered()
	restarted := t.checkUptime(&samples[0])

	byIndex := map[uint32]*agent.Interface{}
	sampleOf := map[uint32]*agent.Sample{}
	for si := range samples {
		for ii := range samples[si].Interfaces {
			iface := &samples[si].Interfaces[ii]
			byIndex[iface.Index] = iface
			sampleOf[iface.Index] = &samples[si]
		}
	}
	var out []*cheetahv1.SnmpCounters
	for _, l := range t.links {
		iface, ok := byIndex[l.ifIndex]
		if l.ifIndex == 0 || !ok {
			continue
		}
		var ev foldEvents
		complete := l.fold(iface, restarted, &ev)
		t.countEvents(l, &ev)
		t.reportValues(l, iface, &ev, now)
		if !complete {
			t.stats.SamplesSkipped.Add(1)
			continue
		}
		s := sampleOf[l.ifIndex]
		out = append(out, l.message(t.cfg.Device, uint64(s.Received.UnixMilli()), s.Uptime))
	}
	return out
}

// pollIndexes lists each resolved ifIndex once.
func (t *Target) pollIndexes() []uint32 {
	seen := map[uint32]bool{}
	var idx []uint32
	for _, l := range t.links {
		if l.ifIndex != 0 && !seen[l.ifIndex] {
			seen[l.ifIndex] = true
			idx = append(idx, l.ifIndex)
		}
	}
	return idx
}

// resolve maps if_name links to ifIndexes. A name that does not resolve is
// counted and logged once per streak; its link is skipped until it does.
func (t *Target) resolve(now time.Time) error {
	named := false
	for _, l := range t.links {
		named = named || l.cfg.IfName != ""
	}
	if !named {
		t.resolveNames = false
		return nil
	}
	names, err := t.session.WalkNames()
	if err != nil {
		return err
	}
	t.resolveNames = false
	for _, l := range t.links {
		if l.cfg.IfName == "" {
			continue
		}
		idx, err := names.Resolve(l.cfg.IfName)
		if err != nil {
			t.stats.ResolveFailures.Add(1)
			t.resolveNames = true // try again next poll
			if l.unresolved.fail(now) {
				t.log.Error("link not polled: its if_name does not resolve; fix \"if_name\" or use \"if_index\" (retrying every poll, logged once)", "link", l.cfg.ID, "err", err)
			}
			l.ifIndex = 0
			continue
		}
		if n, since, ok := l.unresolved.recover(); ok {
			t.log.Info("link resolved after failing", "link", l.cfg.ID, "if_name", l.cfg.IfName, "if_index", idx, "failed_polls", n, "since", since.Format(time.RFC3339))
		}
		if l.ifIndex != 0 && l.ifIndex != idx {
			t.log.Warn("link moved to another ifIndex; its counters restart from a new baseline", "link", l.cfg.ID, "if_name", l.cfg.IfName, "old_if_index", l.ifIndex, "if_index", idx)
			l.indexChanged = true
		}
		l.ifIndex = idx
	}
	return nil
}

// checkUptime decides from sysUpTime whether the agent restarted since the
// previous poll.
func (t *Target) checkUptime(s *agent.Sample) (restarted bool) {
	if s.UptimeMissing != "" {
		// cannot tell: assume it kept running (a decrease in a counter is then
		// still read as a wrap or a reset by the half-range rule)
		t.stats.MissingValues.Add(1)
		t.log.Warn("sysUpTime.0 missing: agent restarts cannot be detected", "reason", s.UptimeMissing)
		return false
	}
	switch t.uptime.Observe(s.Uptime, s.Sent, s.Received) {
	case monotonic.UptimeRestarted:
		t.stats.Restarts.Add(1)
		t.log.Warn("agent restarted (sysUpTime); counters of this poll are a new baseline, this interval adds 0", "sys_uptime_ticks", s.Uptime)
		t.resolveNames = true
		return true
	case monotonic.UptimeWrapped:
		t.stats.UptimeWraps.Add(1)
	}
	return false
}

// reportValues counts every required value the agent did not give or that
// the poller refused (absent, wrong type, implausible), and logs it once per
// (link, object) streak with the OID and the reason.
func (t *Target) reportValues(l *link, iface *agent.Interface, ev *foldEvents, now time.Time) {
	for _, o := range agent.Objects {
		if o.Optional() {
			continue
		}
		reason, implausible := iface.Values[o].Missing, false
		for i, c := range counterObjects {
			if c == o && ev.implausible[i] != "" {
				reason, implausible = ev.implausible[i], true
			}
		}
		if reason == "" {
			if n, since, ok := l.missing[o].recover(); ok {
				t.log.Info("value usable again", "link", l.cfg.ID, "object", o.OID(iface.Index), "name", o.String(), "unusable_polls", n, "since", since.Format(time.RFC3339))
			}
			continue
		}
		if implausible {
			t.stats.ImplausibleValues.Add(1)
		} else {
			t.stats.MissingValues.Add(1)
		}
		if !l.missing[o].fail(now) {
			continue
		}
		what := "value unusable; the link is not published until its three counters are usable again, then the totals carry the interval (logged once per streak)"
		if !o.IsCounter() {
			what = "value unusable; the last one read is published meanwhile (logged once per streak)"
		}
		t.log.Warn(what, "link", l.cfg.ID, "object", o.OID(iface.Index), "name", o.String(), "reason", reason)
	}
}

func (t *Target) countEvents(l *link, ev *foldEvents) {
	t.stats.Wraps.Add(ev.wraps)
	t.stats.CounterResets.Add(ev.resets)
	if ev.resets > 0 {
		t.log.Warn("counter went back without an agent restart; new baseline, this interval adds 0", "link", l.cfg.ID)
	}
	if ev.discontinuity {
		t.stats.Discontinuities.Add(1)
		t.log.Warn("counter discontinuity (ifCounterDiscontinuityTime or ifIndex changed); new baseline", "link", l.cfg.ID)
	}
}

// failed counts a poll that produced nothing, logs the first of a streak,
// and drops the session so the next poll starts afresh (a new socket, and for
// v3 a new engine discovery after an agent restart).
func (t *Target) failed(now time.Time, err error) {
	t.stats.PollsFailed.Add(1)
	t.countFailure(err)
	if t.failures.fail(now) {
		t.log.Error("poll failed; retrying every interval, further failures are counted, not logged, until it answers", "err", err, "interval", t.interval)
	}
	t.Close()
}

func (t *Target) countFailure(err error) {
	if errors.Is(err, agent.ErrTimeout) {
		t.stats.Timeouts.Add(1)
	} else {
		t.stats.Errors.Add(1)
	}
}

func (t *Target) recovered() {
	if n, since, ok := t.failures.recover(); ok {
		t.log.Info("agent answering again", "failed_polls", n, "since", since.Format(time.RFC3339))
	}
}
