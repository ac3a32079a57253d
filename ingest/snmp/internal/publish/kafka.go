// Package publish delivers SnmpCounters messages to Kafka (franz-go):
// one bare protobuf message per record, key = link id, idempotent producer,
// a bounded buffer, every message accounted for as delivered, dropped or
// failed.
package publish

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"cheetah/ingest/snmp/gen/cheetahv1"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sasl/scram"
	"google.golang.org/protobuf/proto"
)

// KafkaConfig configures the producer (defaults in cmd flags, docs/SNMP.md).
type KafkaConfig struct {
	Brokers []string
	Topic   string
	// MaxBuffered bounds the records held while the broker is slow or down;
	// beyond it new messages are dropped and counted.
	MaxBuffered int
	// DeliveryTimeout fails (and counts) a record not acknowledged in time.
	DeliveryTimeout time.Duration
	Linger          time.Duration
	// Security (docs/DEPLOY.md, "Security"): TLS to brokers whose certificates
	// chain to TLSCAFile (PEM; "" = no TLS), and SCRAM-SHA-512 as SASLUser with
	// the password in SASLPasswordFile ("" user = no SASL).
	TLSCAFile        string
	SASLUser         string
	SASLPasswordFile string
}

// securityOptions are the client options of c's TLS and SASL settings.
func securityOptions(c KafkaConfig) ([]kgo.Opt, error) {
	var opts []kgo.Opt
	if c.TLSCAFile != "" {
		pem, err := os.ReadFile(c.TLSCAFile)
		if err != nil {
			return nil, fmt.Errorf("--kafka-tls-ca: %w", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("--kafka-tls-ca %s: no PEM certificate in it", c.TLSCAFile)
		}
		opts = append(opts, kgo.DialTLSConfig(&tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}))
	}
	if c.SASLUser != "" {
		b, err := os.ReadFile(c.SASLPasswordFile)
		if err != nil {
			return nil, fmt.Errorf("--kafka-sasl-password-file: %w", err)
		}
		pass := strings.TrimSpace(string(b))
		if pass == "" {
			return nil, fmt.Errorf("--kafka-sasl-password-file %s is empty", c.SASLPasswordFile)
		}
		opts = append(opts, kgo.SASL(scram.Auth{User: c.SASLUser, Pass: pass}.AsSha512Mechanism()))
	}
	return opts, nil
}

// KafkaStats count every message handed to Publish: enqueued = delivered +
// dropped_buffer_full + delivery_failures + still buffered.
type KafkaStats struct {
	Enqueued          atomic.Uint64
	Delivered         atomic.Uint64
	DroppedBufferFull atomic.Uint64
	DeliveryFailures  atomic.Uint64
	EncodeFailures    atomic.Uint64
}

// Snapshot returns the counters by their documented names.
func (s *KafkaStats) Snapshot() map[string]uint64 {
	return map[string]uint64{
		"published":           s.Delivered.Load(),
		"enqueued":            s.Enqueued.Load(),
		"dropped_buffer_full": s.DroppedBufferFull.Load(),
		"delivery_failures":   s.DeliveryFailures.Load(),
		"encode_failures":     s.EncodeFailures.Load(),
	}
}

// Kafka is a Sink writing to one topic.
type Kafka struct {
	cl    *kgo.Client
	topic string
	Stats KafkaStats
	log   *slog.Logger

	mu       sync.Mutex
	failing  bool // a failure streak is under way (logged once)
	dropping bool
}

// NewKafka creates the client. It does not wait for the broker: a broker that
// is down shows up as buffered, then failed or dropped, records, and the
// client reconnects by itself when it is back.
func NewKafka(c KafkaConfig, log *slog.Logger) (*Kafka, error) {
	if len(c.Brokers) == 0 {
		return nil, errors.New("no Kafka brokers given")
	}
	security, err := securityOptions(c)
	if err != nil {
		return nil, err
	}
	cl, err := kgo.NewClient(append(security,
		kgo.SeedBrokers(c.Brokers...),
		kgo.DefaultProduceTopic(c.Topic),
		kgo.ClientID("cheetah-snmp-poller"),
		// idempotent writes are franz-go's default (acks=all, no duplicates
		// on retries); stated here so that nobody turns them off by accident.
		kgo.RequiredAcks(kgo.AllISRAcks()),
		kgo.MaxBufferedRecords(c.MaxBuffered),
		kgo.RecordDeliveryTimeout(c.DeliveryTimeout),
		kgo.ProducerLinger(c.Linger),
		kgo.DialTimeout(2*time.Second),
	)...)
	if err != nil {
		return nil, fmt.Errorf("kafka client for %v: %w", c.Brokers, err)
	}
	return &Kafka{cl: cl, topic: c.Topic, log: log.With("topic", c.Topic)}, nil
}

// Publish encodes and enqueues without blocking: a full buffer drops the
// message (counted) rather than stall polling.
func (k *Kafka) Publish(m *cheetahv1.SnmpCounters) {
	k.Stats.Enqueued.Add(1)
	value, err := proto.Marshal(m)
	if err != nil {
		k.Stats.EncodeFailures.Add(1)
		k.log.Error("cannot encode message; dropped", "link", m.GetLinkId(), "err", err)
		return
	}
	rec := &kgo.Record{Key: []byte(m.GetLinkId()), Value: value}
	k.cl.TryProduce(context.Background(), rec, k.delivered)
}

func (k *Kafka) delivered(r *kgo.Record, err error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	switch {
	case err == nil:
		k.Stats.Delivered.Add(1)
		if k.failing || k.dropping {
			k.log.Info("kafka delivering again",
				"delivery_failures", k.Stats.DeliveryFailures.Load(),
				"dropped_buffer_full", k.Stats.DroppedBufferFull.Load())
			k.failing, k.dropping = false, false
		}
	case errors.Is(err, kgo.ErrMaxBuffered):
		k.Stats.DroppedBufferFull.Add(1)
		if !k.dropping {
			k.dropping = true
			k.log.Error("kafka buffer full: dropping messages (counted) until the broker takes them again", "link", string(r.Key), "err", err)
		}
	default:
		k.Stats.DeliveryFailures.Add(1)
		if !k.failing {
			k.failing = true
			k.log.Error("kafka delivery failed; further failures counted, not logged, until a delivery succeeds", "link", string(r.Key), "err", err)
		}
	}
}

// Close waits up to timeout for buffered records, then closes; records still
// buffered then fail and are counted as delivery failures.
func (k *Kafka) Close(timeout time.Duration) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	if err := k.cl.Flush(ctx); err != nil {
		k.log.Warn("kafka flush incomplete at exit; unsent records are counted as delivery failures", "err", err)
	}
	k.cl.Close()
}
