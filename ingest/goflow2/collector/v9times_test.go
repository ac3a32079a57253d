package collector

import (
	"testing"

	"cheetah/ingest/goflow2/internal/flowtest"

	"google.golang.org/protobuf/encoding/protowire"
)

// A v9 record timed by IEs 152/153 (as nfreplay sends them) keeps its times in
// the bin output as fields 1152/1153: goflow2 v2.2.6 reads those IEs for IPFIX
// only and would give the record the datagram's header time instead.
func TestV9MillisecondTimesReachTheOutput(t *testing.T) {
	out := &memTransport{keep: true}
	c := newChain(t, "netflow", true, out, quietLogger())
	const start, end = uint64(1795218600123), uint64(1795218660456)
	tpl := flowtest.TemplateSet(0, 256,
		flowtest.Field{Type: 8, Length: 4}, flowtest.Field{Type: 12, Length: 4},
		flowtest.Field{Type: 1, Length: 4}, flowtest.Field{Type: 2, Length: 4},
		flowtest.Field{Type: 152, Length: 8}, flowtest.Field{Type: 153, Length: 8})
	rec := flowtest.Be(uint32(0xC6120110), uint32(0xC6120214), uint32(150000), uint32(100), start, end)
	if err := c.feed(flowtest.V9(1, 2, tpl, flowtest.Set{ID: 256, Body: rec})); err != nil {
		t.Fatalf("decode: %v", err)
	}
	if len(out.msgs) != 1 {
		t.Fatalf("want 1 message, got %d", len(out.msgs))
	}
	got := map[protowire.Number]uint64{}
	b := out.msgs[0]
	_, n := protowire.ConsumeVarint(b) // length prefix
	b = b[n:]
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			t.Fatalf("bad tag: %v", protowire.ParseError(n))
		}
		b = b[n:]
		if typ == protowire.VarintType {
			v, m := protowire.ConsumeVarint(b)
			got[num] = v
			b = b[m:]
			continue
		}
		m := protowire.ConsumeFieldValue(num, typ, b)
		b = b[m:]
	}
	if got[1152] != start || got[1153] != end {
		t.Fatalf("fields 1152/1153 = %d/%d, want %d/%d", got[1152], got[1153], start, end)
	}
	if got[9] != 150000 {
		t.Fatalf("bytes field 9 = %d, want 150000", got[9])
	}
}
