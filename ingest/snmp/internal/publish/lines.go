package publish

import (
	"encoding/json"
	"io"
	"sync"

	"cheetah/ingest/snmp/gen/cheetahv1"
)

// Lines writes each message as one JSON line ({"event":"counters",...}) to w,
// for --print: a human or a test can see exactly what went to Kafka.
type Lines struct {
	mu sync.Mutex
	w  io.Writer
}

// NewLines writes to w (stdout in the command).
func NewLines(w io.Writer) *Lines { return &Lines{w: w} }

// CountersLine is the JSON form of one message (field names as the schema's).
type CountersLine struct {
	Event            string `json:"event"`
	LinkID           string `json:"link_id"`
	Device           string `json:"device"`
	IfIndex          uint32 `json:"if_index"`
	PolledMs         uint64 `json:"polled_ms"`
	IfHcOutOctets    uint64 `json:"if_hc_out_octets"`
	IfHcOutUcastPkts uint64 `json:"if_hc_out_ucast_pkts"`
	IfOutDiscards    uint64 `json:"if_out_discards"`
	IfHighSpeedMbps  uint64 `json:"if_high_speed_mbps"`
	CountersReset    bool   `json:"counters_reset"`
	SysUptimeTicks   uint32 `json:"sys_uptime_ticks"`
}

// Publish writes one line in a single write.
func (l *Lines) Publish(m *cheetahv1.SnmpCounters) {
	b, _ := json.Marshal(CountersLine{
		Event: "counters", LinkID: m.GetLinkId(), Device: m.GetDevice(), IfIndex: m.GetIfIndex(),
		PolledMs: m.GetPolledMs(), IfHcOutOctets: m.GetIfHcOutOctets(), IfHcOutUcastPkts: m.GetIfHcOutUcastPkts(),
		IfOutDiscards: m.GetIfOutDiscards(), IfHighSpeedMbps: m.GetIfHighSpeedMbps(),
		CountersReset: m.GetCountersReset(), SysUptimeTicks: m.GetSysUptimeTicks(),
	})
	l.mu.Lock()
	defer l.mu.Unlock()
	_, _ = l.w.Write(append(b, '\n'))
}

// Fanout publishes to several sinks.
type Fanout []interface {
	Publish(*cheetahv1.SnmpCounters)
}

func (f Fanout) Publish(m *cheetahv1.SnmpCounters) {
	for _, s := range f {
		s.Publish(m)
	}
}
