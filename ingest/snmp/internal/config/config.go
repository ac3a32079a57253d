// Package config is the poller's one typed configuration: the targets (SNMP
// agents), how to reach them, and which links to poll on each. It is read
// from a JSON file (docs/SNMP.md, "Configuration"); defaults live here only.
package config

import (
	"fmt"
	"net"
	"strconv"
	"time"
)

// Defaults (docs/SNMP.md).
const (
	DefaultInterval = 10 * time.Second
	DefaultTimeout  = 2 * time.Second
	DefaultRetries  = 1
	DefaultPort     = 161
)

// Config is the whole file.
type Config struct {
	// Interval between polls of every target, unless a target overrides it.
	Interval Duration `json:"interval"`
	// Timeout of one SNMP request (each retry waits this long again).
	Timeout Duration `json:"timeout"`
	// Retries after a request timed out, before the poll counts as a timeout.
	Retries *int     `json:"retries"`
	Targets []Target `json:"targets"`
}

// Target is one SNMP agent (a router, a switch, a host running snmpd).
type Target struct {
	// Device names the agent in published messages (SnmpCounters.device).
	// Default: the host part of Address.
	Device string `json:"device"`
	// Address is host:port or host (port 161); IPv6 as [addr]:port.
	Address   string    `json:"address"`
	Version   string    `json:"version"` // "2c" or "3"
	Community string    `json:"community"`
	V3        *V3       `json:"v3"`
	Interval  *Duration `json:"interval"`
	Timeout   *Duration `json:"timeout"`
	Retries   *int      `json:"retries"`
	Links     []Link    `json:"links"`

	// Resolved by Load.
	Host string `json:"-"`
	Port uint16 `json:"-"`
}

// V3 is an SNMPv3 user (USM).
type V3 struct {
	User string `json:"user"`
	// Level: "noAuthNoPriv", "authNoPriv" or "authPriv" (default authPriv).
	Level          string `json:"level"`
	AuthProtocol   string `json:"auth_protocol"` // MD5, SHA, SHA224, SHA256, SHA384, SHA512
	AuthPassphrase string `json:"auth_passphrase"`
	PrivProtocol   string `json:"priv_protocol"` // DES, AES, AES192, AES256, AES192C, AES256C
	PrivPassphrase string `json:"priv_passphrase"`
	ContextName    string `json:"context_name"`
}

// Link is one interface of a target, published under its own id.
type Link struct {
	// ID is the Kafka key and SnmpCounters.link_id, shared with the probe and
	// the flow jobs (schemas/topics.yaml: key = link id).
	ID string `json:"id"`
	// Exactly one of IfIndex or IfName. IfName is matched against ifName, then
	// ifDescr, when the poller starts and again after the agent restarts.
	IfIndex uint32 `json:"if_index"`
	IfName  string `json:"if_name"`
}

// EffectiveInterval, EffectiveTimeout, EffectiveRetries apply the target's
// override or the file's value (itself defaulted by Load).
func (t *Target) EffectiveInterval(c *Config) time.Duration {
	if t.Interval != nil {
		return t.Interval.D
	}
	return c.Interval.D
}

func (t *Target) EffectiveTimeout(c *Config) time.Duration {
	if t.Timeout != nil {
		return t.Timeout.D
	}
	return c.Timeout.D
}

func (t *Target) EffectiveRetries(c *Config) int {
	if t.Retries != nil {
		return *t.Retries
	}
	return *c.Retries
}

// Endpoint is host:port for logs.
func (t *Target) Endpoint() string {
	return net.JoinHostPort(t.Host, strconv.Itoa(int(t.Port)))
}

// Duration is a time.Duration written as a Go duration string ("10s", "1m30s").
type Duration struct{ D time.Duration }

func (d *Duration) UnmarshalJSON(b []byte) error {
	s, err := strconv.Unquote(string(b))
	if err != nil {
		return fmt.Errorf("want a duration string such as \"10s\", got %s", b)
	}
	v, err := time.ParseDuration(s)
	if err != nil {
		return fmt.Errorf("want a duration such as \"10s\" or \"500ms\", got %q", s)
	}
	d.D = v
	return nil
}

func (d Duration) MarshalJSON() ([]byte, error) {
	return []byte(strconv.Quote(d.D.String())), nil
}
