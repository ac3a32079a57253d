package collector

import (
	"bytes"
	"net/netip"
	"testing"
	"time"

	"cheetah/ingest/goflow2/gen/cheetahv1"

	"github.com/netsampler/goflow2/v2/utils"
	"google.golang.org/protobuf/proto"
)

// The record of a refused datagram, field by field, with the values written
// out by hand (flows.proto: exporter is 16 bytes, IPv4 mapped).
func TestRejectedRecordCarriesTheDatagram(t *testing.T) {
	payload := []byte{0x13, 0x37, 0, 1, 2, 3}
	for _, c := range []struct {
		src      string
		exporter []byte
	}{
		{"192.0.2.7:5000", []byte{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 192, 0, 2, 7}},
		{"[::ffff:192.0.2.7]:5000", []byte{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 192, 0, 2, 7}},
		{"[2001:db8::1]:5000", []byte{0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1}},
	} {
		buf := append([]byte(nil), payload...)
		msg := &utils.Message{
			Src:      netip.MustParseAddrPort(c.src),
			Payload:  buf,
			Received: time.Unix(1700000000, 123456789),
		}
		r := RejectedRecord(msg, ReasonUnsupportedVersion, "not NetFlow")
		buf[0] = 0 // goflow2 reuses its receive buffer: the record must hold a copy
		// Through the wire format, as the warehouse reads it.
		wire, err := proto.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		var got cheetahv1.RejectedRecord
		if err := proto.Unmarshal(wire, &got); err != nil {
			t.Fatal(err)
		}
		if got.Stage != "goflow2" || got.Reason != "unsupported_version" || got.Detail != "not NetFlow" ||
			!bytes.Equal(got.Payload, payload) || !bytes.Equal(got.Exporter, c.exporter) ||
			got.ReceivedMs != 1700000000123 || got.SourceTopic != "" {
			t.Errorf("%s: record = %v", c.src, &got)
		}
	}
}
