package collector

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The collector's SCRAM password may come from a file (KAFKA_SASL_PASS_FILE), so that it is
// neither on the command line nor in the environment listing (docs/DEPLOY.md, "Security").
func TestKafkaCredentialsFromAPasswordFile(t *testing.T) {
	file := filepath.Join(t.TempDir(), "cheetah-collector")
	if err := os.WriteFile(file, []byte("s3cret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("KAFKA_SASL_USER", "cheetah-collector")
	t.Setenv("KAFKA_SASL_PASS", "")
	t.Setenv("KAFKA_SASL_PASS_FILE", file)
	user, pass, err := kafkaCredentials()
	if err != nil || user != "cheetah-collector" || pass != "s3cret" {
		t.Fatalf("kafkaCredentials() = %q, %q, %v; want cheetah-collector, s3cret", user, pass, err)
	}
	t.Setenv("KAFKA_SASL_PASS_FILE", filepath.Join(t.TempDir(), "absent"))
	if _, _, err := kafkaCredentials(); err == nil || !strings.Contains(err.Error(), "KAFKA_SASL_PASS_FILE") {
		t.Fatalf("a missing password file: err %v, want one naming KAFKA_SASL_PASS_FILE", err)
	}
	t.Setenv("KAFKA_SASL_PASS_FILE", "")
	if _, _, err := kafkaCredentials(); err == nil {
		t.Fatal("no password at all: want an error")
	}
}
