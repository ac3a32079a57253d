package collector

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"flag"
	"fmt"
	"hash/fnv"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/Shopify/sarama"
	"github.com/netsampler/goflow2/v2/transport"
	gfkafka "github.com/netsampler/goflow2/v2/transport/kafka" // registers -transport.kafka.* (init), replaced below
	"github.com/prometheus/client_golang/prometheus"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sasl"
	"github.com/twmb/franz-go/pkg/sasl/plain"
	franzscram "github.com/twmb/franz-go/pkg/sasl/scram"
	"github.com/xdg-go/scram"
)

// Kafka transport: goflow2 v2.2.6's "kafka" driver builds its sarama config
// inside Init (acks from the leader only, 3 retries 100 ms apart, failures
// passed on only if someone happens to be listening), so a broker's death
// loses the flows in flight to it while the partition leaders move. Sarama's
// own idempotent producer (v1.38) is no cure: retried during a leader move it
// fails batches with "message out of sequence added to a batch" (seen in the
// cluster's broker-kill test). This driver replaces goflow2's under the same
// name and -transport.kafka.* flags (still registered by goflow2's package),
// sending the same message (topic, key, value as goflow2's Send gets them,
// the same partitioners), with franz-go's producer: acks from every in-sync
// replica, idempotent (a retried batch is never stored twice), retrying until
// kafkaDeliveryTimeout, well over a leader election. Every record Kafka
// finally refuses is counted and logged, never dropped silently.
const (
	kafkaDeliveryTimeout = 2 * time.Minute // per record: retries stop here
	kafkaMaxBuffered     = 100000          // records in flight before Send blocks
	kafkaPingTimeout     = 30 * time.Second
)

var (
	flowsPublished = prometheus.NewCounter(prometheus.CounterOpts{
		Namespace: "cheetah", Subsystem: "goflow2", Name: "flows_published_total",
		Help: "Flow messages acknowledged by all in-sync replicas (-transport kafka).",
	})
	flowsPublishErrors = prometheus.NewCounter(prometheus.CounterOpts{
		Namespace: "cheetah", Subsystem: "goflow2", Name: "flows_publish_errors_total",
		Help: "Flow messages Kafka did not take after the producer's retries: lost (each also logged).",
	})
)

// kafkaDriver is the "kafka" transport. Settings are read from goflow2's
// -transport.kafka.* flags at Init.
type kafkaDriver struct {
	client *kgo.Client
	errors chan error
}

func init() {
	prometheus.MustRegister(flowsPublished, flowsPublishErrors)
	// goflow2's package init registered its driver and flags first (imported
	// package); this replaces the driver and keeps the flags.
	transport.RegisterTransportDriver("kafka", &kafkaDriver{errors: make(chan error, 64)})
}

// Prepare registers nothing: the flags are goflow2's.
func (d *kafkaDriver) Prepare() error { return nil }

// Errors reports each record Kafka refused (already counted), for the log.
func (d *kafkaDriver) Errors() <-chan error { return d.errors }

func kafkaFlag(name string) string {
	if f := flag.Lookup("transport.kafka." + name); f != nil {
		return f.Value.String()
	}
	return ""
}

func kafkaFlagInt(name string) (int, error) {
	var v int
	if _, err := fmt.Sscan(kafkaFlag(name), &v); err != nil {
		return 0, fmt.Errorf("-transport.kafka.%s %q: %w", name, kafkaFlag(name), err)
	}
	return v, nil
}

// sarama's hash (FNV-1a 32), for goflow2's -transport.kafka.hashing placement.
func fnv32a(b []byte) uint32 {
	h := fnv.New32a()
	_, _ = h.Write(b)
	return h.Sum32()
}

// kafkaOptions is the producer's configuration from the flags.
func kafkaOptions() ([]kgo.Opt, error) {
	if _, err := sarama.ParseKafkaVersion(kafkaFlag("version")); err != nil {
		return nil, fmt.Errorf("-transport.kafka.version: %w", err) // validated as goflow2 does; versions are negotiated
	}
	var addrs []string
	if srv := kafkaFlag("srv"); srv != "" {
		var err error
		if addrs, err = gfkafka.GetServiceAddresses(srv); err != nil {
			return nil, fmt.Errorf("-transport.kafka.srv: %w", err)
		}
	} else {
		addrs = strings.Split(kafkaFlag("brokers"), ",")
	}
	maxBytes, err := kafkaFlagInt("maxmsgbytes")
	if err != nil {
		return nil, err
	}
	linger, err := time.ParseDuration(kafkaFlag("flushfreq"))
	if err != nil {
		return nil, fmt.Errorf("-transport.kafka.flushfreq: %w", err)
	}
	opts := []kgo.Opt{
		kgo.SeedBrokers(addrs...),
		kgo.ClientID("cheetah-goflow2"),
		kgo.DefaultProduceTopic(kafkaFlag("topic")),
		kgo.RequiredAcks(kgo.AllISRAcks()), // idempotent (franz-go's default) needs all ISR acks
		kgo.RecordDeliveryTimeout(kafkaDeliveryTimeout),
		kgo.MaxBufferedRecords(kafkaMaxBuffered),
		kgo.ProducerBatchMaxBytes(int32(maxBytes)),
		kgo.ProducerLinger(linger),
		kgo.RecordPartitioner(kgo.RoundRobinPartitioner()),
	}
	if kafkaFlag("hashing") == "true" {
		// sarama's NewHashPartitioner, as goflow2: same key, same partition.
		opts = append(opts, kgo.RecordPartitioner(kgo.StickyKeyPartitioner(kgo.SaramaCompatHasher(fnv32a))))
	}
	if cc := kafkaFlag("compression"); cc != "" {
		var codec kgo.CompressionCodec
		switch strings.ToLower(cc) {
		case "none":
			codec = kgo.NoCompression()
		case "gzip":
			codec = kgo.GzipCompression()
		case "snappy":
			codec = kgo.SnappyCompression()
		case "lz4":
			codec = kgo.Lz4Compression()
		case "zstd":
			codec = kgo.ZstdCompression()
		default:
			return nil, fmt.Errorf("-transport.kafka.compression %q: use none, gzip, snappy, lz4 or zstd", cc)
		}
		opts = append(opts, kgo.ProducerBatchCompression(codec))
	}
	security, err := kafkaSecurityOptions()
	if err != nil {
		return nil, err
	}
	return append(opts, security...), nil
}

// kafkaSecurityOptions are the TLS and SASL settings of -transport.kafka.tls
// and -transport.kafka.sasl: the collector is one Kafka principal, so every
// franz-go client it opens (flows, sFlow counters) connects with them.
func kafkaSecurityOptions() ([]kgo.Opt, error) {
	var opts []kgo.Opt
	if kafkaFlag("tls") == "true" {
		cfg, err := kafkaTLS()
		if err != nil {
			return nil, err
		}
		opts = append(opts, kgo.DialTLSConfig(cfg))
	}
	mech, err := kafkaSASL()
	if err != nil {
		return nil, err
	}
	if mech != nil {
		opts = append(opts, kgo.SASL(mech))
	}
	return opts, nil
}

func kafkaTLS() (*tls.Config, error) {
	pool, err := x509.SystemCertPool()
	if err != nil {
		return nil, fmt.Errorf("-transport.kafka.tls: %w", err)
	}
	if ca := kafkaFlag("tls.ca"); ca != "" {
		pem, err := os.ReadFile(ca)
		if err != nil {
			return nil, fmt.Errorf("-transport.kafka.tls.ca: %w", err)
		}
		pool = x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("-transport.kafka.tls.ca %q: no PEM certificate in it", ca)
		}
	}
	cfg := &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12,
		InsecureSkipVerify: kafkaFlag("tls.insecure") == "true"} //nolint:gosec // the operator's flag
	if cert, key := kafkaFlag("tls.client"), kafkaFlag("tls.key"); cert != "" && key != "" {
		pair, err := tls.LoadX509KeyPair(cert, key)
		if err != nil {
			return nil, fmt.Errorf("-transport.kafka.tls.client/key: %w", err)
		}
		cfg.Certificates = []tls.Certificate{pair}
	}
	return cfg, nil
}

func kafkaSASL() (sasl.Mechanism, error) {
	name := strings.ToLower(kafkaFlag("sasl"))
	if name == "" || name == "none" {
		return nil, nil
	}
	user, pass, err := kafkaCredentials()
	if err != nil {
		return nil, err
	}
	switch name {
	case "plain":
		return plain.Auth{User: user, Pass: pass}.AsMechanism(), nil
	case "scram-sha256":
		return franzscram.Auth{User: user, Pass: pass}.AsSha256Mechanism(), nil
	case "scram-sha512":
		return franzscram.Auth{User: user, Pass: pass}.AsSha512Mechanism(), nil
	}
	return nil, fmt.Errorf("-transport.kafka.sasl %q: use none, plain, scram-sha256 or scram-sha512", name)
}

// kafkaCredentials is the SASL user and password: KAFKA_SASL_USER, and
// KAFKA_SASL_PASS or the file KAFKA_SASL_PASS_FILE names (kept out of the
// process's environment listing and command line).
func kafkaCredentials() (string, string, error) {
	user, pass := os.Getenv("KAFKA_SASL_USER"), os.Getenv("KAFKA_SASL_PASS")
	if file := os.Getenv("KAFKA_SASL_PASS_FILE"); file != "" && pass == "" {
		b, err := os.ReadFile(file)
		if err != nil {
			return "", "", fmt.Errorf("-transport.kafka.sasl: KAFKA_SASL_PASS_FILE: %w", err)
		}
		pass = strings.TrimSpace(string(b))
	}
	if user == "" || pass == "" {
		return "", "", errors.New("-transport.kafka.sasl: set KAFKA_SASL_USER and KAFKA_SASL_PASS (or KAFKA_SASL_PASS_FILE)")
	}
	return user, pass, nil
}

// saramaSecurity gives a sarama producer (the refused-datagram publisher)
// the flows producer's TLS and SASL settings: the collector is one Kafka
// principal (docs/DEPLOY.md, "Security").
func saramaSecurity(c *sarama.Config) error {
	if kafkaFlag("tls") == "true" {
		cfg, err := kafkaTLS()
		if err != nil {
			return err
		}
		c.Net.TLS.Enable = true
		c.Net.TLS.Config = cfg
	}
	name := strings.ToLower(kafkaFlag("sasl"))
	if name == "" || name == "none" {
		return nil
	}
	user, pass, err := kafkaCredentials()
	if err != nil {
		return err
	}
	c.Net.SASL.Enable = true
	c.Net.SASL.User, c.Net.SASL.Password = user, pass
	switch name {
	case "plain":
		c.Net.SASL.Mechanism = sarama.SASLTypePlaintext
	case "scram-sha256":
		c.Net.SASL.Mechanism = sarama.SASLTypeSCRAMSHA256
		c.Net.SASL.SCRAMClientGeneratorFunc = func() sarama.SCRAMClient { return &scramClient{hash: scram.SHA256} }
	case "scram-sha512":
		c.Net.SASL.Mechanism = sarama.SASLTypeSCRAMSHA512
		c.Net.SASL.SCRAMClientGeneratorFunc = func() sarama.SCRAMClient { return &scramClient{hash: scram.SHA512} }
	default:
		return fmt.Errorf("-transport.kafka.sasl %q: use none, plain, scram-sha256 or scram-sha512", name)
	}
	return nil
}

// scramClient is sarama's SCRAM conversation on xdg-go/scram.
type scramClient struct {
	hash scram.HashGeneratorFcn
	conv *scram.ClientConversation
}

func (s *scramClient) Begin(user, pass, authzID string) error {
	c, err := s.hash.NewClient(user, pass, authzID)
	if err != nil {
		return err
	}
	s.conv = c.NewConversation()
	return nil
}

func (s *scramClient) Step(challenge string) (string, error) { return s.conv.Step(challenge) }

func (s *scramClient) Done() bool { return s.conv.Done() }

// Init connects (fails if no broker answers or the flags are wrong).
func (d *kafkaDriver) Init() error {
	opts, err := kafkaOptions()
	if err != nil {
		return err
	}
	client, err := kgo.NewClient(opts...)
	if err != nil {
		return fmt.Errorf("-transport.kafka.*: %w", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), kafkaPingTimeout)
	defer cancel()
	if err := client.Ping(ctx); err != nil {
		client.Close()
		return fmt.Errorf("-transport.kafka.brokers %q: no broker answers: %w", kafkaFlag("brokers"), err)
	}
	d.client = client
	return nil
}

// delivered counts one record's outcome; a failure is logged too.
func (d *kafkaDriver) delivered(r *kgo.Record, err error) {
	if err == nil {
		flowsPublished.Inc()
		return
	}
	flowsPublishErrors.Inc() // counted even when the log is muted or nobody reads d.errors
	err = fmt.Errorf("flow message lost: Kafka did not take it within %s (topic %s, partition %d): %w",
		kafkaDeliveryTimeout, r.Topic, r.Partition, err)
	select {
	case d.errors <- err:
	default:
		slog.Default().Error(err.Error())
	}
}

// Send hands one message to the producer (same topic, key and value as
// goflow2's driver). It blocks while kafkaMaxBuffered records are in flight.
func (d *kafkaDriver) Send(key, data []byte) error {
	d.client.Produce(context.Background(), &kgo.Record{Key: key, Value: data}, d.delivered)
	return nil
}

// Close flushes and returns once Kafka acknowledged or refused (counted)
// every message.
func (d *kafkaDriver) Close() error {
	if d.client == nil {
		return nil
	}
	err := d.client.Flush(context.Background()) // bounded by kafkaDeliveryTimeout per record
	d.client.Close()
	d.client = nil
	return err
}
