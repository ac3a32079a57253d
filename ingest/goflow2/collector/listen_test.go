package collector

import (
	"strings"
	"testing"
)

func TestParseListen(t *testing.T) {
	got, err := ParseListen("netflow://127.0.0.1:2055, sflow://[::1]:6343?count=2&workers=3&blocking=true,flow://:9995?queue_size=10")
	if err != nil {
		t.Fatal(err)
	}
	want := []Listener{
		{Scheme: "netflow", Host: "127.0.0.1", Port: 2055, Sockets: 1, Workers: 1, QueueSize: 1000000},
		{Scheme: "sflow", Host: "::1", Port: 6343, Sockets: 2, Workers: 3, Blocking: true},
		{Scheme: "flow", Host: "", Port: 9995, Sockets: 1, Workers: 1, QueueSize: 10},
	}
	if len(got) != len(want) {
		t.Fatalf("got %+v", got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("listener %d = %+v, want %+v", i, got[i], want[i])
		}
	}
	for value, msg := range map[string]string{
		"":                            "empty",
		"netflow://127.0.0.1":         "must be 1-65535",
		"netflow://127.0.0.1:70000":   "must be 1-65535",
		"nf://127.0.0.1:2055":         "not one of",
		"netflow://h:1?blocking=mayb": "blocking",
		"netflow://h:1?count=-1":      "count",
	} {
		if _, err := ParseListen(value); err == nil || !strings.Contains(err.Error(), msg) {
			t.Errorf("ParseListen(%q) = %v, want error containing %q", value, err, msg)
		}
	}
}
