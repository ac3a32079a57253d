// Package flowtest builds NetFlow datagrams byte by byte and reads goflow2's
// bin output, for the collector's tests.
package flowtest

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"net/netip"
	"testing"

	flowpb "github.com/netsampler/goflow2/v2/pb"
	"google.golang.org/protobuf/encoding/protodelim"
)

// V5Record is one NetFlow v5 flow record (the fields tests care about).
type V5Record struct {
	Src, Dst         netip.Addr
	Input, Output    uint16
	Packets, Octets  uint32
	First, Last      uint32 // sysUptime ms
	SrcPort, DstPort uint16
	TCPFlags, Proto  uint8
	SrcMask, DstMask uint8
}

// V5Header is the NetFlow v5 header fields tests set.
type V5Header struct {
	SysUptime uint32 // ms
	UnixSecs  uint32
	UnixNSecs uint32
	Sequence  uint32
}

// V5 returns a NetFlow v5 datagram: 24-byte header, 48 bytes per record.
func V5(h V5Header, records ...V5Record) []byte {
	var b bytes.Buffer
	put(&b, uint16(5), uint16(len(records)), h.SysUptime, h.UnixSecs, h.UnixNSecs, h.Sequence,
		uint8(0), uint8(0), uint16(0)) // engine type, engine id, sampling interval
	for _, r := range records {
		b.Write(ipv4(r.Src))
		b.Write(ipv4(r.Dst))
		put(&b, uint32(0), // next hop
			r.Input, r.Output, r.Packets, r.Octets, r.First, r.Last, r.SrcPort, r.DstPort,
			uint8(0), r.TCPFlags, r.Proto, uint8(0), // pad1, flags, proto, tos
			uint16(0), uint16(0), // src/dst AS
			r.SrcMask, r.DstMask, uint16(0)) // masks, pad2
	}
	return b.Bytes()
}

// ipv4 returns a's 4 bytes; the zero Addr is 0.0.0.0.
func ipv4(a netip.Addr) []byte {
	if !a.IsValid() {
		return make([]byte, 4)
	}
	b := a.As4()
	return b[:]
}

// Set is a NetFlow v9 flowset / IPFIX set: id and body (header added here).
type Set struct {
	ID   uint16
	Body []byte
}

// Bytes returns the set with its 4-byte header.
func (s Set) Bytes() []byte {
	var b bytes.Buffer
	put(&b, s.ID, uint16(4+len(s.Body)))
	b.Write(s.Body)
	return b.Bytes()
}

// V9 returns a NetFlow v9 datagram (20-byte header). count is the header's
// record count field.
func V9(sourceID uint32, count uint16, sets ...Set) []byte {
	var b bytes.Buffer
	put(&b, uint16(9), count, uint32(1000), uint32(1700000000), uint32(1), sourceID)
	for _, s := range sets {
		b.Write(s.Bytes())
	}
	return b.Bytes()
}

// IPFIX returns an IPFIX message whose length field is set to length (pass
// -1 for the true length).
func IPFIX(domain uint32, length int, sets ...Set) []byte {
	var body bytes.Buffer
	for _, s := range sets {
		body.Write(s.Bytes())
	}
	if length < 0 {
		length = 16 + body.Len()
	}
	var b bytes.Buffer
	put(&b, uint16(10), uint16(length), uint32(1700000000), uint32(1), domain)
	b.Write(body.Bytes())
	return b.Bytes()
}

// Field is a template field; IPFIX enterprise fields (Type bit 15 set) carry PEN.
type Field struct {
	Type, Length uint16
	PEN          uint32
}

// TemplateSet returns a v9 (id 0) / IPFIX (id 2) template set body with one template.
func TemplateSet(setID, templateID uint16, fields ...Field) Set {
	var b bytes.Buffer
	put(&b, templateID, uint16(len(fields)))
	for _, f := range fields {
		put(&b, f.Type, f.Length)
		if f.Type&0x8000 != 0 {
			put(&b, f.PEN)
		}
	}
	return Set{ID: setID, Body: b.Bytes()}
}

// Be returns v as big-endian bytes (uint8/16/32/64).
func Be(v ...any) []byte {
	var b bytes.Buffer
	put(&b, v...)
	return b.Bytes()
}

func put(b *bytes.Buffer, v ...any) {
	for _, x := range v {
		if err := binary.Write(b, binary.BigEndian, x); err != nil {
			panic(err)
		}
	}
}

// ReadFlows decodes goflow2's bin output: varint length-delimited FlowMessages.
// A partial message at the end (a write in progress) is not an error.
func ReadFlows(data []byte) ([]*flowpb.FlowMessage, error) {
	r := bufio.NewReader(bytes.NewReader(data))
	var out []*flowpb.FlowMessage
	for {
		m := &flowpb.FlowMessage{}
		err := protodelim.UnmarshalFrom(r, m)
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if errors.Is(err, io.ErrUnexpectedEOF) {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		out = append(out, m)
	}
}

// FreeUDPPort returns a UDP port on 127.0.0.1 that was free a moment ago
// (goflow2 cannot bind port 0 and report it).
func FreeUDPPort(t testing.TB) int {
	t.Helper()
	c, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("finding a free UDP port: %v", err)
	}
	port := c.LocalAddr().(*net.UDPAddr).Port
	if err := c.Close(); err != nil {
		t.Fatalf("closing probe socket: %v", err)
	}
	return port
}

// SFlowIfCounters is sFlow's generic interface counter record (counter_data
// format 1, 88 bytes), written field by field from sflow_version_5.txt.
func SFlowIfCounters(ifIndex uint32, speed, outOctets uint64, outUcast, outDiscards uint32) []byte {
	return Be(uint32(1), uint32(88), // format, length
		ifIndex, uint32(6), speed, uint32(1), uint32(3), // ifIndex, ifType, ifSpeed, direction, status
		uint64(0), uint32(0), uint32(0), uint32(0), uint32(0), uint32(0), uint32(0), // in: octets, ucast, mcast, bcast, discards, errors, unknown
		outOctets, outUcast, uint32(0), uint32(0), outDiscards, uint32(0), // out: octets, ucast, mcast, bcast, discards, errors
		uint32(0)) // promiscuous
}

// SFlowCounterSample is a counter sample (format 2) of source ifIndex
// `source` holding `records` (each already framed).
func SFlowCounterSample(source uint32, records ...[]byte) []byte {
	body := Be(uint32(9), source, uint32(len(records))) // sequence, source id (type 0), record count
	for _, r := range records {
		body = append(body, r...)
	}
	return append(Be(uint32(2), uint32(len(body))), body...)
}

// SFlow is an sFlow v5 datagram of agent 127.0.0.1, sub-agent 2, sequence 7.
func SFlow(uptimeMs uint32, samples ...[]byte) []byte {
	d := Be(uint32(5), uint32(1), []byte{127, 0, 0, 1}, uint32(2), uint32(7), uptimeMs, uint32(len(samples)))
	for _, s := range samples {
		d = append(d, s...)
	}
	return d
}
