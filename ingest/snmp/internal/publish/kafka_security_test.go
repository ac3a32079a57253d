package publish

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The poller's Kafka credentials (docs/DEPLOY.md, "Security"): none by default; a CA file and a
// password file each become a client option; bad files are refused, naming the flag.
func TestSecurityOptions(t *testing.T) {
	if opts, err := securityOptions(KafkaConfig{}); err != nil || len(opts) != 0 {
		t.Fatalf("defaults: %d options, %v; want none", len(opts), err)
	}
	dir := t.TempDir()
	pw := filepath.Join(dir, "cheetah-snmp-poller")
	if err := os.WriteFile(pw, []byte("s3cret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if opts, err := securityOptions(KafkaConfig{SASLUser: "cheetah-snmp-poller", SASLPasswordFile: pw}); err != nil || len(opts) != 1 {
		t.Fatalf("SASL: %d options, %v; want 1", len(opts), err)
	}
	notPEM := filepath.Join(dir, "ca.pem")
	if err := os.WriteFile(notPEM, []byte("not a certificate"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		cfg  KafkaConfig
		want string
	}{
		{KafkaConfig{TLSCAFile: filepath.Join(dir, "absent.pem")}, "--kafka-tls-ca"},
		{KafkaConfig{TLSCAFile: notPEM}, "no PEM certificate"},
		{KafkaConfig{SASLUser: "u", SASLPasswordFile: filepath.Join(dir, "absent")}, "--kafka-sasl-password-file"},
	} {
		if _, err := securityOptions(c.cfg); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: err %v, want one containing %q", c.cfg, err, c.want)
		}
	}
}
