package collector

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"runtime/debug"

	"github.com/netsampler/goflow2/v2/decoders/netflow"
	"github.com/netsampler/goflow2/v2/decoders/netflowlegacy"
	"github.com/netsampler/goflow2/v2/decoders/sflow"
	"github.com/netsampler/goflow2/v2/format"
	"github.com/netsampler/goflow2/v2/transport"
	"github.com/netsampler/goflow2/v2/utils"
	gfdebug "github.com/netsampler/goflow2/v2/utils/debug"
	"github.com/prometheus/client_golang/prometheus"
)

// Reason codes of refused datagrams (RejectedRecord.reason and the "rejected"
// event line). Stable: the flows.rejected.v1 consumers key on them.
const (
	// First bytes are not a version this listener decodes (NetFlow 5/9/IPFIX 10, sFlow 5).
	ReasonUnsupportedVersion = "unsupported_version"
	// Datagram ends inside a header or record (goflow2 hit io.ErrUnexpectedEOF).
	ReasonTruncated = "truncated_datagram"
	// A length field disagrees with the datagram size (Cheetah strict check, see strict.go).
	ReasonLengthMismatch = "length_mismatch"
	// NetFlow v9/IPFIX data set whose template this exporter has not sent (yet).
	ReasonTemplateNotFound = "template_not_found"
	// A NetFlow v9/IPFIX template goflow2 would loop forever on (guard.go).
	ReasonUnsupportedTemplate = "unsupported_template"

	// Any other decoder error: bad set id, negative lengths, bad sFlow sample...
	ReasonMalformed = "malformed_datagram"
	// Decoded, but the producer could not map a record to a FlowMessage.
	ReasonUnmappableRecord = "unmappable_record"
	// The decoder or producer panicked; goflow2's own recovery turned it into an error.
	ReasonDecoderPanic = "decoder_panic"
	// Decoded, but formatting or the transport failed: some of its flows may be missing.
	ReasonExportFailed = "export_failed"
	// Never decoded: the receive queue was full (listen option queue_size / blocking).
	ReasonQueueFull = "queue_full"
)

var rejectedDatagrams = prometheus.NewCounterVec(
	prometheus.CounterOpts{
		Namespace: "cheetah",
		Subsystem: "goflow2",
		Name:      "rejected_datagrams_total",
		Help:      "Datagrams refused (published to -rejected.kafka.topic and reported on stdout), by reason.",
	},
	[]string{"reason"},
)

var rejectedWriteErrors = prometheus.NewCounter(
	prometheus.CounterOpts{
		Namespace: "cheetah",
		Subsystem: "goflow2",
		Name:      "rejected_write_errors_total",
		Help:      "Rejected event lines that could not be written to stdout.",
	},
)

func init() {
	prometheus.MustRegister(rejectedDatagrams, rejectedWriteErrors)
}

// Rejecter reports refused datagrams: it counts them, publishes each as a
// RejectedRecord to flows.rejected.v1 (when publishing is on) and writes an
// event line.
type Rejecter struct {
	events    *EventWriter
	publisher *Publisher // nil: stdout only
	logger    *slog.Logger
}

// NewRejecter returns a Rejecter writing to events and publishing with
// publisher (nil: no publishing).
func NewRejecter(events *EventWriter, publisher *Publisher, logger *slog.Logger) *Rejecter {
	return &Rejecter{events: events, publisher: publisher, logger: logger}
}

// Reject reports msg. Everything is copied or encoded before returning, so
// msg may point into goflow2's pooled receive buffer.
func (r *Rejecter) Reject(msg *utils.Message, reason, detail string) {
	rejectedDatagrams.WithLabelValues(reason).Inc()
	if r.publisher != nil {
		r.publisher.Publish(RejectedRecord(msg, reason, detail))
	}
	if err := r.events.Rejected(msg, reason, detail); err != nil {
		rejectedWriteErrors.Inc()
		r.logger.Error("rejected event line lost", slog.String("reason", reason), slog.String("error", err.Error()))
	}
}

// WrapDecoder returns a decoder that calls wrapped and, when it fails,
// reports the datagram before handing the error on unchanged (goflow2's own
// logging and metrics still see it). scheme is the listen URL scheme.
func (r *Rejecter) WrapDecoder(scheme string, wrapped utils.DecoderFunc) utils.DecoderFunc {
	return func(msg interface{}) error {
		err := wrapped(msg)
		if err == nil {
			return nil
		}
		if pkt, ok := msg.(*utils.Message); ok {
			r.Reject(pkt, Classify(scheme, pkt.Payload, err), err.Error())
		}
		return err
	}
}

// Dropped implements goflow2's utils.ReceiverCallback: datagrams the
// receiver throws away on a full queue are reported too, then passed on to
// next (goflow2's drop metrics).
type droppedReporter struct {
	rejecter *Rejecter
	next     utils.ReceiverCallback
}

func (d droppedReporter) Dropped(msg utils.Message) {
	d.rejecter.Reject(&msg, ReasonQueueFull, "receive queue full, datagram dropped before decoding")
	if d.next != nil {
		d.next.Dropped(msg)
	}
}

// recoverPanics turns a panic in wrapped into goflow2's own panic error
// (errors.Is(err, debug.ErrPanic)). goflow2's PanicDecoderWrapper keeps only
// string panic values, so a runtime error (index out of range) ends up with
// an empty message; this one keeps the value.
func recoverPanics(wrapped utils.DecoderFunc) utils.DecoderFunc {
	return func(msg interface{}) (err error) {
		defer func() {
			if p := recover(); p != nil {
				err = &gfdebug.PanicErrorMessage{Msg: msg, Inner: fmt.Sprintf("panic: %v", p), Stacktrace: debug.Stack()}
			}
		}()
		return wrapped(msg)
	}
}

// Classify maps a goflow2 decode error to a reason code. goflow2 has no
// error kinds, so this reads its error types and sentinels, and the payload's
// version field (NetFlowPipe reports an unknown version as a bare
// "not a NetFlow packet" error).
func Classify(scheme string, payload []byte, err error) string {
	var lengthErr *LengthMismatchError
	var guardErr *GuardError
	switch {
	case errors.Is(err, gfdebug.ErrPanic):
		return ReasonDecoderPanic
	case errors.As(err, &guardErr):
		return guardErr.Reason
	case errors.As(err, &lengthErr):
		return ReasonLengthMismatch
	case errors.Is(err, transport.ErrTransport), errors.Is(err, format.ErrFormat):
		return ReasonExportFailed
	case unsupportedVersion(scheme, payload):
		return ReasonUnsupportedVersion
	case errors.Is(err, netflow.ErrorTemplateNotFound):
		return ReasonTemplateNotFound
	case errors.Is(err, io.ErrUnexpectedEOF):
		return ReasonTruncated
	case isDecoderError(err):
		return ReasonMalformed
	case isPipeError(err):
		// Wrapped by the pipe but not by a decoder: the producer refused it.
		return ReasonUnmappableRecord
	default:
		return ReasonMalformed
	}
}

func isDecoderError(err error) bool {
	var nf *netflow.DecoderError
	var nfl *netflowlegacy.DecoderError
	var sf *sflow.DecoderError
	return errors.As(err, &nf) || errors.As(err, &nfl) || errors.As(err, &sf)
}

func isPipeError(err error) bool {
	var pe *utils.PipeMessageError
	return errors.As(err, &pe)
}

// unsupportedVersion reports whether the payload's version field is one
// the scheme's pipe cannot decode. Too short to hold a version: false (that
// is a truncation).
func unsupportedVersion(scheme string, payload []byte) bool {
	switch scheme {
	case "netflow":
		if len(payload) < 2 {
			return false
		}
		return !isNetFlowVersion(binary.BigEndian.Uint16(payload))
	case "sflow":
		if len(payload) < 4 {
			return false
		}
		return binary.BigEndian.Uint32(payload) != 5
	case "flow":
		if len(payload) < 4 {
			return false
		}
		v := binary.BigEndian.Uint32(payload)
		return v != 5 && !isNetFlowVersion(uint16(v>>16))
	}
	return false
}

func isNetFlowVersion(v uint16) bool {
	return v == 5 || v == 9 || v == 10
}
