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

// CheckSFlowLengths returns a *LengthMismatchError when an sFlow v5
// datagram's samples do not fill it exactly: goflow2 stops at the first
// sample that does not fit (or when fewer than 8 bytes are left) and returns
// what it decoded without an error, so a truncated datagram would lose its
// last samples silently. Payloads too short for the header are left to goflow2.
func CheckSFlowLengths(payload []byte) error {
	const head = 4 + 4 // version, agent address type
	if len(payload) < head || binary.BigEndian.Uint32(payload) != 5 {
		return nil // goflow2 refuses another version itself
	}
	off := head
	switch binary.BigEndian.Uint32(payload[4:]) {
	case 1:
		off += 4
	case 2:
		off += 16
	default:
		return nil // goflow2 refuses it
	}
	off += 4 + 4 + 4 // sub-agent, sequence, uptime
	if len(payload) < off+4 {
		return nil // goflow2: unexpected EOF
	}
	count := binary.BigEndian.Uint32(payload[off:])
	off += 4
	for i := uint32(0); i < count; i++ {
		left := len(payload) - off
		if left < 8 {
			return &LengthMismatchError{"sFlow", fmt.Sprintf("sample count %d (sample %d at offset %d)", count, i, off), 8, left}
		}
		n := int(binary.BigEndian.Uint32(payload[off+4:]))
		if n > left-8 {
			return &LengthMismatchError{"sFlow", fmt.Sprintf("sample %d at offset %d", i, off), n, left - 8}
		}
		off += 8 + n
	}
	if off != len(payload) {
		return &LengthMismatchError{"sFlow", fmt.Sprintf("sample count %d", count), off, len(payload)}
	}
	return nil
}

// precheck runs Guard (always) and, when strict, CheckLengths on NetFlow
// payloads and CheckSFlowLengths on sFlow ones (first 32-bit word 5 with
// the auto-detecting "flow" scheme) before the wrapped decoder.
func precheck(scheme string, strict bool, wrapped utils.DecoderFunc) utils.DecoderFunc {
	return func(msg interface{}) error {
		if pkt, ok := msg.(*utils.Message); ok {
			err := Guard(scheme, pkt.Payload)
			if err == nil && strict {
				if scheme == "sflow" || looksLikeSFlow(pkt.Payload) {
					err = CheckSFlowLengths(pkt.Payload)
				} else {
					err = CheckLengths(pkt.Payload)
				}
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
