package collector

import (
	"encoding/binary"
	"fmt"
)

// The guard refuses the few datagrams that do worse to goflow2 v2.2.6 than
// a decode error (the sFlow one surfaced as fuzzer stalls, the template
// one in goflow2's DecodeDataSet; both reproduced in guard_test.go):
//
//   - A NetFlow v9/IPFIX (options) template whose fields carry no bytes
//     (field count 0, e.g. an IPFIX template withdrawal, or only length-0
//     fields): goflow2 stores it, and DecodeDataSet then loops forever on
//     any data set using it, appending empty records until memory runs out;
//     the worker never returns.
//   - An sFlow expanded flow sample (format 3) with a huge record count:
//     goflow2 allocates the record slice before reading (it caps the count
//     at 1000 for the other sample formats, not this one). One 80-byte
//     datagram declaring 2^32-1 records is a fatal out-of-memory crash.
//
// It is always on (not tied to -strict): it only inspects headers and
// refuses what goflow2 cannot survive; everything else goes to goflow2.

const (
	sflowMaxRecords        = 1000 // goflow2's own cap for the other sample formats
	sflowExpandedFlow      = 3
	sflowExpandedCountOff  = 40 // seq, source type, source index, rate, pool, drops, in fmt, in, out fmt, out
	firstDataTemplateID    = 256
	v9TemplateSetID        = 0
	v9OptionsTemplateSetID = 1
	ipfixTemplateSetID     = 2
	ipfixOptionsSetID      = 3
)

// GuardError is a datagram the guard refused; Reason is its reason code.
type GuardError struct {
	Reason string
	Detail string
}

func (e *GuardError) Error() string { return e.Detail }

// Guard returns a *GuardError for a datagram goflow2 v2.2.6 would hang or
// crash on in the pipe of the listen scheme (sflow, netflow, flow), else
// nil. Anything it cannot parse is left to goflow2.
func Guard(scheme string, payload []byte) error {
	switch {
	case scheme == "sflow", scheme == "flow" && looksLikeSFlow(payload):
		return guardSFlow(payload)
	case scheme != "netflow" && scheme != "flow":
		return nil
	}
	if len(payload) < 2 {
		return nil
	}
	switch binary.BigEndian.Uint16(payload) {
	case 9:
		if len(payload) >= netflowV9HeaderLen {
			return guardTemplates(9, payload[netflowV9HeaderLen:])
		}
	case 10:
		if len(payload) >= ipfixHeaderLen {
			return guardTemplates(10, payload[ipfixHeaderLen:])
		}
	}
	return nil
}

// guardTemplates walks the sets like goflow2 does and checks every
// template record it would store.
func guardTemplates(version uint16, sets []byte) error {
	for len(sets) >= setHeaderLen {
		id := binary.BigEndian.Uint16(sets)
		n := int(binary.BigEndian.Uint16(sets[2:]))
		if n < setHeaderLen {
			return nil
		}
		body := sets[setHeaderLen:min(n, len(sets))] // goflow2 takes what is there
		sets = sets[min(n, len(sets)):]
		var err error
		switch {
		case version == 9 && id == v9TemplateSetID, version == 10 && id == ipfixTemplateSetID:
			err = guardTemplateSet(version, body)
		case version == 9 && id == v9OptionsTemplateSetID:
			err = guardV9OptionsSet(body)
		case version == 10 && id == ipfixOptionsSetID:
			err = guardIPFIXOptionsSet(body)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// fieldReader reads template fields; ok=false once the bytes run out
// (goflow2 then fails the datagram itself).
type fieldReader struct {
	b   []byte
	pen bool // IPFIX: enterprise bit adds 4 bytes
}

// fields reads n fields and reports whether any of them carries bytes.
func (r *fieldReader) fields(n int) (carriesBytes, ok bool) {
	for i := 0; i < n; i++ {
		if len(r.b) < 4 {
			return false, false
		}
		typ, length := binary.BigEndian.Uint16(r.b), binary.BigEndian.Uint16(r.b[2:])
		r.b = r.b[4:]
		if r.pen && typ&0x8000 != 0 {
			if len(r.b) < 4 {
				return false, false
			}
			r.b = r.b[4:]
		}
		// 0xffff is variable length: at least its 1-byte length is read.
		if length != 0 {
			carriesBytes = true
		}
	}
	return carriesBytes, true
}

func (r *fieldReader) u16() (uint16, bool) {
	if len(r.b) < 2 {
		return 0, false
	}
	v := binary.BigEndian.Uint16(r.b)
	r.b = r.b[2:]
	return v, true
}

func emptyTemplate(version uint16, kind string, id uint16) error {
	proto := "NetFlow v9"
	if version == 10 {
		proto = "IPFIX"
	}
	return &GuardError{ReasonUnsupportedTemplate, fmt.Sprintf(
		"%s %s %d has no field carrying bytes (field count 0 or all lengths 0; an IPFIX withdrawal?): goflow2 v2.2.6 would loop forever on its data sets", proto, kind, id)}
}

func guardTemplateSet(version uint16, body []byte) error {
	r := fieldReader{b: body, pen: version == 10}
	for len(r.b) >= 4 {
		id, _ := r.u16()
		count, _ := r.u16()
		carries, ok := r.fields(int(count))
		if !ok {
			return nil
		}
		if !carries && id >= firstDataTemplateID {
			return emptyTemplate(version, "template", id)
		}
	}
	return nil
}

func guardV9OptionsSet(body []byte) error {
	r := fieldReader{b: body}
	for len(r.b) >= 4 {
		id, _ := r.u16()
		scopeLen, _ := r.u16()
		optionLen, ok := r.u16()
		if !ok {
			return nil
		}
		scope, ok1 := r.fields(int(scopeLen) / 4)
		opts, ok2 := r.fields(int(optionLen) / 4)
		if !ok1 || !ok2 {
			return nil
		}
		if !scope && !opts && id >= firstDataTemplateID {
			return emptyTemplate(9, "options template", id)
		}
	}
	return nil
}

func guardIPFIXOptionsSet(body []byte) error {
	r := fieldReader{b: body, pen: true}
	for len(r.b) >= 4 {
		id, _ := r.u16()
		count, _ := r.u16()
		scopeCount, ok := r.u16()
		if !ok || scopeCount > count {
			return nil
		}
		scope, ok1 := r.fields(int(scopeCount))
		opts, ok2 := r.fields(int(count - scopeCount))
		if !ok1 || !ok2 {
			return nil
		}
		if !scope && !opts && id >= firstDataTemplateID {
			return emptyTemplate(10, "options template", id)
		}
	}
	return nil
}

// guardSFlow checks the record count of every expanded flow sample.
func guardSFlow(p []byte) error {
	const fixed = 4 + 4 // version, agent IP version
	if len(p) < fixed {
		return nil
	}
	var agentLen int
	switch binary.BigEndian.Uint32(p[4:]) {
	case 1:
		agentLen = 4
	case 2:
		agentLen = 16
	default:
		return nil
	}
	off := fixed + agentLen + 12 // sub-agent id, sequence, uptime
	if len(p) < off+4 {
		return nil
	}
	samples := binary.BigEndian.Uint32(p[off:])
	off += 4
	for i := uint32(0); i < samples && len(p)-off >= 8; i++ {
		format := binary.BigEndian.Uint32(p[off:])
		length := int(binary.BigEndian.Uint32(p[off+4:]))
		off += 8
		if length > len(p)-off {
			return nil // goflow2 stops here
		}
		body := p[off : off+length]
		off += length
		if format != sflowExpandedFlow || len(body) < sflowExpandedCountOff+4 {
			continue
		}
		if n := binary.BigEndian.Uint32(body[sflowExpandedCountOff:]); n > sflowMaxRecords {
			return &GuardError{ReasonMalformed, fmt.Sprintf(
				"sFlow expanded flow sample %d declares %d records (limit %d): goflow2 v2.2.6 would allocate them all before reading", i, n, sflowMaxRecords)}
		}
	}
	return nil
}
