package main

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// The default topic is the one schemas/topics.yaml (the one list of topics) gives to the
// poller: it names the poller among its producers and carries SnmpCounters. The manifest is
// read with a regex, independently of any generated code.
func TestDefaultTopicIsTheManifests(t *testing.T) {
	raw, err := os.ReadFile("../../../../schemas/topics.yaml")
	if err != nil {
		t.Fatal(err)
	}
	blocks := regexp.MustCompile(`(?m)^  - name: `).Split(string(raw), -1)
	var ours []string
	for _, b := range blocks[1:] {
		name := strings.TrimSpace(strings.SplitN(b, "\n", 2)[0])
		producers := regexp.MustCompile(`(?m)^    producers: \[(.*)\]$`).FindStringSubmatch(b)
		if producers != nil && strings.Contains(producers[1], "snmp poller") {
			ours = append(ours, name)
			if !strings.Contains(b, "message: cheetah/v1/snmp.proto:SnmpCounters") {
				t.Errorf("%s: the poller writes SnmpCounters, the manifest says otherwise", name)
			}
		}
	}
	if len(ours) != 1 || ours[0] != defaultTopic {
		t.Fatalf("topics the manifest says the poller writes: %v; the poller's default: %s", ours, defaultTopic)
	}
}
