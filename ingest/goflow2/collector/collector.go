// Package collector runs goflow2 v2.2.6's collector (receivers, NetFlow/
// sFlow pipes, proto producer with the default mapping, bin format, file or
// Kafka transport) with one addition: every datagram goflow2 refuses is kept,
// published to flows.rejected.v1 as a RejectedRecord carrying the datagram
// (publish.go) and written to the event stream (stdout) as a "rejected" line.
package collector

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/netsampler/goflow2/v2/decoders/netflow"
	"github.com/netsampler/goflow2/v2/format"
	_ "github.com/netsampler/goflow2/v2/format/binary" // registers "bin"
	"github.com/netsampler/goflow2/v2/metrics"
	"github.com/netsampler/goflow2/v2/producer"
	protoproducer "github.com/netsampler/goflow2/v2/producer/proto"
	"github.com/netsampler/goflow2/v2/transport"
	_ "github.com/netsampler/goflow2/v2/transport/file"  // registers "file" and -transport.file*
	_ "github.com/netsampler/goflow2/v2/transport/kafka" // registers -transport.kafka.*; kafka.go replaces its driver
	"github.com/netsampler/goflow2/v2/utils"
	gfdebug "github.com/netsampler/goflow2/v2/utils/debug"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Config is everything Run needs. goflow2's format and transport drivers
// keep their own settings in flags on flag.CommandLine (-transport.file,
// -transport.kafka.brokers, ...): set those before Run.
type Config struct {
	Listen        string        // -listen, see ParseListen
	Format        string        // -format; only "bin" is built in
	Transport     string        // -transport: "file" or "kafka"
	MetricsAddr   string        // -addr: Prometheus /metrics, /__health, templates; "" = off
	TemplatesPath string        // -templates.path: HTTP path listing NetFlow templates; "" = off
	Strict        bool          // -strict: refuse datagrams whose length fields lie (strict.go)
	ErrCount      int           // -err.cnt: errors logged per interval before muting
	ErrInterval   time.Duration // -err.int
	KeyFields     []string      // -key: FlowMessage fields hashed into the message key (Kafka partitioning)
	// -rcvbuf: SO_RCVBUF asked for each listener's UDP sockets, in bytes; 0
	// keeps the kernel's default (net.core.rmem_default). See socket.go.
	ReceiveBuffer int
	// -rejected.kafka.brokers: where refused datagrams are published; "" = the
	// flows' brokers (-transport.kafka.brokers) with -transport kafka, else
	// nowhere (stdout only).
	RejectedBrokers string
	RejectedTopic   string // -rejected.kafka.topic
	// -counters.kafka.brokers: where sFlow interface counters are published
	// (SnmpCounters); "" = the flows' brokers with -transport kafka, else
	// stdout "counters" event lines. -counters.kafka.topic "" turns them off.
	CountersBrokers string
	CountersTopic   string
	Events          io.Writer    // event lines (os.Stdout in the binary)
	Logger          *slog.Logger // logs (stderr in the binary)
}

// DefaultConfig binds loopback only.
func DefaultConfig() Config {
	return Config{
		Listen:        "sflow://127.0.0.1:6343?workers=1,netflow://127.0.0.1:2055?workers=1",
		Format:        "bin",
		Transport:     "file",
		MetricsAddr:   "127.0.0.1:18080",
		TemplatesPath: "/templates",
		Strict:        true,
		ErrCount:      10,
		ErrInterval:   10 * time.Second,
		KeyFields:     []string{"sampler_address"},
		RejectedTopic: DefaultRejectedTopic,
		CountersTopic: DefaultCountersTopic,
	}
}

// Run collects until ctx is cancelled, then stops the receivers (in-flight
// datagrams finish decoding), closes the transport (flushing Kafka) and
// returns nil. It returns an error if anything fails to start or the HTTP
// server dies. One Run per process: goflow2's transport drivers are
// process-wide (and its file driver races with itself when re-opened).
func Run(ctx context.Context, cfg Config) error {
	logger := cfg.Logger
	if logger == nil {
		logger = slog.Default()
	}
	if cfg.Events == nil {
		return errors.New("collector: Config.Events is nil: give the writer for event lines (stdout)")
	}
	listeners, err := ParseListen(cfg.Listen)
	if err != nil {
		return err
	}
	if cfg.ReceiveBuffer < 0 {
		return fmt.Errorf("-rcvbuf %d: give the UDP receive buffer in bytes (0 = the kernel's default)", cfg.ReceiveBuffer)
	}
	ownSockets.reset(logger)
	if err := checkStdoutIsFree(cfg.Transport); err != nil {
		return err
	}
	warnSeparator(cfg, logger)
	formatter, err := format.FindFormat(cfg.Format)
	if err != nil {
		return fmt.Errorf("-format %q: %w", cfg.Format, err)
	}

	// Bind the metrics port before opening the transport, so a busy port
	// fails fast without touching Kafka or the flows file.
	var httpLn net.Listener
	if cfg.MetricsAddr != "" {
		if httpLn, err = net.Listen("tcp", cfg.MetricsAddr); err != nil {
			return fmt.Errorf("-addr %q: cannot listen for the metrics server: %w", cfg.MetricsAddr, err)
		}
	}
	c := &collection{cfg: cfg, logger: logger, httpLn: httpLn, quit: make(chan struct{}), fatal: make(chan error, 1)}
	defer c.stop()

	transporter, err := transport.FindTransport(cfg.Transport)
	if err != nil {
		// Not kept for stop: a driver whose Init failed cannot be closed
		// (the Kafka one would dereference its nil producer).
		return fmt.Errorf("-transport %q: %w", cfg.Transport, err)
	}
	c.transporter = transporter
	if c.producer, err = newProducer(cfg.KeyFields); err != nil {
		return err
	}
	publisherCfg := PublisherConfig{
		Brokers: rejectedBrokers(cfg), Topic: cfg.RejectedTopic,
		ErrCount: cfg.ErrCount, ErrInterval: cfg.ErrInterval,
	}
	var publisher *Publisher
	if publisherCfg.Enabled() {
		publisher = NewPublisher(publisherCfg, logger)
		if err := publisher.Start(); err != nil {
			return err
		}
		c.publisher = publisher
	} else {
		logger.Warn("refused datagrams go to stdout only: -transport is not kafka and -rejected.kafka.brokers is empty")
	}
	events := NewEventWriter(cfg.Events)
	rejecter := NewRejecter(events, publisher, logger)
	if cfg.CountersTopic != "" {
		counters, err := NewCountersPublisher(countersBrokers(cfg), cfg.CountersTopic, events, logger)
		if err != nil {
			return err
		}
		c.counters = counters
	}

	rcvbuf := 0 // the smallest granted, for the ready line
	for _, l := range listeners {
		granted, err := c.startListener(l, formatter, rejecter)
		if err != nil {
			return err
		}
		if rcvbuf == 0 || granted < rcvbuf {
			rcvbuf = granted
		}
	}
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		logTransportErrors(c.transporter, logger, utils.NewBatchMute(cfg.ErrInterval, cfg.ErrCount), c.quit)
	}()
	metricsAddr := c.serveHTTP()

	c.collecting.Store(true)
	logger.Info("collecting", slog.String("listen", cfg.Listen), slog.String("metrics_addr", metricsAddr))
	if err := events.Ready(cfg.Listen, metricsAddr, cfg.ReceiveBuffer, rcvbuf); err != nil {
		return err
	}

	select {
	case <-ctx.Done():
		logger.Info("shutting down")
		c.stop()
		logger.Info("transport closed, collector stopped")
		return nil
	case err := <-c.fatal:
		return err
	}
}

// collection is what Run started, for stop to take down in order.
type collection struct {
	cfg          Config
	logger       *slog.Logger
	httpLn       net.Listener
	httpSrv      *http.Server
	transporter  *transport.Transport
	publisher    *Publisher
	counters     *CountersPublisher // nil: -counters.kafka.topic ""
	producer     producer.ProducerInterface
	receivers    []*utils.UDPReceiver
	pipes        []utils.FlowPipe
	netflowPipes []*utils.NetFlowPipe
	collecting   atomic.Bool
	wg           sync.WaitGroup
	quit         chan struct{}
	fatal        chan error
	stopped      bool
}

// startListener starts one -listen entry and returns the UDP receive buffer
// the kernel granted its sockets (the smallest, in bytes).
func (c *collection) startListener(l Listener, formatter format.FormatInterface, rejecter *Rejecter) (int, error) {
	llog := c.logger.With(
		slog.String("scheme", l.Scheme), slog.String("hostname", l.Host), slog.Int("port", l.Port),
		slog.Int("count", l.Sockets), slog.Int("workers", l.Workers),
		slog.Bool("blocking", l.Blocking), slog.Int("queue_size", l.QueueSize))
	llog.Info("starting collection")

	recv, err := utils.NewUDPReceiver(&utils.UDPReceiverConfig{
		Sockets:          l.Sockets,
		Workers:          l.Workers,
		QueueSize:        l.QueueSize,
		Blocking:         l.Blocking,
		ReceiverCallback: droppedReporter{rejecter: rejecter, next: metrics.NewReceiverMetric()},
	})
	if err != nil {
		return 0, fmt.Errorf("creating UDP receiver for %s://%s:%d: %w", l.Scheme, l.Host, l.Port, err)
	}
	pipeCfg := &utils.PipeConfig{
		Format:           formatter,
		Transport:        c.transporter,
		Producer:         c.producer,
		NetFlowTemplater: metrics.NewDefaultPromTemplateSystem, // template metrics, as stock goflow2
	}
	var p utils.FlowPipe
	switch l.Scheme {
	case "sflow":
		p = utils.NewSFlowPipe(pipeCfg)
	case "netflow":
		nf := utils.NewNetFlowPipe(pipeCfg)
		c.netflowPipes = append(c.netflowPipes, nf)
		p = nf
	case "flow":
		auto := utils.NewFlowPipe(pipeCfg)
		c.netflowPipes = append(c.netflowPipes, auto.NetFlowPipe)
		p = auto
	}
	c.pipes = append(c.pipes, p)

	decode := buildDecoder(l.Scheme, p.DecodeFlow, c.cfg.Strict, rejecter)
	if c.counters != nil && (l.Scheme == "sflow" || l.Scheme == "flow") {
		decode = wrapCounters(decode, c.counters, rejecter)
	}
	if err := recv.Start(l.Host, l.Port, decode); err != nil {
		return 0, fmt.Errorf("starting %s receiver on %s:%d: %w", l.Scheme, l.Host, l.Port, err)
	}
	c.receivers = append(c.receivers, recv)
	// Bound now, and nothing is sent before the ready line: set the buffer.
	granted, err := setupSockets(l, c.cfg.ReceiveBuffer, ownSockets, llog)
	if err != nil {
		return 0, fmt.Errorf("%s listener on %s:%d: %w", l.Scheme, l.Host, l.Port, err)
	}
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		logReceiverErrors(recv, llog, utils.NewBatchMute(c.cfg.ErrInterval, c.cfg.ErrCount), c.quit)
	}()
	return granted, nil
}

// serveHTTP starts goflow2's HTTP endpoints (only now: the templates
// handler reads netflowPipes, complete by here) and returns the address.
func (c *collection) serveHTTP() string {
	if c.httpLn == nil {
		return ""
	}
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.Handler())
	mux.HandleFunc("/__health", func(w http.ResponseWriter, _ *http.Request) {
		if c.collecting.Load() {
			w.WriteHeader(http.StatusOK)
			_, _ = w.Write([]byte("OK\n"))
			return
		}
		w.WriteHeader(http.StatusServiceUnavailable)
		_, _ = w.Write([]byte("Not OK\n"))
	})
	if c.cfg.TemplatesPath != "" {
		// One handler for all NetFlow listeners (stock goflow2 registers one
		// per listener on the default mux and panics on the second).
		mux.HandleFunc(c.cfg.TemplatesPath, func(w http.ResponseWriter, _ *http.Request) {
			serveTemplates(w, c.netflowPipes, c.logger)
		})
	}
	addr := c.httpLn.Addr().String()
	c.httpSrv = &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		if err := c.httpSrv.Serve(c.httpLn); err != nil && !errors.Is(err, http.ErrServerClosed) {
			select {
			case c.fatal <- fmt.Errorf("metrics HTTP server on %s: %w", addr, err):
			default:
			}
		}
	}()
	return addr
}

// stop takes everything down in goflow2's order; safe to call twice.
func (c *collection) stop() {
	if c.stopped {
		return
	}
	c.stopped = true
	c.collecting.Store(false)
	// Receivers first: Stop waits for the workers, so every datagram taken
	// off a socket has been decoded or reported when it returns.
	for _, recv := range c.receivers {
		if err := recv.Stop(); err != nil {
			c.logger.Error("error stopping receiver", slog.String("error", err.Error()))
		}
	}
	for _, p := range c.pipes {
		p.Close()
	}
	if c.producer != nil {
		c.producer.Close()
	}
	if c.transporter != nil {
		// Flushes Kafka / closes the flows file.
		if err := c.transporter.Close(); err != nil {
			c.logger.Error("error closing transport", slog.String("error", err.Error()))
		}
	}
	if c.publisher != nil {
		// Every refused datagram was handed over when the receivers stopped:
		// wait for Kafka to take or refuse (count) each.
		c.publisher.Stop()
	}
	if c.counters != nil {
		c.counters.Stop()
	}
	if c.httpSrv != nil {
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		if err := c.httpSrv.Shutdown(sctx); err != nil {
			c.logger.Error("error shutting down HTTP server", slog.String("error", err.Error()))
		}
		cancel()
	} else if c.httpLn != nil {
		_ = c.httpLn.Close()
	}
	close(c.quit)
	c.wg.Wait()
}

// buildDecoder layers a pipe's DecodeFlow like stock goflow2 (panic
// recovery, then Prometheus decoder metrics), with Cheetah's prechecks
// (guard.go, strict.go) innermost and the rejected-datagram report outermost.
func buildDecoder(scheme string, decode utils.DecoderFunc, strict bool, rejecter *Rejecter) utils.DecoderFunc {
	decode = precheck(scheme, strict, decode)
	decode = recoverPanics(decode)
	decode = metrics.PromDecoderWrapper(decode, scheme)
	return rejecter.WrapDecoder(scheme, decode)
}

// countersBrokers resolves -counters.kafka.brokers like rejectedBrokers.
func countersBrokers(cfg Config) []string {
	return rejectedBrokers(Config{RejectedBrokers: cfg.CountersBrokers, Transport: cfg.Transport})
}

// rejectedBrokers resolves -rejected.kafka.brokers: explicit, else the flows'
// Kafka brokers, so that a Kafka deployment keeps refused datagrams by default.
func rejectedBrokers(cfg Config) []string {
	list := cfg.RejectedBrokers
	if list == "" && cfg.Transport == "kafka" {
		if f := flag.Lookup("transport.kafka.brokers"); f != nil {
			list = f.Value.String()
		}
	}
	var brokers []string
	for _, b := range strings.Split(list, ",") {
		if b = strings.TrimSpace(b); b != "" {
			brokers = append(brokers, b)
		}
	}
	return brokers
}

// checkStdoutIsFree refuses the file transport writing flows to stdout,
// which carries only event lines.
func checkStdoutIsFree(transportName string) error {
	if transportName != "file" {
		return nil
	}
	f := flag.Lookup("transport.file")
	if f == nil || f.Value.String() == "" {
		return errors.New("-transport file needs -transport.file PATH: stdout is reserved for event lines (ready/rejected)")
	}
	return nil
}

// warnSeparator: goflow2's file transport appends -transport.file.sep
// ("\n" by default) after each message, which corrupts a stream of
// length-delimited bin messages.
func warnSeparator(cfg Config, logger *slog.Logger) {
	if cfg.Transport != "file" || cfg.Format != "bin" {
		return
	}
	if f := flag.Lookup("transport.file.sep"); f != nil && f.Value.String() != "" {
		logger.Warn("bin messages are length-delimited: a separator after each corrupts the file; use -transport.file.sep ''",
			slog.String("transport.file.sep", f.Value.String()))
	}
}

// newProducer builds goflow2's proto producer with the default mapping,
// wrapped like stock goflow2 (panic recovery, Prometheus metrics). keyFields
// become the message key (goflow2's formatter.key): keyed by exporter, each
// exporter's flows stay in one Kafka partition, in order.
func newProducer(keyFields []string) (producer.ProducerInterface, error) {
	compiled, err := producerMapping(keyFields).Compile()
	if err != nil {
		return nil, fmt.Errorf("compiling goflow2's default mapping: %w", err)
	}
	p, err := protoproducer.CreateProtoProducer(compiled, protoproducer.CreateSamplingSystem)
	if err != nil {
		return nil, fmt.Errorf("creating goflow2's proto producer: %w", err)
	}
	return metrics.WrapPromProducer(gfdebug.WrapPanicProducer(p)), nil
}

func serveTemplates(w http.ResponseWriter, pipes []*utils.NetFlowPipe, logger *slog.Logger) {
	all := make(map[string]map[uint64]interface{})
	for _, p := range pipes {
		for router, templates := range p.GetTemplatesForAllSources() {
			if all[router] == nil {
				all[router] = make(map[uint64]interface{})
			}
			maps.Copy(all[router], templates)
		}
	}
	body, err := json.MarshalIndent(all, "", "  ")
	if err != nil {
		logger.Error("error writing JSON body for templates", slog.String("error", err.Error()))
		http.Error(w, "Internal Server Error", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(body)
}

// logReceiverErrors logs decode errors as stock goflow2 does (muted in
// bursts). The datagrams themselves were already reported by the Rejecter.
func logReceiverErrors(recv *utils.UDPReceiver, logger *slog.Logger, bm *utils.BatchMute, quit <-chan struct{}) {
	for {
		select {
		case <-quit:
			return
		case err := <-recv.Errors():
			if errors.Is(err, net.ErrClosed) {
				logger.Info("closed receiver")
				continue
			}
			muted, skipped := bm.Increment()
			switch {
			case muted && skipped == 0:
				logger.Warn("too many receiver messages, muting")
			case !muted && skipped > 0:
				logger.Warn("skipped receiver messages", slog.Int("count", skipped))
			case !muted:
				attrs := []any{slog.String("error", err.Error())}
				var pErr *gfdebug.PanicErrorMessage
				switch {
				case errors.Is(err, netflow.ErrorTemplateNotFound):
					logger.Warn("template error", attrs...)
				case errors.As(err, &pErr):
					attrs = append(attrs, slog.String("stacktrace", string(pErr.Stacktrace)))
					logger.Error("intercepted panic", attrs...)
				default:
					logger.Error("error", attrs...)
				}
			}
		}
	}
}

// logTransportErrors drains asynchronous transport errors (Kafka).
func logTransportErrors(t *transport.Transport, logger *slog.Logger, bm *utils.BatchMute, quit <-chan struct{}) {
	var errs <-chan error
	if src, ok := t.TransportDriver.(interface{ Errors() <-chan error }); ok {
		errs = src.Errors()
	}
	for {
		select {
		case <-quit:
			return
		case err, ok := <-errs:
			if !ok || err == nil {
				return
			}
			muted, skipped := bm.Increment()
			switch {
			case muted && skipped == 0:
				logger.Warn("too many transport errors, muting")
			case !muted && skipped > 0:
				logger.Warn("skipped transport errors", slog.Int("count", skipped))
			case !muted:
				logger.Error("transport error", slog.String("error", err.Error()))
			}
		}
	}
}

// V9 time fields that goflow2 v2.2.6 reads for IPFIX only: a NetFlow v9 record
// timed by IEs 150-153 (nfreplay sends 152/153) gets the datagram's header time
// as start and end, silently. They are copied into extra protobuf fields of the
// bin output (numbers past goflow2's own, declared in schemas/goflow2/flow.proto)
// for the normaliser to use.
var v9TimeFields = []struct {
	ie    uint16
	name  string
	index int32
}{
	{150, "v9_flow_start_seconds", 1150},
	{151, "v9_flow_end_seconds", 1151},
	{152, "v9_flow_start_milliseconds", 1152},
	{153, "v9_flow_end_milliseconds", 1153},
}

// producerMapping is goflow2's default mapping plus the v9 time fields and
// the message key.
func producerMapping(keyFields []string) *protoproducer.ProducerConfig {
	cfg := &protoproducer.ProducerConfig{Formatter: protoproducer.FormatterConfig{Key: keyFields}}
	for _, f := range v9TimeFields {
		cfg.Formatter.Protobuf = append(cfg.Formatter.Protobuf,
			protoproducer.ProtobufFormatterConfig{Name: f.name, Index: f.index, Type: "varint"})
		cfg.NetFlowV9.Mapping = append(cfg.NetFlowV9.Mapping,
			protoproducer.NetFlowMapField{Type: f.ie, Destination: f.name})
	}
	return cfg
}
