package collector

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/netsampler/goflow2/v2/utils"
)

// Event lines are the collector's stdout contract with Cheetah's supervisor
// (README.md, "stdout contract"): one JSON object per line, nothing else on
// stdout. Field names and reason codes are stable; add, never rename.

// RejectedEvent is one datagram the collector refused, with the datagram itself.
type RejectedEvent struct {
	Event        string `json:"event"` // always "rejected"
	Exporter     string `json:"exporter"`
	ExporterPort uint16 `json:"exporter_port"`
	ReceivedNs   int64  `json:"received_ns"`
	Reason       string `json:"reason"`
	Detail       string `json:"detail"`
	PayloadB64   string `json:"payload_b64"`
}

// ReadyEvent tells the supervisor that every receiver is bound and decoding.
type ReadyEvent struct {
	Event       string `json:"event"` // always "ready"
	Listen      string `json:"listen"`
	MetricsAddr string `json:"metrics_addr"` // "" when the HTTP server is off
	// RcvbufAsked is -rcvbuf (0: the kernel's default); RcvbufBytes the UDP
	// receive buffer the kernel granted (getsockopt SO_RCVBUF: twice what was
	// asked, capped at 2 × net.core.rmem_max; the smallest of all sockets).
	RcvbufAsked int `json:"rcvbuf_asked"`
	RcvbufBytes int `json:"rcvbuf_bytes"`
}

// EventWriter writes event lines; safe for concurrent use by several decode
// workers. Each line goes out in a single Write, so nothing sits in a buffer.
type EventWriter struct {
	mu sync.Mutex
	w  io.Writer
}

// NewEventWriter returns an EventWriter on w (os.Stdout in the binary).
func NewEventWriter(w io.Writer) *EventWriter {
	return &EventWriter{w: w}
}

// Rejected writes one "rejected" line for msg.
func (e *EventWriter) Rejected(msg *utils.Message, reason, detail string) error {
	return e.write(RejectedEvent{
		Event:        "rejected",
		Exporter:     msg.Src.Addr().Unmap().String(),
		ExporterPort: msg.Src.Port(),
		ReceivedNs:   receivedNs(msg.Received),
		Reason:       reason,
		Detail:       detail,
		PayloadB64:   base64.StdEncoding.EncodeToString(msg.Payload),
	})
}

// Ready writes the "ready" line.
func (e *EventWriter) Ready(listen, metricsAddr string, rcvbufAsked, rcvbufBytes int) error {
	return e.write(ReadyEvent{Event: "ready", Listen: listen, MetricsAddr: metricsAddr,
		RcvbufAsked: rcvbufAsked, RcvbufBytes: rcvbufBytes})
}

func (e *EventWriter) write(v any) error {
	line, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encoding event line: %w", err)
	}
	line = append(line, '\n')
	e.mu.Lock()
	defer e.mu.Unlock()
	if _, err := e.w.Write(line); err != nil {
		return fmt.Errorf("writing event line to stdout: %w", err)
	}
	return nil
}

func receivedNs(t time.Time) int64 {
	if t.IsZero() {
		return time.Now().UnixNano()
	}
	return t.UnixNano()
}
