// Command cheetah-snmp-poller polls interface counters of SNMP agents (v2c,
// v3) and publishes one cheetah.v1.SnmpCounters per link per poll to Kafka
// (docs/SNMP.md). stdout carries only JSON event lines; logs go to stderr.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"time"

	"cheetah/ingest/snmp/internal/config"
	"cheetah/ingest/snmp/internal/poller"
	"cheetah/ingest/snmp/internal/publish"
)

const version = "0.1.0"

const usageHead = `cheetah-snmp-poller: polls ifHCOutOctets, ifHCOutUcastPkts, ifOutDiscards,
ifHighSpeed (and sysUpTime) of configured links over SNMP v2c/v3 and publishes
one cheetah.v1.SnmpCounters per link per poll to Kafka, key = link id.

Usage:
  cheetah-snmp-poller --config targets.json [--brokers HOST:PORT,...] [--once] [--print]

Published counters are monotonic 64-bit totals kept by the poller: the agent's
value at the first poll plus every increase since, across Counter32 wraps and
agent restarts (a restart interval adds 0). A consumer's current-minus-previous
is the interval's traffic, except into a message with counters_reset=true (the
link's first message from this poller process, an agent restart, a counter
discontinuity or reset, an ifIndex change): skip that difference, the message
is a new baseline. sys_uptime_ticks is the agent's sysUpTime.0 (1/100 s).

Config file (JSON; durations as "10s"; secrets may be "env:VAR"):
  {"interval": "10s", "timeout": "2s", "retries": 1,
   "targets": [
     {"device": "r1", "address": "192.0.2.1:161", "version": "2c", "community": "env:SNMP_COMMUNITY",
      "links": [{"id": "r1-xe0", "if_index": 3}, {"id": "r1-xe1", "if_name": "xe-0/0/1"}]},
     {"device": "r2", "address": "[2001:db8::2]:161", "version": "3",
      "v3": {"user": "cheetah", "level": "authPriv", "auth_protocol": "SHA", "auth_passphrase": "...",
             "priv_protocol": "AES", "priv_passphrase": "..."},
      "interval": "30s", "links": [{"id": "r2-et1", "if_name": "et-0/0/1"}]}]}

stdout: {"event":"ready",...} once polling starts; with --print one
{"event":"counters",...} per message; {"event":"stopped","counters":{...}} at exit.

Exit status: 0 ok; 1 cannot start (bad config, bad Kafka settings); 2 bad flags;
3 with --once when a link got no message or a message was not delivered.

Flags:
`

// defaultTopic is the poller's topic in schemas/topics.yaml (checked by TestDefaultTopicIsTheManifests).
const defaultTopic = "snmp.counters.v1"

func main() { os.Exit(run(os.Args[1:])) }

func run(args []string) int {
	fs := flag.NewFlagSet("cheetah-snmp-poller", flag.ContinueOnError)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), usageHead)
		fs.PrintDefaults()
		fmt.Fprintln(fs.Output(), "\nMore: docs/SNMP.md (counter semantics, restarts, wraps, every counter printed at exit).")
	}
	configPath := fs.String("config", "", "targets file (JSON, see above); required")
	brokers := fs.String("brokers", "127.0.0.1:19092", "Kafka bootstrap servers, comma-separated; \"\" publishes nowhere (use with --print)")
	topic := fs.String("topic", defaultTopic, "Kafka topic")
	once := fs.Bool("once", false, "poll every target once, deliver, print the counters and exit")
	printLines := fs.Bool("print", false, "also write each message to stdout as a JSON line")
	maxBuffered := fs.Int("max-buffered", 10000, "records held while Kafka is slow or down; beyond that messages are dropped and counted")
	deliveryTimeout := fs.Duration("delivery-timeout", 30*time.Second, "a record not acknowledged within this time fails and is counted")
	flushTimeout := fs.Duration("flush-timeout", 5*time.Second, "at exit, wait this long for buffered records")
	tlsCA := fs.String("kafka-tls-ca", "", "TLS to the brokers, trusting this PEM CA file (\"\" = plaintext; docs/DEPLOY.md, \"Security\")")
	saslUser := fs.String("kafka-sasl-user", "", "SCRAM-SHA-512 as this Kafka principal (cheetah-snmp-poller); \"\" = no SASL")
	saslPasswordFile := fs.String("kafka-sasl-password-file", "", "file holding that principal's SCRAM password")
	logLevel := fs.String("log-level", "info", "debug, info, warn or error (logs go to stderr)")
	showVersion := fs.Bool("version", false, "print the version and exit")
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			return 0
		}
		return 2
	}
	if *showVersion {
		fmt.Println("cheetah-snmp-poller " + version)
		return 0
	}
	var level slog.Level
	if err := level.UnmarshalText([]byte(*logLevel)); err != nil {
		fmt.Fprintf(os.Stderr, "--log-level %q: use debug, info, warn or error\n", *logLevel)
		return 2
	}
	if *configPath == "" {
		fmt.Fprintln(os.Stderr, "--config is required: the JSON file listing targets and links (see --help)")
		return 2
	}
	if *maxBuffered < 1 || *deliveryTimeout <= 0 || *flushTimeout < 0 {
		fmt.Fprintln(os.Stderr, "--max-buffered must be >= 1 and --delivery-timeout > 0")
		return 2
	}
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))

	cfg, err := config.Load(*configPath)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}

	out := newStdout()
	var sinks publish.Fanout
	var kafka *publish.Kafka
	brokerList := splitList(*brokers)
	if len(brokerList) > 0 {
		kafka, err = publish.NewKafka(publish.KafkaConfig{
			Brokers: brokerList, Topic: *topic, MaxBuffered: *maxBuffered,
			DeliveryTimeout: *deliveryTimeout, Linger: 10 * time.Millisecond,
			TLSCAFile: *tlsCA, SASLUser: *saslUser, SASLPasswordFile: *saslPasswordFile,
		}, log)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		sinks = append(sinks, kafka)
	} else if !*printLines {
		fmt.Fprintln(os.Stderr, "--brokers \"\" publishes nowhere: add --print, or give a broker")
		return 2
	}
	if *printLines {
		sinks = append(sinks, publish.NewLines(out))
	}

	stats := &poller.Stats{}
	var targets []*poller.Target
	links := 0
	for i := range cfg.Targets {
		targets = append(targets, poller.NewTarget(cfg, &cfg.Targets[i], stats, log))
		links += len(cfg.Targets[i].Links)
	}

	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	out.event(map[string]any{"event": "ready", "targets": len(targets), "links": links,
		"brokers": brokerList, "topic": *topic, "once": *once})

	var wg sync.WaitGroup
	for _, t := range targets {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if *once {
				defer t.Close()
				for _, m := range t.Poll() {
					sinks.Publish(m)
					stats.Messages.Add(1)
				}
				return
			}
			t.Run(ctx, sinks)
		}()
	}
	wg.Wait()

	counters := stats.Snapshot()
	if kafka != nil {
		kafka.Close(*flushTimeout)
		for k, v := range kafka.Stats.Snapshot() {
			counters[k] = v
		}
	}
	out.event(map[string]any{"event": "stopped", "counters": counters})
	log.Info("stopped", "counters", counters)

	if *once {
		complete := counters["messages"] == uint64(links)
		if kafka != nil {
			complete = complete && counters["published"] == counters["messages"]
		}
		if !complete {
			return 3
		}
	}
	return 0
}

func splitList(s string) []string {
	out := []string{}
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// stdout writes whole JSON lines; shared by the event lines and --print.
type stdout struct{ mu sync.Mutex }

func newStdout() *stdout { return &stdout{} }

func (s *stdout) Write(b []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return os.Stdout.Write(b)
}

func (s *stdout) event(v map[string]any) {
	b, _ := json.Marshal(v)
	_, _ = s.Write(append(b, '\n'))
}
