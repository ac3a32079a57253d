package collector

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"
)

// Listener is one entry of -listen, e.g. "netflow://127.0.0.1:2055?workers=1".
// Options are goflow2's: count (sockets), workers, blocking, queue_size.
type Listener struct {
	Scheme    string // sflow, netflow or flow (auto-detect)
	Host      string
	Port      int
	Sockets   int
	Workers   int
	Blocking  bool
	QueueSize int
}

// ParseListen parses a comma-separated -listen value. It differs from stock
// goflow2 in two ways: workers defaults to 1 (more races NetFlow v9
// templates against their data: docs/ENVIRONMENT.md, "goflow2 v2.2.6"), and port 0 is
// refused (goflow2 does not expose the bound port, so nobody could send).
func ParseListen(value string) ([]Listener, error) {
	var out []Listener
	for _, raw := range strings.Split(value, ",") {
		raw = strings.TrimSpace(raw)
		if raw == "" {
			continue
		}
		l, err := parseListener(raw)
		if err != nil {
			return nil, fmt.Errorf("-listen %q: %w", raw, err)
		}
		out = append(out, l)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("-listen is empty: give at least one scheme://host:port, e.g. netflow://127.0.0.1:2055")
	}
	return out, nil
}

func parseListener(raw string) (Listener, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return Listener{}, err
	}
	switch u.Scheme {
	case "sflow", "netflow", "flow":
	default:
		return Listener{}, fmt.Errorf("scheme %q is not one of sflow, netflow, flow", u.Scheme)
	}
	port, err := strconv.ParseUint(u.Port(), 10, 16)
	if err != nil || port == 0 {
		return Listener{}, fmt.Errorf("port %q must be 1-65535", u.Port())
	}
	q := u.Query()
	l := Listener{Scheme: u.Scheme, Host: u.Hostname(), Port: int(port), Sockets: 1, Workers: 1}

	uintOpt := func(name string, dst *int) error {
		if !q.Has(name) {
			return nil
		}
		v, err := strconv.ParseUint(q.Get(name), 10, 31)
		if err != nil {
			return fmt.Errorf("option %s=%q is not a non-negative integer", name, q.Get(name))
		}
		*dst = int(v)
		return nil
	}
	if err := uintOpt("count", &l.Sockets); err != nil {
		return Listener{}, err
	}
	if l.Sockets == 0 {
		l.Sockets = 1
	}
	if err := uintOpt("workers", &l.Workers); err != nil {
		return Listener{}, err
	}
	if l.Workers == 0 {
		l.Workers = 1
	}
	if q.Has("blocking") {
		if l.Blocking, err = strconv.ParseBool(q.Get("blocking")); err != nil {
			return Listener{}, fmt.Errorf("option blocking=%q is not a boolean", q.Get("blocking"))
		}
	}
	// goflow2: non-blocking receivers queue up to 1e6 datagrams; blocking
	// ones hand over synchronously unless queue_size says otherwise.
	if !l.Blocking {
		l.QueueSize = 1000000
	}
	if err := uintOpt("queue_size", &l.QueueSize); err != nil {
		return Listener{}, err
	}
	return l, nil
}
