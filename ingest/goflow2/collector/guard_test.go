package collector

import (
	"encoding/base64"
	"fmt"
	"testing"
	"time"

	"cheetah/ingest/goflow2/internal/flowtest"
)

// sflowExpanded is an sFlow v5 datagram with one expanded flow sample
// declaring count records (and carrying none).
func sflowExpanded(count uint32) []byte {
	sample := flowtest.Be(uint32(1), uint32(0), uint32(1), uint32(1), uint32(1), uint32(0),
		uint32(0), uint32(1), uint32(0), uint32(2), count)
	return append(flowtest.Be(uint32(5), uint32(1), uint32(0x7f000001), uint32(0), uint32(1), uint32(100),
		uint32(1), uint32(sflowExpandedFlow), uint32(len(sample))), sample...)
}

// feedWithin fails the test if the decoder does not return in time (the
// hazards below hang or exhaust memory without the guard).
func feedWithin(t *testing.T, c *chain, payload []byte) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- c.feed(payload) }()
	select {
	case err := <-done:
		return err
	case <-time.After(5 * time.Second):
		t.Fatal("decoder did not return within 5s: the guard let a hazard through")
		return nil
	}
}

func TestGuardRefusesWhatGoflow2CannotSurvive(t *testing.T) {
	data := flowtest.Set{ID: 256, Body: make([]byte, 8)}
	cases := []struct {
		name, scheme string
		payload      []byte
		reason       string
	}{
		{"v9 template without fields", "netflow",
			flowtest.V9(1, 2, flowtest.TemplateSet(0, 256), data), ReasonUnsupportedTemplate},
		{"v9 template with only length-0 fields", "netflow",
			flowtest.V9(1, 1, flowtest.TemplateSet(0, 256, flowtest.Field{Type: 1, Length: 0}, flowtest.Field{Type: 2, Length: 0})), ReasonUnsupportedTemplate},
		{"v9 options template without fields", "netflow",
			flowtest.V9(1, 1, flowtest.Set{ID: 1, Body: flowtest.Be(uint16(300), uint16(0), uint16(0))}), ReasonUnsupportedTemplate},
		{"ipfix template withdrawal", "netflow",
			flowtest.IPFIX(1, -1, flowtest.TemplateSet(2, 256)), ReasonUnsupportedTemplate},
		{"ipfix options template of length-0 fields", "netflow",
			flowtest.IPFIX(1, -1, flowtest.Set{ID: 3, Body: flowtest.Be(uint16(400), uint16(1), uint16(1), uint16(1), uint16(0))}), ReasonUnsupportedTemplate},
		{"flow scheme: v9 template without fields", "flow",
			flowtest.V9(1, 2, flowtest.TemplateSet(0, 256), data), ReasonUnsupportedTemplate},
		{"sflow expanded flow sample, 2^32-1 records", "sflow", sflowExpanded(0xffffffff), ReasonMalformed},
		{"flow scheme: sflow expanded flow sample", "flow", sflowExpanded(1 << 30), ReasonMalformed},
	}
	for _, tc := range cases {
		for _, strict := range []bool{true, false} {
			t.Run(fmt.Sprintf("%s/strict=%v", tc.name, strict), func(t *testing.T) {
				c := newChain(t, tc.scheme, strict, &memTransport{}, quietLogger())
				if err := feedWithin(t, c, tc.payload); err == nil {
					t.Fatal("accepted")
				}
				// Data for the refused template must not hang either: goflow2 never stored it.
				if tc.scheme != "sflow" {
					_ = feedWithin(t, c, flowtest.V9(1, 1, data))
				}
				got := c.events.rejected(t)
				if len(got) == 0 || got[0].Reason != tc.reason || got[0].PayloadB64 != base64.StdEncoding.EncodeToString(tc.payload) {
					t.Fatalf("got %+v, want reason %s", got, tc.reason)
				}
			})
		}
	}
}

func TestGuardLetsNormalDatagramsThrough(t *testing.T) {
	// Each pipe is guarded for what it decodes only.
	if err := Guard("sflow", flowtest.V9(1, 1, flowtest.TemplateSet(0, 256))); err != nil {
		t.Errorf("sFlow pipe guarded a NetFlow payload: %v", err)
	}
	if err := Guard("netflow", sflowExpanded(1<<30)); err != nil {
		t.Errorf("NetFlow pipe guarded an sFlow payload: %v", err)
	}
	for _, p := range [][]byte{
		sflowExpanded(1000),
		flowtest.V9(1, 1, flowtest.TemplateSet(0, 256, flowtest.Field{Type: 1, Length: 0}, flowtest.Field{Type: 2, Length: 4})),
		flowtest.V9(1, 1, flowtest.TemplateSet(0, 256, flowtest.Field{Type: 1, Length: 0xffff})), // variable length
		flowtest.IPFIX(1, -1, flowtest.TemplateSet(2, 256, flowtest.Field{Type: 1, Length: 8})),
		// padding after a template record reads as template 0 with no fields: harmless
		flowtest.V9(1, 1, flowtest.Set{ID: 0, Body: append(flowtest.TemplateSet(0, 256, flowtest.Field{Type: 1, Length: 4}).Body, 0, 0, 0, 0)}),
		flowtest.V5(flowtest.V5Header{}),
		{0, 9}, {}, {0, 0, 0, 5},
	} {
		if err := Guard("flow", p); err != nil {
			t.Errorf("Guard(%x) = %v, want nil", p, err)
		}
	}
}
