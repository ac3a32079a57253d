package collector

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/Shopify/sarama"
	"github.com/netsampler/goflow2/v2/transport"
	gfkafka "github.com/netsampler/goflow2/v2/transport/kafka" // registers -transport.kafka.* (init), replaced below
	"github.com/prometheus/client_golang/prometheus"
)

// Kafka transport: goflow2 v2.2.6's "kafka" driver builds its sarama config
// inside Init (acks from the leader only, 3 retries 100 ms apart, failures
// passed on only if someone happens to be listening), so a broker's death
// loses the flows in flight to it while the partition leaders move. This
// driver replaces it under the same name and the same -transport.kafka.*
// flags (still registered by goflow2's package) and the same message (topic,
// key, value as goflow2's Send gets them), with a producer that rides through
// a leader election: acks=all, idempotent (one request in flight: a retry is
// never stored twice), retries and metadata refreshes spanning well over an
// election, and every record Kafka finally refuses counted and logged.
const (
	kafkaRetryMax         = 60 // x kafkaRetryBackoff: 30 s of retries per batch
	kafkaRetryBackoff     = 500 * time.Millisecond
	kafkaMetadataRetryMax = 60
	kafkaMetadataBackoff  = 500 * time.Millisecond
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
	producer sarama.AsyncProducer
	topic    string
	errors   chan error
	drained  sync.WaitGroup
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
	_, err := fmt.Sscan(kafkaFlag(name), &v)
	if err != nil {
		return 0, fmt.Errorf("-transport.kafka.%s %q: %w", name, kafkaFlag(name), err)
	}
	return v, nil
}

// kafkaConfig is the producer's sarama config from the flags.
func kafkaConfig() (*sarama.Config, error) {
	version, err := sarama.ParseKafkaVersion(kafkaFlag("version"))
	if err != nil {
		return nil, fmt.Errorf("-transport.kafka.version: %w", err)
	}
	c := sarama.NewConfig()
	c.ClientID = "cheetah-goflow2"
	c.Version = version
	c.Producer.RequiredAcks = sarama.WaitForAll
	c.Producer.Idempotent = true // a retried batch is never stored twice
	c.Net.MaxOpenRequests = 1    // required by idempotence; keeps order
	c.Producer.Retry.Max = kafkaRetryMax
	c.Producer.Retry.Backoff = kafkaRetryBackoff
	c.Metadata.Retry.Max = kafkaMetadataRetryMax
	c.Metadata.Retry.Backoff = kafkaMetadataBackoff
	c.Producer.Return.Successes = true
	c.Producer.Return.Errors = true
	if c.Producer.MaxMessageBytes, err = kafkaFlagInt("maxmsgbytes"); err != nil {
		return nil, err
	}
	if c.Producer.Flush.Bytes, err = kafkaFlagInt("flushbytes"); err != nil {
		return nil, err
	}
	if c.Producer.Flush.Frequency, err = time.ParseDuration(kafkaFlag("flushfreq")); err != nil {
		return nil, fmt.Errorf("-transport.kafka.flushfreq: %w", err)
	}
	c.Producer.Partitioner = sarama.NewRoundRobinPartitioner
	if kafkaFlag("hashing") == "true" {
		c.Producer.Partitioner = sarama.NewHashPartitioner
	}
	if cc := kafkaFlag("compression"); cc != "" {
		var codec sarama.CompressionCodec
		if err := codec.UnmarshalText([]byte(strings.ToLower(cc))); err != nil {
			return nil, fmt.Errorf("-transport.kafka.compression %q: %w", cc, err)
		}
		c.Producer.Compression = codec
	}
	if kafkaFlag("tls") == "true" {
		if err := kafkaTLS(c); err != nil {
			return nil, err
		}
	}
	if err := kafkaSASL(c); err != nil {
		return nil, err
	}
	return c, nil
}

func kafkaTLS(c *sarama.Config) error {
	pool, err := x509.SystemCertPool()
	if err != nil {
		return fmt.Errorf("-transport.kafka.tls: %w", err)
	}
	if ca := kafkaFlag("tls.ca"); ca != "" {
		pem, err := os.ReadFile(ca)
		if err != nil {
			return fmt.Errorf("-transport.kafka.tls.ca: %w", err)
		}
		pool = x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return fmt.Errorf("-transport.kafka.tls.ca %q: no PEM certificate in it", ca)
		}
	}
	cfg := &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12,
		InsecureSkipVerify: kafkaFlag("tls.insecure") == "true"} //nolint:gosec // the operator's flag
	if cert, key := kafkaFlag("tls.client"), kafkaFlag("tls.key"); cert != "" && key != "" {
		pair, err := tls.LoadX509KeyPair(cert, key)
		if err != nil {
			return fmt.Errorf("-transport.kafka.tls.client/key: %w", err)
		}
		cfg.Certificates = []tls.Certificate{pair}
	}
	c.Net.TLS.Enable = true
	c.Net.TLS.Config = cfg
	return nil
}

func kafkaSASL(c *sarama.Config) error {
	mech := strings.ToLower(kafkaFlag("sasl"))
	if mech == "" || mech == "none" {
		return nil
	}
	c.Net.SASL.Enable = true
	c.Net.SASL.User = os.Getenv("KAFKA_SASL_USER")
	c.Net.SASL.Password = os.Getenv("KAFKA_SASL_PASS")
	if c.Net.SASL.User == "" && c.Net.SASL.Password == "" {
		return errors.New("-transport.kafka.sasl: set KAFKA_SASL_USER and KAFKA_SASL_PASS")
	}
	switch mech {
	case "plain":
	case "scram-sha256":
		c.Net.SASL.Handshake = true
		c.Net.SASL.Mechanism = sarama.SASLTypeSCRAMSHA256
		c.Net.SASL.SCRAMClientGeneratorFunc = func() sarama.SCRAMClient {
			return &gfkafka.XDGSCRAMClient{HashGeneratorFcn: gfkafka.SHA256}
		}
	case "scram-sha512":
		c.Net.SASL.Handshake = true
		c.Net.SASL.Mechanism = sarama.SASLTypeSCRAMSHA512
		c.Net.SASL.SCRAMClientGeneratorFunc = func() sarama.SCRAMClient {
			return &gfkafka.XDGSCRAMClient{HashGeneratorFcn: gfkafka.SHA512}
		}
	default:
		return fmt.Errorf("-transport.kafka.sasl %q: use none, plain, scram-sha256 or scram-sha512", mech)
	}
	return nil
}

// Init connects (fails if no broker answers or the flags are wrong).
func (d *kafkaDriver) Init() error {
	c, err := kafkaConfig()
	if err != nil {
		return err
	}
	var addrs []string
	if srv := kafkaFlag("srv"); srv != "" {
		if addrs, err = gfkafka.GetServiceAddresses(srv); err != nil {
			return fmt.Errorf("-transport.kafka.srv: %w", err)
		}
	} else {
		addrs = strings.Split(kafkaFlag("brokers"), ",")
	}
	producer, err := sarama.NewAsyncProducer(addrs, c)
	// A broker that just started may still be loading its coordinator state;
	// sarama v1.38 gives up on the producer id at once then, so wait for it.
	for deadline := time.Now().Add(startupWait); err != nil && errors.Is(err, sarama.ErrOffsetsLoadInProgress) &&
		time.Now().Before(deadline); {
		time.Sleep(200 * time.Millisecond)
		producer, err = sarama.NewAsyncProducer(addrs, c)
	}
	if err != nil {
		return fmt.Errorf("-transport.kafka.brokers %q: %w", strings.Join(addrs, ","), err)
	}
	d.producer = producer
	d.topic = kafkaFlag("topic")
	d.drained.Add(2)
	go func() {
		defer d.drained.Done()
		for range producer.Successes() {
			flowsPublished.Inc()
		}
	}()
	go func() {
		defer d.drained.Done()
		for e := range producer.Errors() {
			flowsPublishErrors.Inc() // counted even when the log is muted or nobody reads d.errors
			err := fmt.Errorf("flow message lost: Kafka refused it after %d retries (topic %s, partition %d): %w",
				kafkaRetryMax, e.Msg.Topic, e.Msg.Partition, e.Err)
			select {
			case d.errors <- err:
			default:
				slog.Default().Error(err.Error())
			}
		}
	}()
	return nil
}

// Send hands one message to the producer (same topic, key and value as
// goflow2's driver). It blocks while the producer's buffer is full.
func (d *kafkaDriver) Send(key, data []byte) error {
	d.producer.Input() <- &sarama.ProducerMessage{
		Topic: d.topic,
		Key:   sarama.ByteEncoder(key),
		Value: sarama.ByteEncoder(data),
	}
	return nil
}

// Close flushes and returns once Kafka acknowledged or refused (counted)
// every message.
func (d *kafkaDriver) Close() error {
	if d.producer == nil {
		return nil
	}
	d.producer.AsyncClose()
	d.drained.Wait()
	d.producer = nil
	return nil
}
