package agent

import (
	"fmt"
	"time"

	"github.com/gosnmp/gosnmp"
)

// interfacesPerRequest keeps a GET at 1 + 10×5 = 51 varbinds, under gosnmp's
// 60-OID limit and well under a 1472-byte UDP payload.
const interfacesPerRequest = 10

// Value is one object of one interface as the agent returned it.
type Value struct {
	Raw uint64
	// Width is 32 or 64 for counters (Counter32, Counter64) and 0 for
	// gauges and TimeTicks.
	Width uint
	// Missing is why there is no value ("noSuchInstance", "noSuchObject",
	// "unexpected type OctetString"); empty when Raw is valid.
	Missing string
}

// Interface holds the objects read for one ifIndex.
type Interface struct {
	Index  uint32
	Values [numObjects]Value
}

// Sample is the answer to one GET: sysUpTime and the objects of up to
// interfacesPerRequest interfaces, with when the request left and the answer
// arrived (for restart detection, monotonic.UptimeWatch).
type Sample struct {
	Sent, Received time.Time
	Uptime         uint32
	UptimeMissing  string
	Interfaces     []Interface
}

// Read gets sysUpTime and every polled object of the given interfaces, in as
// many requests as needed. It returns the samples of the requests that
// succeeded; err is the first failure (ErrTimeout for no answer).
func (s *Session) Read(ifIndexes []uint32) (samples []Sample, err error) {
	for start := 0; start < len(ifIndexes); start += interfacesPerRequest {
		chunk := ifIndexes[start:min(start+interfacesPerRequest, len(ifIndexes))]
		sample, cerr := s.readChunk(chunk)
		if cerr != nil {
			if err == nil {
				err = cerr
			}
			continue
		}
		samples = append(samples, sample)
	}
	return samples, err
}

func (s *Session) readChunk(ifIndexes []uint32) (Sample, error) {
	oids := make([]string, 0, 1+len(ifIndexes)*int(numObjects))
	oids = append(oids, oidSysUpTime)
	for _, idx := range ifIndexes {
		for _, o := range Objects {
			oids = append(oids, o.OID(idx))
		}
	}
	sent := time.Now()
	pkt, err := s.get(oids)
	received := time.Now()
	if err != nil {
		return Sample{}, err
	}
	return sampleOf(pkt, ifIndexes, sent, received)
}

// sampleOf reads the answer to readChunk's GET: any packet an agent sends
// (FuzzResponse feeds it whatever gosnmp decodes).
func sampleOf(pkt *gosnmp.SnmpPacket, ifIndexes []uint32, sent, received time.Time) (Sample, error) {
	if want := 1 + len(ifIndexes)*int(numObjects); len(pkt.Variables) != want {
		return Sample{}, fmt.Errorf("agent answered %d variables to a GET of %d", len(pkt.Variables), want)
	}
	sample := Sample{Sent: sent, Received: received, Interfaces: make([]Interface, len(ifIndexes))}
	byOID := make(map[string]gosnmp.SnmpPDU, len(pkt.Variables))
	for _, v := range pkt.Variables {
		byOID[trimDot(v.Name)] = v
	}
	up := decode(byOID, oidSysUpTime, false)
	sample.Uptime, sample.UptimeMissing = uint32(up.Raw), up.Missing
	for i, idx := range ifIndexes {
		sample.Interfaces[i].Index = idx
		for _, o := range Objects {
			sample.Interfaces[i].Values[o] = decode(byOID, o.OID(idx), o.IsCounter())
		}
	}
	return sample, nil
}

// decode turns one varbind into a Value. Anything but the expected kind of
// number (a counter where one is wanted, else a gauge or TimeTicks) is
// reported as missing, with the reason.
func decode(byOID map[string]gosnmp.SnmpPDU, oid string, wantCounter bool) Value {
	v, ok := byOID[oid]
	if !ok {
		return Value{Missing: "not in the response"}
	}
	switch v.Type {
	case gosnmp.NoSuchInstance, gosnmp.NoSuchObject, gosnmp.EndOfMibView:
		return Value{Missing: v.Type.String()}
	case gosnmp.Counter32, gosnmp.Counter64:
		if !wantCounter {
			break
		}
		width := uint(32)
		if v.Type == gosnmp.Counter64 {
			width = 64
		}
		return fitting(v, width, Value{Width: width})
	case gosnmp.Gauge32, gosnmp.TimeTicks, gosnmp.Uinteger32:
		if wantCounter {
			break
		}
		return fitting(v, 32, Value{})
	}
	want := "a Gauge32 or TimeTicks"
	if wantCounter {
		want = "a Counter32 or Counter64"
	}
	return Value{Missing: "unexpected type " + v.Type.String() + ", want " + want}
}

// fitting sets out.Raw to v's number, or reports it missing when the number
// is wider than its type: gosnmp decodes whatever length the agent encoded
// (a 6-byte Counter32 gives a 48-bit value, found by FuzzResponse), and a
// 32-bit counter above 2^32 would make the wrap arithmetic invent traffic.
func fitting(v gosnmp.SnmpPDU, bits uint, out Value) Value {
	n := gosnmp.ToBigInt(v.Value)
	if n.Sign() < 0 || n.BitLen() > int(bits) {
		return Value{Missing: fmt.Sprintf("%v value %s does not fit %d bits", v.Type, n, bits)}
	}
	out.Raw = n.Uint64()
	return out
}

func trimDot(oid string) string {
	if len(oid) > 0 && oid[0] == '.' {
		return oid[1:]
	}
	return oid
}
