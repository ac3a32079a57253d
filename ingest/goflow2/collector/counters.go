package collector

// sFlow counter samples (docs/FABRIC.md, "sFlow"): goflow2 decodes them but its
// producer turns only flow samples into FlowMessages. Here each generic
// interface counter record (sFlow counter_data format 1) becomes a
// cheetah.v1.SnmpCounters for snmp.counters.v1, the topic the link-statistics
// and threshold jobs read link counters from.

import (
	"bytes"
	"fmt"
	"net/netip"
	"sync"

	"cheetah/ingest/goflow2/gen/cheetahv1"

	"github.com/netsampler/goflow2/v2/decoders/sflow"
	"github.com/netsampler/goflow2/v2/utils"
)

// ReasonBadCounterRecord: an sFlow counter record that cannot be a link's
// counters (ifIndex 0, or not the ifIndex its sample names). The datagram's
// flow samples and its other counter records were published.
const ReasonBadCounterRecord = "bad_counter_record"

// DefaultCountersTopic is -counters.kafka.topic (topics_test.go checks it
// against schemas/topics.yaml).
const DefaultCountersTopic = "snmp.counters.v1"

// CounterLinkID names a port's counters when no map names it: AGENT/IFINDEX.
func CounterLinkID(agent string, ifIndex uint32) string {
	return fmt.Sprintf("%s/%d", agent, ifIndex)
}

// counterBaselines remembers the agent uptime of each port's last counter
// record, so that a record starts a new baseline (counters_reset) when it is
// the port's first since the collector started or the agent restarted (its
// uptime went backwards). Safe for concurrent decode workers.
type counterBaselines struct {
	mu     sync.Mutex
	uptime map[string]uint32
}

func newCounterBaselines() *counterBaselines {
	return &counterBaselines{uptime: map[string]uint32{}}
}

// reset records uptimeMs for the port and says whether its counters start afresh.
func (b *counterBaselines) reset(agent string, subAgent, ifIndex, uptimeMs uint32) bool {
	key := fmt.Sprintf("%s/%d/%d", agent, subAgent, ifIndex)
	b.mu.Lock()
	defer b.mu.Unlock()
	last, seen := b.uptime[key]
	b.uptime[key] = uptimeMs
	return !seen || uptimeMs < last
}

// CounterRecords turns the generic interface counter records of a decoded
// sFlow datagram received at receivedMs into SnmpCounters, and lists the
// records refused (one reason each). Pure but for the baselines.
func CounterRecords(p *sflow.Packet, receivedMs uint64, baselines *counterBaselines) (out []*cheetahv1.SnmpCounters, refused []string) {
	addr, ok := netip.AddrFromSlice(p.AgentIP)
	if !ok {
		return nil, []string{fmt.Sprintf("agent address of %d bytes", len(p.AgentIP))}
	}
	agent := addr.Unmap().String()
	for _, s := range p.Samples {
		sample, ok := s.(sflow.CounterSample)
		if !ok {
			continue
		}
		for _, r := range sample.Records {
			c, ok := r.Data.(sflow.IfCounters)
			if !ok {
				continue // Ethernet, OpenFlow port, port name, ...: not link counters
			}
			if c.IfIndex == 0 {
				refused = append(refused, fmt.Sprintf("agent %s sub-agent %d: counter sample %d has ifIndex 0",
					agent, p.SubAgentId, sample.Header.SampleSequenceNumber))
				continue
			}
			// Source type 0 is an ifIndex: the record must be that interface's.
			if sample.Header.SourceIdType == 0 && sample.Header.SourceIdValue != c.IfIndex {
				refused = append(refused, fmt.Sprintf("agent %s sub-agent %d: counter sample of ifIndex %d carries the counters of ifIndex %d",
					agent, p.SubAgentId, sample.Header.SourceIdValue, c.IfIndex))
				continue
			}
			out = append(out, &cheetahv1.SnmpCounters{
				LinkId:           CounterLinkID(agent, c.IfIndex),
				Device:           agent,
				IfIndex:          c.IfIndex,
				PolledMs:         receivedMs,
				IfHcOutOctets:    c.IfOutOctets, // sFlow's is 64 bits, as ifHCOutOctets
				IfHcOutUcastPkts: uint64(c.IfOutUcastPkts),
				IfOutDiscards:    uint64(c.IfOutDiscards),
				IfHighSpeedMbps:  c.IfSpeed / 1_000_000,
				CountersReset:    baselines.reset(agent, p.SubAgentId, c.IfIndex, p.Uptime),
				SysUptimeTicks:   p.Uptime / 10,
			})
		}
	}
	return out, refused
}

// counterSink receives the records of one datagram (Kafka or stdout).
type counterSink interface {
	PublishCounters([]*cheetahv1.SnmpCounters)
}

// wrapCounters returns a decoder that runs decode and, when it succeeded on an
// sFlow v5 datagram, decodes it again for its counter samples (goflow2's pipe
// does not hand the decoded packet out) and sends their records to sink;
// refused records are reported through rejecter.
func wrapCounters(decode utils.DecoderFunc, sink counterSink, rejecter *Rejecter) utils.DecoderFunc {
	baselines := newCounterBaselines()
	return func(msg interface{}) error {
		if err := decode(msg); err != nil {
			return err
		}
		pkt, ok := msg.(*utils.Message)
		if !ok || len(pkt.Payload) < 4 || pkt.Payload[0] != 0 || pkt.Payload[1] != 0 || pkt.Payload[2] != 0 || pkt.Payload[3] != 5 {
			return nil
		}
		records, refused, err := countersOf(pkt, baselines)
		if err != nil {
			rejecter.Reject(pkt, ReasonBadCounterRecord, err.Error())
			return nil
		}
		for _, why := range refused {
			rejecter.Reject(pkt, ReasonBadCounterRecord, why)
		}
		if len(records) > 0 {
			sink.PublishCounters(records)
		}
		return nil
	}
}

func countersOf(pkt *utils.Message, baselines *counterBaselines) (records []*cheetahv1.SnmpCounters, refused []string, err error) {
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("goflow2 panicked decoding the counter samples: %v", v)
		}
	}()
	var p sflow.Packet
	if err := sflow.DecodeMessageVersion(bytes.NewBuffer(pkt.Payload), &p); err != nil {
		return nil, nil, fmt.Errorf("decoding the counter samples: %w", err)
	}
	records, refused = CounterRecords(&p, uint64(receivedNs(pkt.Received)/1_000_000), baselines)
	return records, refused, nil
}
