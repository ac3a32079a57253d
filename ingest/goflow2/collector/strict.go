package collector

import (
	"encoding/binary"
	"fmt"

	"github.com/netsampler/goflow2/v2/utils"
)

// goflow2 trusts NetFlow/IPFIX length fields only as far as they keep it
// inside the buffer, and silently decodes what it can otherwise:
//   - v5 whose count exceeds the records present yields zero-filled phantom
//     flows; extra records beyond count are ignored;
//   - IPFIX whose message length disagrees with the datagram (or is < 16)
//     decodes as if it matched;
//   - a v9/IPFIX set longer than the bytes left is cut short.
// The strict check refuses such datagrams before goflow2 sees them, so they
// land in flows.rejected.v1 instead of becoming wrong flows. Datagrams too
// short for their header, and sets shorter than a set header, are left to
// goflow2, which already rejects them.

const (
	netflowV5HeaderLen = 24
	netflowV5RecordLen = 48
	netflowV9HeaderLen = 20
	ipfixHeaderLen     = 16
	setHeaderLen       = 4
)

// LengthMismatchError is a length field that disagrees with the datagram.
type LengthMismatchError struct {
	Protocol string // "NetFlow v5", "NetFlow v9", "IPFIX"
	Field    string // which length field
	Declared int    // bytes the field claims
	Actual   int    // bytes actually there
}

func (e *LengthMismatchError) Error() string {
	return fmt.Sprintf("%s %s declares %d bytes but the datagram has %d", e.Protocol, e.Field, e.Declared, e.Actual)
}

// CheckLengths returns a *LengthMismatchError when a NetFlow v5/v9 or IPFIX
// datagram's length fields disagree with its size, else nil. Other
// payloads (sFlow, unknown versions, too short for a header) return nil.
func CheckLengths(payload []byte) error {
	if len(payload) < 2 {
		return nil
	}
	switch binary.BigEndian.Uint16(payload) {
	case 5:
		if len(payload) < netflowV5HeaderLen {
			return nil
		}
		count := int(binary.BigEndian.Uint16(payload[2:]))
		want := netflowV5HeaderLen + count*netflowV5RecordLen
		if want != len(payload) {
			return &LengthMismatchError{"NetFlow v5", fmt.Sprintf("header count %d", count), want, len(payload)}
		}
	case 9:
		if len(payload) < netflowV9HeaderLen {
			return nil
		}
		return checkSets("NetFlow v9", payload, netflowV9HeaderLen)
	case 10:
		if len(payload) < ipfixHeaderLen {
			return nil
		}
		declared := int(binary.BigEndian.Uint16(payload[2:]))
		if declared != len(payload) {
			return &LengthMismatchError{"IPFIX", "message length", declared, len(payload)}
		}
		return checkSets("IPFIX", payload, ipfixHeaderLen)
	}
	return nil
}

// checkSets walks the (flow)set headers from off: each set must fit, and
// the last must end exactly at the end of the datagram (RFC 3954 §5,
// RFC 7011 §3.3.1: padding lives inside sets).
func checkSets(protocol string, payload []byte, off int) error {
	for off < len(payload) {
		left := len(payload) - off
		if left < setHeaderLen {
			return &LengthMismatchError{protocol, fmt.Sprintf("trailer at offset %d (shorter than a set header)", off), setHeaderLen, left}
		}
		setLen := int(binary.BigEndian.Uint16(payload[off+2:]))
		if setLen < setHeaderLen {
			return nil // goflow2 rejects this itself ("negative length")
		}
		if setLen > left {
			id := binary.BigEndian.Uint16(payload[off:])
			return &LengthMismatchError{protocol, fmt.Sprintf("set %d at offset %d", id, off), setLen, left}
		}
		off += setLen
	}
	return nil
}

// precheck runs Guard (always) and, when strict, CheckLengths on NetFlow
// payloads (for the auto-detecting "flow" scheme, sFlow - first 32-bit
// word 5 - skips the length check) before the wrapped decoder.
func precheck(scheme string, strict bool, wrapped utils.DecoderFunc) utils.DecoderFunc {
	return func(msg interface{}) error {
		if pkt, ok := msg.(*utils.Message); ok {
			err := Guard(scheme, pkt.Payload)
			if err == nil && strict && scheme != "sflow" && !looksLikeSFlow(pkt.Payload) {
				err = CheckLengths(pkt.Payload)
			}
			if err != nil {
				return &utils.PipeMessageError{Message: pkt, Err: err}
			}
		}
		return wrapped(msg)
	}
}

func looksLikeSFlow(payload []byte) bool {
	return len(payload) >= 4 && binary.BigEndian.Uint32(payload) == 5
}
