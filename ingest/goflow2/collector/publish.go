package collector

import (
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"cheetah/ingest/goflow2/gen/cheetahv1"

	"github.com/Shopify/sarama"
	"github.com/netsampler/goflow2/v2/utils"
	"github.com/prometheus/client_golang/prometheus"
	"google.golang.org/protobuf/proto"
)

// Topic defaults for running the binary by hand. Cheetah's supervisor passes
// both explicitly; topics_test.go checks them against schemas/topics.yaml.
const (
	DefaultFlowsTopic    = "flows.goflow2.v1"  // -transport.kafka.topic
	DefaultRejectedTopic = "flows.rejected.v1" // -rejected.kafka.topic
)

// startupWait bounds how long Start waits for a broker that is still loading.
const startupWait = 30 * time.Second

// Stage is RejectedRecord.stage for every record the collector publishes.
const Stage = "goflow2"

var (
	rejectedPublished = prometheus.NewCounter(prometheus.CounterOpts{
		Namespace: "cheetah", Subsystem: "goflow2", Name: "rejected_published_total",
		Help: "Rejected datagrams acknowledged by Kafka (-rejected.kafka.topic).",
	})
	rejectedPublishErrors = prometheus.NewCounter(prometheus.CounterOpts{
		Namespace: "cheetah", Subsystem: "goflow2", Name: "rejected_publish_errors_total",
		Help: "Rejected datagrams Kafka did not take after the producer's retries (kept only in the stdout event line and the log).",
	})
)

func init() {
	prometheus.MustRegister(rejectedPublished, rejectedPublishErrors)
}

// PublisherConfig says where refused datagrams go as RejectedRecords.
type PublisherConfig struct {
	Brokers []string // Kafka bootstrap servers; none: publishing is off (stdout only)
	Topic   string   // flows.rejected.v1
	// ErrCount and ErrInterval mute the send-failure log like goflow2's
	// (every failure is still counted).
	ErrCount    int
	ErrInterval time.Duration
}

// Enabled reports whether the config publishes at all.
func (c PublisherConfig) Enabled() bool { return len(c.Brokers) > 0 }

// Publisher sends each refused datagram to Kafka as a cheetah.v1.RejectedRecord
// (schemas/cheetah/v1/flows.proto), so that it is kept wherever the collector
// runs. Delivery is idempotent (acks=all, one request in flight); a record
// Kafka does not take after the retries is counted and logged, never dropped
// silently. New is inert; Start connects; Stop flushes and waits for every
// acknowledgement.
type Publisher struct {
	cfg      PublisherConfig
	logger   *slog.Logger
	producer sarama.AsyncProducer
	drained  sync.WaitGroup
	mu       sync.RWMutex // guards stopped against Publish racing Stop
	stopped  bool
}

// NewPublisher returns a Publisher that does nothing until Start.
func NewPublisher(cfg PublisherConfig, logger *slog.Logger) *Publisher {
	return &Publisher{cfg: cfg, logger: logger}
}

// Start connects to the brokers (fails if none answers) and starts counting
// acknowledgements and failures.
func (p *Publisher) Start() error {
	if p.cfg.Topic == "" {
		return errors.New("-rejected.kafka.topic is empty: give the topic for refused datagrams (flows.rejected.v1)")
	}
	c := sarama.NewConfig()
	c.ClientID = "cheetah-goflow2-rejected"
	c.Version = sarama.V2_8_0_0
	c.Producer.RequiredAcks = sarama.WaitForAll
	c.Producer.Idempotent = true // retries never store a datagram twice
	c.Net.MaxOpenRequests = 1
	c.Producer.Retry.Max = 5
	c.Producer.Return.Successes = true
	c.Producer.Return.Errors = true
	c.Producer.Partitioner = sarama.NewRandomPartitioner // unkeyed (topics.yaml)
	if err := saramaSecurity(c); err != nil {
		return err
	}
	producer, err := sarama.NewAsyncProducer(p.cfg.Brokers, c)
	// A broker that just started may still be loading its coordinator state;
	// sarama v1.38 gives up on the producer id at once then, so wait for it.
	for deadline := time.Now().Add(startupWait); err != nil && errors.Is(err, sarama.ErrOffsetsLoadInProgress) &&
		time.Now().Before(deadline); {
		p.logger.Info("Kafka is still loading its coordinator state; retrying", slog.String("error", err.Error()))
		time.Sleep(200 * time.Millisecond)
		producer, err = sarama.NewAsyncProducer(p.cfg.Brokers, c)
	}
	if err != nil {
		return fmt.Errorf("-rejected.kafka.brokers %q: cannot publish refused datagrams to %s: %w",
			strings.Join(p.cfg.Brokers, ","), p.cfg.Topic, err)
	}
	p.producer = producer
	p.drained.Add(2)
	go func() {
		defer p.drained.Done()
		for range producer.Successes() {
			rejectedPublished.Inc()
		}
	}()
	go func() {
		defer p.drained.Done()
		mute := utils.NewBatchMute(p.cfg.ErrInterval, p.cfg.ErrCount)
		for e := range producer.Errors() {
			rejectedPublishErrors.Inc()
			muted, skipped := mute.Increment()
			switch {
			case muted && skipped == 0:
				p.logger.Warn("too many rejected-datagram publish errors, muting")
			case !muted && skipped > 0:
				p.logger.Warn("skipped rejected-datagram publish errors", slog.Int("count", skipped))
			case !muted:
				p.logger.Error("rejected datagram not published (kept in the stdout event line only)",
					slog.String("topic", p.cfg.Topic), slog.String("error", e.Err.Error()))
			}
		}
	}()
	p.logger.Info("publishing rejected datagrams",
		slog.String("brokers", strings.Join(p.cfg.Brokers, ",")), slog.String("topic", p.cfg.Topic))
	return nil
}

// Publish sends one record. It may block while the producer's buffer is
// full (Kafka slow): refused datagrams are kept rather than outrun.
func (p *Publisher) Publish(r *cheetahv1.RejectedRecord) {
	value, err := proto.Marshal(r)
	if err != nil { // cannot happen for this message; counted like a failed send
		rejectedPublishErrors.Inc()
		p.logger.Error("encoding a RejectedRecord", slog.String("error", err.Error()))
		return
	}
	p.mu.RLock()
	defer p.mu.RUnlock()
	if p.stopped || p.producer == nil {
		rejectedPublishErrors.Inc()
		p.logger.Error("rejected datagram after the publisher stopped (kept in the stdout event line only)")
		return
	}
	p.producer.Input() <- &sarama.ProducerMessage{Topic: p.cfg.Topic, Value: sarama.ByteEncoder(value)}
}

// Stop flushes what is buffered and returns once Kafka acknowledged or
// refused every record (each refusal counted). Safe to call twice.
func (p *Publisher) Stop() {
	p.mu.Lock()
	if p.stopped || p.producer == nil {
		p.stopped = true
		p.mu.Unlock()
		return
	}
	p.stopped = true
	p.mu.Unlock()
	p.producer.AsyncClose()
	p.drained.Wait()
}

// RejectedRecord is the flows.rejected.v1 record of one refused datagram:
// the datagram itself, its exporter (16 bytes, IPv4 mapped), when it was read.
func RejectedRecord(msg *utils.Message, reason, detail string) *cheetahv1.RejectedRecord {
	r := &cheetahv1.RejectedRecord{
		Stage:      Stage,
		Reason:     reason,
		Detail:     detail,
		Payload:    append([]byte(nil), msg.Payload...), // msg may point into a pooled buffer
		ReceivedMs: uint64(receivedNs(msg.Received) / int64(time.Millisecond)),
	}
	if a := msg.Src.Addr(); a.IsValid() {
		b := a.Unmap().As16() // IPv4 comes back IPv4-mapped, as flows.proto's addresses
		r.Exporter = b[:]
	}
	return r
}
