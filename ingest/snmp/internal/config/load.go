package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
	"time"
)

// Load reads, defaults and validates the configuration file at path. Errors
// name the file, the target and link, what is wrong and what to do.
func Load(path string) (*Config, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("config %s: %w", path, err)
	}
	return Parse(path, raw)
}

// Parse is Load for bytes already read; name is used in errors.
func Parse(name string, raw []byte) (*Config, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	var c Config
	if err := dec.Decode(&c); err != nil {
		return nil, fmt.Errorf("config %s: %s", name, describeJSONError(raw, err))
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("config %s: unexpected data after the top-level object", name)
	}
	if err := c.defaultAndValidate(); err != nil {
		return nil, fmt.Errorf("config %s: %w", name, err)
	}
	return &c, nil
}

func describeJSONError(raw []byte, err error) string {
	var syn *json.SyntaxError
	if errors.As(err, &syn) {
		line := 1 + bytes.Count(raw[:min(int(syn.Offset), len(raw))], []byte("\n"))
		return fmt.Sprintf("line %d: not valid JSON: %v", line, syn)
	}
	var typ *json.UnmarshalTypeError
	if errors.As(err, &typ) {
		return fmt.Sprintf("field %q: want %s, got JSON %s", typ.Field, typ.Type, typ.Value)
	}
	if strings.HasPrefix(err.Error(), "json: unknown field") {
		return err.Error() + " (known fields are listed in docs/SNMP.md, or run with --help)"
	}
	return err.Error()
}

func (c *Config) defaultAndValidate() error {
	if c.Interval.D == 0 {
		c.Interval.D = DefaultInterval
	}
	if c.Timeout.D == 0 {
		c.Timeout.D = DefaultTimeout
	}
	if c.Retries == nil {
		r := DefaultRetries
		c.Retries = &r
	}
	if err := checkTiming("", c.Interval.D, c.Timeout.D, *c.Retries); err != nil {
		return err
	}
	if len(c.Targets) == 0 {
		return errors.New("no targets: add at least one entry to \"targets\"")
	}
	links := map[string]string{}
	for i := range c.Targets {
		t := &c.Targets[i]
		where := fmt.Sprintf("targets[%d]", i)
		if t.Device != "" {
			where += fmt.Sprintf(" (%s)", t.Device)
		}
		if err := t.defaultAndValidate(c); err != nil {
			return fmt.Errorf("%s: %w", where, err)
		}
		for j, l := range t.Links {
			if prev, dup := links[l.ID]; dup {
				return fmt.Errorf("%s links[%d]: link id %q is also used by %s: link ids are Kafka keys and must be unique", where, j, l.ID, prev)
			}
			links[l.ID] = fmt.Sprintf("%s links[%d]", where, j)
		}
	}
	return nil
}

func checkTiming(where string, interval, timeout time.Duration, retries int) error {
	if interval < 0 || timeout < 0 {
		return fmt.Errorf("%sinterval and timeout must be positive", where)
	}
	if retries < 0 || retries > 10 {
		return fmt.Errorf("%sretries %d: want 0..10", where, retries)
	}
	// Polls of one target never overlap: the worst case of one poll (every
	// retry timing out) must fit in the interval.
	if worst := timeout * time.Duration(retries+1); worst >= interval {
		return fmt.Errorf("%stimeout %v x (retries %d + 1) = %v must be shorter than the interval %v: lower timeout/retries or raise the interval", where, timeout, retries, worst, interval)
	}
	return nil
}

func (t *Target) defaultAndValidate(c *Config) error {
	if err := t.parseAddress(); err != nil {
		return err
	}
	if t.Device == "" {
		t.Device = t.Host
	}
	if err := checkTiming("", t.EffectiveInterval(c), t.EffectiveTimeout(c), t.EffectiveRetries(c)); err != nil {
		return err
	}
	switch t.Version {
	case "2c", "v2c":
		t.Version = "2c"
		if t.V3 != nil {
			return errors.New("version 2c with a \"v3\" block: set \"version\": \"3\" or drop the block")
		}
		secret, err := resolveSecret(t.Community)
		if err != nil {
			return fmt.Errorf("community: %w", err)
		}
		if secret == "" {
			return errors.New("version 2c needs a \"community\"")
		}
		t.Community = secret
	case "3", "v3":
		t.Version = "3"
		if t.Community != "" {
			return errors.New("version 3 uses \"v3\", not \"community\"")
		}
		if t.V3 == nil {
			return errors.New("version 3 needs a \"v3\" block (user, auth_protocol, auth_passphrase, priv_protocol, priv_passphrase)")
		}
		if err := t.V3.defaultAndValidate(); err != nil {
			return fmt.Errorf("v3: %w", err)
		}
	case "":
		return errors.New("missing \"version\": use \"2c\" or \"3\"")
	default:
		return fmt.Errorf("version %q: use \"2c\" or \"3\" (SNMPv1 has no 64-bit counters)", t.Version)
	}
	if len(t.Links) == 0 {
		return errors.New("no links: add at least one {\"id\": ..., \"if_index\" or \"if_name\": ...}")
	}
	for j := range t.Links {
		l := &t.Links[j]
		if l.ID == "" {
			return fmt.Errorf("links[%d]: missing \"id\"", j)
		}
		if (l.IfIndex == 0) == (l.IfName == "") {
			return fmt.Errorf("links[%d] (%s): give exactly one of \"if_index\" (>= 1) or \"if_name\"", j, l.ID)
		}
	}
	return nil
}

func (t *Target) parseAddress() error {
	if t.Address == "" {
		return errors.New("missing \"address\" (host:port of the SNMP agent)")
	}
	host, port, err := net.SplitHostPort(t.Address)
	if err != nil {
		// no port given
		host, port = strings.Trim(t.Address, "[]"), strconv.Itoa(DefaultPort)
	}
	p, err := strconv.ParseUint(port, 10, 16)
	if err != nil || p == 0 {
		return fmt.Errorf("address %q: port %q is not 1..65535", t.Address, port)
	}
	if host == "" {
		return fmt.Errorf("address %q: no host", t.Address)
	}
	t.Host, t.Port = host, uint16(p)
	return nil
}

var (
	authProtocols = []string{"MD5", "SHA", "SHA224", "SHA256", "SHA384", "SHA512"}
	privProtocols = []string{"DES", "AES", "AES192", "AES256", "AES192C", "AES256C"}
)

func (v *V3) defaultAndValidate() error {
	if v.User == "" {
		return errors.New("missing \"user\"")
	}
	if v.Level == "" {
		v.Level = "authPriv"
	}
	var err error
	if v.AuthPassphrase, err = resolveSecret(v.AuthPassphrase); err != nil {
		return fmt.Errorf("auth_passphrase: %w", err)
	}
	if v.PrivPassphrase, err = resolveSecret(v.PrivPassphrase); err != nil {
		return fmt.Errorf("priv_passphrase: %w", err)
	}
	needAuth, needPriv := false, false
	switch v.Level {
	case "noAuthNoPriv":
	case "authNoPriv":
		needAuth = true
	case "authPriv":
		needAuth, needPriv = true, true
	default:
		return fmt.Errorf("level %q: use authPriv, authNoPriv or noAuthNoPriv", v.Level)
	}
	if needAuth {
		v.AuthProtocol = strings.ToUpper(v.AuthProtocol)
		if !contains(authProtocols, v.AuthProtocol) {
			return fmt.Errorf("auth_protocol %q: use one of %s", v.AuthProtocol, strings.Join(authProtocols, ", "))
		}
		// RFC 3414 2.6: passphrases shorter than 8 characters are refused by agents.
		if len(v.AuthPassphrase) < 8 {
			return errors.New("auth_passphrase: at least 8 characters (RFC 3414)")
		}
	}
	if needPriv {
		v.PrivProtocol = strings.ToUpper(v.PrivProtocol)
		if !contains(privProtocols, v.PrivProtocol) {
			return fmt.Errorf("priv_protocol %q: use one of %s", v.PrivProtocol, strings.Join(privProtocols, ", "))
		}
		if len(v.PrivPassphrase) < 8 {
			return errors.New("priv_passphrase: at least 8 characters (RFC 3414)")
		}
	}
	return nil
}

// resolveSecret reads "env:NAME" from the environment, so that a config file
// need not hold community strings or passphrases.
func resolveSecret(s string) (string, error) {
	name, ok := strings.CutPrefix(s, "env:")
	if !ok {
		return s, nil
	}
	v, set := os.LookupEnv(name)
	if !set {
		return "", fmt.Errorf("environment variable %s (from %q) is not set", name, s)
	}
	return v, nil
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}
