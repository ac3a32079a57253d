package agent

import (
	"runtime"
	"testing"
	"time"

	"github.com/gosnmp/gosnmp"
)

// FuzzResponse feeds any bytes, as a UDP answer from an agent, through what
// the poller does with one: gosnmp's decoding (header, v3 USM authentication
// and decryption, PDU) with the session the poller opens (v2c, or v3
// authPriv when the first input byte is odd), then the poller's own reading
// of a GET answer (sampleOf) and of a walked ifName column (addNames).
// Invariants: no panic, no hang, and counters only with the width their type
// says. Listed in scripts/fuzz_targets.txt; plain `go test` replays its corpus
// (testdata/fuzz/FuzzResponse/).
//
//	go test -run='^$' -fuzz='^FuzzResponse$' -fuzztime=30s -fuzzminimizetime=1s ./internal/agent
func FuzzResponse(f *testing.F) {
	v2 := &gosnmp.GoSNMP{Version: gosnmp.Version2c, Community: "public", MaxOids: gosnmp.MaxOids}
	v3 := &gosnmp.GoSNMP{
		Version: gosnmp.Version3, SecurityModel: gosnmp.UserSecurityModel, MsgFlags: gosnmp.AuthPriv, MaxOids: gosnmp.MaxOids,
		SecurityParameters: &gosnmp.UsmSecurityParameters{
			UserName: "poller", AuthoritativeEngineID: "\x80\x00\x1f\x88\x04cheetah",
			AuthenticationProtocol: gosnmp.SHA, AuthenticationPassphrase: "auth-passphrase",
			PrivacyProtocol: gosnmp.AES, PrivacyPassphrase: "priv-passphrase",
		},
	}
	indexes := []uint32{1, 7}
	vars := []gosnmp.SnmpPDU{{Name: "." + oidSysUpTime, Type: gosnmp.TimeTicks, Value: uint32(12345)}}
	for _, idx := range indexes {
		for _, o := range Objects {
			typ, val := gosnmp.Asn1BER(gosnmp.Gauge32), any(uint(1000))
			if o.IsCounter() {
				typ, val = gosnmp.Counter64, any(uint64(1<<40+int(idx)))
			}
			vars = append(vars, gosnmp.SnmpPDU{Name: "." + o.OID(idx), Type: typ, Value: val})
		}
	}
	names := []gosnmp.SnmpPDU{{Name: "." + oidIfName + ".7", Type: gosnmp.OctetString, Value: []byte("eth0")}}
	for _, pdus := range [][]gosnmp.SnmpPDU{vars, names, vars[:3]} {
		pkt := &gosnmp.SnmpPacket{Version: gosnmp.Version2c, Community: "public", PDUType: gosnmp.GetResponse, RequestID: 7, Variables: pdus}
		if b, err := pkt.MarshalMsg(); err == nil {
			f.Add(append([]byte{0}, b...))
		} else {
			f.Fatal(err)
		}
	}
	f.Add([]byte{1})
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) == 0 {
			return
		}
		session := v2
		if data[0]&1 == 1 {
			session = v3
		}
		done := make(chan struct{})
		go func() {
			defer close(done)
			readAnswer(t, session, data[1:], indexes)
		}()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			stacks := make([]byte, 1<<20)
			t.Fatalf("answer %x not handled within 10 s\n%s", data, stacks[:runtime.Stack(stacks, true)])
		}
	})
}

func readAnswer(t *testing.T, session *gosnmp.GoSNMP, answer []byte, indexes []uint32) {
	pkt, err := session.SnmpDecodePacket(answer)
	if err != nil {
		return // refused by gosnmp: the poller counts it as a failed request
	}
	if pkt.Error != gosnmp.NoError {
		return // get() refuses it
	}
	now := time.Now()
	if s, err := sampleOf(pkt, indexes, now, now); err == nil {
		for _, iface := range s.Interfaces {
			for o, v := range iface.Values {
				if v.Missing == "" && v.Width != 0 && !Object(o).IsCounter() {
					t.Fatalf("%v read as a %d-bit counter from %x", Object(o), v.Width, answer)
				}
				if v.Width == 32 && v.Raw > 0xffffffff {
					t.Fatalf("Counter32 %v holds %d from %x", Object(o), v.Raw, answer)
				}
			}
		}
	}
	addNames(map[string][]uint32{}, pkt.Variables)
}
