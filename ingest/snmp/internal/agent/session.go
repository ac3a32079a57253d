package agent

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"cheetah/ingest/snmp/internal/config"

	"github.com/gosnmp/gosnmp"
)

// Session is an SNMP session to one target. Not safe for concurrent use: one
// goroutine polls one target.
type Session struct {
	snmp *gosnmp.GoSNMP
}

// ErrTimeout marks a request that got no answer after every retry.
var ErrTimeout = errors.New("no answer")

// Open prepares a UDP session (UDP has no handshake: an agent that is down is
// only noticed by the first request timing out).
func Open(t *config.Target, timeout time.Duration, retries int) (*Session, error) {
	g := &gosnmp.GoSNMP{
		Target:    t.Host,
		Port:      t.Port,
		Transport: "udp",
		Timeout:   timeout,
		Retries:   retries,
		MaxOids:   gosnmp.MaxOids,
	}
	switch t.Version {
	case "2c":
		g.Version = gosnmp.Version2c
		g.Community = t.Community
	case "3":
		g.Version = gosnmp.Version3
		g.SecurityModel = gosnmp.UserSecurityModel
		g.ContextName = t.V3.ContextName
		usm := &gosnmp.UsmSecurityParameters{UserName: t.V3.User}
		switch t.V3.Level {
		case "noAuthNoPriv":
			g.MsgFlags = gosnmp.NoAuthNoPriv
		case "authNoPriv":
			g.MsgFlags = gosnmp.AuthNoPriv
		default:
			g.MsgFlags = gosnmp.AuthPriv
		}
		if g.MsgFlags != gosnmp.NoAuthNoPriv {
			usm.AuthenticationProtocol = authProtocol(t.V3.AuthProtocol)
			usm.AuthenticationPassphrase = t.V3.AuthPassphrase
		}
		if g.MsgFlags == gosnmp.AuthPriv {
			usm.PrivacyProtocol = privProtocol(t.V3.PrivProtocol)
			usm.PrivacyPassphrase = t.V3.PrivPassphrase
		}
		g.SecurityParameters = usm
	default:
		return nil, fmt.Errorf("SNMP version %q not supported", t.Version)
	}
	if err := g.Connect(); err != nil {
		return nil, fmt.Errorf("%s: %w", t.Endpoint(), err)
	}
	return &Session{snmp: g}, nil
}

// Close releases the socket.
func (s *Session) Close() {
	if s.snmp.Conn != nil {
		_ = s.snmp.Conn.Close()
	}
}

// get sends one GET and classifies a timeout as ErrTimeout.
func (s *Session) get(oids []string) (*gosnmp.SnmpPacket, error) {
	pkt, err := s.snmp.Get(oids)
	if err != nil {
		if isTimeout(err) {
			return nil, fmt.Errorf("%w after %d tries of %v: %v", ErrTimeout, s.snmp.Retries+1, s.snmp.Timeout, err)
		}
		return nil, err
	}
	if pkt.Error != gosnmp.NoError {
		return nil, fmt.Errorf("agent answered error-status %v (index %d)", pkt.Error, pkt.ErrorIndex)
	}
	return pkt, nil
}

func isTimeout(err error) bool {
	if errors.Is(err, gosnmp.ErrMaxRetriesExceeded) {
		return true
	}
	// gosnmp reports some timeouts only in the text (e.g. v3 engine discovery).
	return strings.Contains(err.Error(), "timeout")
}

func authProtocol(name string) gosnmp.SnmpV3AuthProtocol {
	switch name {
	case "MD5":
		return gosnmp.MD5
	case "SHA224":
		return gosnmp.SHA224
	case "SHA256":
		return gosnmp.SHA256
	case "SHA384":
		return gosnmp.SHA384
	case "SHA512":
		return gosnmp.SHA512
	}
	return gosnmp.SHA
}

func privProtocol(name string) gosnmp.SnmpV3PrivProtocol {
	switch name {
	case "DES":
		return gosnmp.DES
	case "AES192":
		return gosnmp.AES192
	case "AES256":
		return gosnmp.AES256
	case "AES192C":
		return gosnmp.AES192C
	case "AES256C":
		return gosnmp.AES256C
	}
	return gosnmp.AES
}
