package collector

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"cheetah/ingest/goflow2/gen/cheetahv1"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/twmb/franz-go/pkg/kgo"
	"google.golang.org/protobuf/proto"
)

var (
	countersPublished = prometheus.NewCounter(prometheus.CounterOpts{
		Namespace: "cheetah", Subsystem: "goflow2", Name: "counters_published_total",
		Help: "sFlow interface counter records acknowledged by Kafka (-counters.kafka.topic).",
	})
	countersPublishErrors = prometheus.NewCounter(prometheus.CounterOpts{
		Namespace: "cheetah", Subsystem: "goflow2", Name: "counters_publish_errors_total",
		Help: "sFlow interface counter records Kafka did not take after the client's retries.",
	})
)

func init() {
	prometheus.MustRegister(countersPublished, countersPublishErrors)
}

// CountersPublisher sends SnmpCounters to Kafka keyed by link id (franz-go's
// default partitioner hashes keys as the Java client, like the SNMP poller),
// idempotent with acks=all. Without brokers it writes each as a "counters"
// event line on stdout instead.
type CountersPublisher struct {
	brokers []string
	topic   string
	events  *EventWriter
	logger  *slog.Logger
	client  *kgo.Client
	pending sync.WaitGroup
}

// NewCountersPublisher connects to brokers (none: stdout event lines).
func NewCountersPublisher(brokers []string, topic string, events *EventWriter, logger *slog.Logger) (*CountersPublisher, error) {
	p := &CountersPublisher{brokers: brokers, topic: topic, events: events, logger: logger}
	if len(brokers) == 0 {
		return p, nil
	}
	client, err := kgo.NewClient(kgo.SeedBrokers(brokers...), kgo.ClientID("cheetah-goflow2-counters"),
		kgo.DefaultProduceTopic(topic), kgo.RequiredAcks(kgo.AllISRAcks()))
	if err != nil {
		return nil, fmt.Errorf("-counters.kafka.brokers %q: %w", strings.Join(brokers, ","), err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), startupWait)
	defer cancel()
	if err := client.Ping(ctx); err != nil {
		client.Close()
		return nil, fmt.Errorf("-counters.kafka.brokers %q: cannot publish counter samples to %s: %w",
			strings.Join(brokers, ","), topic, err)
	}
	p.client = client
	logger.Info("publishing sFlow counter samples", slog.String("brokers", strings.Join(brokers, ",")), slog.String("topic", topic))
	return p, nil
}

// CounterEvent is one counter record on stdout (no brokers), with the
// SnmpCounters field names (as the SNMP poller's lines).
type CounterEvent struct {
	Event            string `json:"event"` // always "counters"
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

// PublishCounters sends the records of one datagram.
func (p *CountersPublisher) PublishCounters(records []*cheetahv1.SnmpCounters) {
	for _, r := range records {
		if p.client == nil {
			if err := p.events.write(CounterEvent{Event: "counters", LinkID: r.LinkId, Device: r.Device, IfIndex: r.IfIndex,
				PolledMs: r.PolledMs, IfHcOutOctets: r.IfHcOutOctets, IfHcOutUcastPkts: r.IfHcOutUcastPkts,
				IfOutDiscards: r.IfOutDiscards, IfHighSpeedMbps: r.IfHighSpeedMbps, CountersReset: r.CountersReset,
				SysUptimeTicks: r.SysUptimeTicks}); err != nil {
				p.logger.Error("counters event line lost", slog.String("error", err.Error()))
			}
			continue
		}
		value, err := proto.Marshal(r)
		if err != nil {
			countersPublishErrors.Inc()
			continue
		}
		p.pending.Add(1)
		p.client.Produce(context.Background(), &kgo.Record{Key: []byte(r.LinkId), Value: value}, func(_ *kgo.Record, err error) {
			defer p.pending.Done()
			if err != nil {
				countersPublishErrors.Inc()
				p.logger.Error("counter record not published", slog.String("topic", p.topic), slog.String("error", err.Error()))
				return
			}
			countersPublished.Inc()
		})
	}
}

// Stop flushes and waits for every acknowledgement (at most 30 s).
func (p *CountersPublisher) Stop() {
	if p.client == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := p.client.Flush(ctx); err != nil && !errors.Is(err, context.Canceled) {
		p.logger.Error("flushing counter records", slog.String("error", err.Error()))
	}
	p.client.Close()
	p.pending.Wait()
}
