package collector

import (
	"os"
	"testing"

	"go.yaml.in/yaml/v2"
)

// The topic names the binary defaults to (for running it by hand) are the
// manifest's: schemas/topics.yaml is the one list of topics.
func TestDefaultTopicsAreTheManifests(t *testing.T) {
	data, err := os.ReadFile("../../../schemas/topics.yaml")
	if err != nil {
		t.Fatalf("reading the topic manifest: %v", err)
	}
	var manifest struct {
		Topics []struct {
			Name string `yaml:"name"`
			ID   string `yaml:"id"`
		} `yaml:"topics"`
	}
	if err := yaml.Unmarshal(data, &manifest); err != nil {
		t.Fatalf("schemas/topics.yaml: %v", err)
	}
	byID := map[string]string{}
	for _, tp := range manifest.Topics {
		byID[tp.ID] = tp.Name
	}
	for _, c := range []struct{ id, got, what string }{
		{"goflow2", DefaultFlowsTopic, "DefaultFlowsTopic (-transport.kafka.topic)"},
		{"rejected", DefaultRejectedTopic, "DefaultRejectedTopic (-rejected.kafka.topic)"},
		{"rejected", DefaultConfig().RejectedTopic, "DefaultConfig().RejectedTopic"},
		{"snmp_counters", DefaultCountersTopic, "DefaultCountersTopic (-counters.kafka.topic)"},
		{"snmp_counters", DefaultConfig().CountersTopic, "DefaultConfig().CountersTopic"},
	} {
		want, ok := byID[c.id]
		if !ok {
			t.Fatalf("schemas/topics.yaml has no topic with id %q", c.id)
		}
		if c.got != want {
			t.Errorf("%s = %q, schemas/topics.yaml says %q (id %s)", c.what, c.got, want, c.id)
		}
	}
}
