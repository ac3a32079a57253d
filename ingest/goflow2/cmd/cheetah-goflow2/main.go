// Command cheetah-goflow2 is goflow2 v2.2.6's collector that keeps every
// refused datagram: published to flows.rejected.v1 and reported on stdout
// (see ../../README.md for the contract).
// stdout carries only JSON event lines; logs go to stderr.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"cheetah/ingest/goflow2/collector"

	"github.com/netsampler/goflow2/v2/format"
	"github.com/netsampler/goflow2/v2/transport"
)

// goflow2Version is the goflow2 release this binary is built from (go.mod).
const goflow2Version = "v2.2.6"

func main() {
	os.Exit(run())
}

func run() int {
	def := collector.DefaultConfig()
	cfg := def
	flag.StringVar(&cfg.Listen, "listen", def.Listen, "listen addresses (scheme://host:port?count=&workers=&blocking=&queue_size=, comma-separated; schemes sflow, netflow, flow)")
	flag.StringVar(&cfg.Format, "format", def.Format, fmt.Sprintf("Choose the format (available: %s)", strings.Join(format.GetFormats(), ", ")))
	flag.StringVar(&cfg.Transport, "transport", def.Transport, fmt.Sprintf("Choose the transport (available: %s)", strings.Join(transport.GetTransports(), ", ")))
	flag.StringVar(&cfg.MetricsAddr, "addr", def.MetricsAddr, "HTTP server address (Prometheus /metrics, /__health, templates); empty disables it")
	flag.StringVar(&cfg.TemplatesPath, "templates.path", def.TemplatesPath, "NetFlow/IPFIX templates list (HTTP path; empty disables it)")
	flag.IntVar(&cfg.ReceiveBuffer, "rcvbuf", def.ReceiveBuffer, "UDP receive buffer (SO_RCVBUF) asked for each listener socket, in bytes; 0 keeps the kernel's default. The kernel caps it at net.core.rmem_max (a warning says so) and doubles it")
	flag.BoolVar(&cfg.Strict, "strict", def.Strict, "reject NetFlow v5/v9/IPFIX datagrams whose length fields disagree with their size (goflow2 decodes them silently)")
	flag.IntVar(&cfg.ErrCount, "err.cnt", def.ErrCount, "Maximum errors per batch for muting")
	flag.DurationVar(&cfg.ErrInterval, "err.int", def.ErrInterval, "Maximum errors interval for muting")
	flag.StringVar(&cfg.RejectedBrokers, "rejected.kafka.brokers", def.RejectedBrokers, "Kafka brokers (comma-separated) that refused datagrams are published to as cheetah.v1.RejectedRecord; empty: -transport.kafka.brokers with -transport kafka, else stdout only")
	flag.StringVar(&cfg.RejectedTopic, "rejected.kafka.topic", def.RejectedTopic, "Kafka topic for refused datagrams")
	flag.StringVar(&cfg.CountersBrokers, "counters.kafka.brokers", def.CountersBrokers, "Kafka brokers (comma-separated) that sFlow interface counter samples are published to as cheetah.v1.SnmpCounters; empty: -transport.kafka.brokers with -transport kafka, else stdout \"counters\" lines")
	flag.StringVar(&cfg.CountersTopic, "counters.kafka.topic", def.CountersTopic, "Kafka topic for sFlow interface counter samples (empty: not published)")
	keys := flag.String("key", strings.Join(def.KeyFields, ","), "FlowMessage fields (comma-separated) hashed into the message key; with -transport.kafka.hashing they pick the Kafka partition (\"\" = no key)")
	logLevel := flag.String("loglevel", "info", "Log level")
	logFmt := flag.String("logfmt", "normal", "Log formatter (normal or json)")
	showVersion := flag.Bool("v", false, "Print version")
	exitOnEOF := flag.Bool("exit-on-stdin-eof", false, "stop (as on SIGTERM) when stdin reaches its end: a parent that keeps a pipe open on our stdin dies in any way (kill -9 too) and we never outlive it holding its ports; exit 1 if not stopped 10s later")
	// goflow2's own default topic is "flow-messages": Cheetah's is the manifest's.
	if f := flag.Lookup("transport.kafka.topic"); f != nil {
		f.DefValue = collector.DefaultFlowsTopic
		_ = f.Value.Set(collector.DefaultFlowsTopic)
	}
	flag.Parse()
	cfg.KeyFields = nil
	for _, k := range strings.Split(*keys, ",") {
		if k = strings.TrimSpace(k); k != "" {
			cfg.KeyFields = append(cfg.KeyFields, k)
		}
	}

	if *showVersion {
		fmt.Println("cheetah-goflow2 (goflow2 " + goflow2Version + ")")
		return 0
	}

	var level slog.Level
	if err := level.UnmarshalText([]byte(*logLevel)); err != nil {
		fmt.Fprintf(os.Stderr, "-loglevel %q: %v (use debug, info, warn or error)\n", *logLevel, err)
		return 2
	}
	opts := &slog.HandlerOptions{Level: level}
	var logger *slog.Logger
	switch *logFmt {
	case "normal":
		logger = slog.New(slog.NewTextHandler(os.Stderr, opts))
	case "json":
		logger = slog.New(slog.NewJSONHandler(os.Stderr, opts))
	default:
		fmt.Fprintf(os.Stderr, "-logfmt %q: use normal or json\n", *logFmt)
		return 2
	}
	slog.SetDefault(logger)
	cfg.Logger = logger
	cfg.Events = os.Stdout

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if *exitOnEOF {
		var parentGone context.CancelFunc
		ctx, parentGone = context.WithCancel(ctx)
		defer parentGone()
		go func() {
			_, _ = io.Copy(io.Discard, os.Stdin)
			logger.Warn("stdin closed: the parent process is gone; stopping")
			parentGone()
			time.AfterFunc(10*time.Second, func() {
				logger.Error("not stopped 10s after the parent went; exiting")
				os.Exit(1)
			})
		}()
	}

	logger.Info("starting cheetah-goflow2", slog.String("goflow2", goflow2Version))
	if err := collector.Run(ctx, cfg); err != nil {
		logger.Error("collector failed", slog.String("error", err.Error()))
		return 1
	}
	return 0
}
