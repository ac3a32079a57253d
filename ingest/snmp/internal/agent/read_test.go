package agent

import (
	"testing"

	"github.com/gosnmp/gosnmp"
)

// decode accepts a counter only as Counter32/Counter64 and a gauge only as
// Gauge32/TimeTicks/Uinteger32; every other answer (SNMP exceptions, wrong
// types, a negative Integer) is a missing value with the reason, never a
// number.
func TestDecodeRefusesWrongTypes(t *testing.T) {
	const oid = "1.3.6.1.2.1.31.1.1.1.10.7"
	cases := []struct {
		name        string
		pdu         *gosnmp.SnmpPDU // nil: not in the response
		wantCounter bool
		want        Value
	}{
		{"Counter64", &gosnmp.SnmpPDU{Type: gosnmp.Counter64, Value: uint64(1 << 40)}, true, Value{Raw: 1 << 40, Width: 64}},
		{"Counter32", &gosnmp.SnmpPDU{Type: gosnmp.Counter32, Value: uint(7)}, true, Value{Raw: 7, Width: 32}},
		{"Gauge32 as gauge", &gosnmp.SnmpPDU{Type: gosnmp.Gauge32, Value: uint(10000)}, false, Value{Raw: 10000}},
		{"OctetString for a counter", &gosnmp.SnmpPDU{Type: gosnmp.OctetString, Value: []byte("12345")}, true,
			Value{Missing: "unexpected type OctetString, want a Counter32 or Counter64"}},
		{"negative Integer for a counter", &gosnmp.SnmpPDU{Type: gosnmp.Integer, Value: -5}, true,
			Value{Missing: "unexpected type Integer, want a Counter32 or Counter64"}},
		{"Gauge32 for a counter", &gosnmp.SnmpPDU{Type: gosnmp.Gauge32, Value: uint(5)}, true,
			Value{Missing: "unexpected type Gauge32, want a Counter32 or Counter64"}},
		{"Counter64 for a gauge", &gosnmp.SnmpPDU{Type: gosnmp.Counter64, Value: uint64(5)}, false,
			Value{Missing: "unexpected type Counter64, want a Gauge32 or TimeTicks"}},
		{"Null", &gosnmp.SnmpPDU{Type: gosnmp.Null}, true, Value{Missing: "unexpected type Null, want a Counter32 or Counter64"}},
		{"NoSuchObject", &gosnmp.SnmpPDU{Type: gosnmp.NoSuchObject}, true, Value{Missing: "NoSuchObject"}},
		{"NoSuchInstance", &gosnmp.SnmpPDU{Type: gosnmp.NoSuchInstance}, true, Value{Missing: "NoSuchInstance"}},
		{"EndOfMibView", &gosnmp.SnmpPDU{Type: gosnmp.EndOfMibView}, true, Value{Missing: "EndOfMibView"}},
		{"absent", nil, true, Value{Missing: "not in the response"}},
		// A Counter32 encoded on 6 bytes (found by FuzzResponse): gosnmp decodes 48 bits.
		{"Counter32 wider than 32 bits", &gosnmp.SnmpPDU{Type: gosnmp.Counter32, Value: uint(1 << 40)}, true,
			Value{Missing: "Counter32 value 1099511627776 does not fit 32 bits"}},
		{"Counter32 at its top", &gosnmp.SnmpPDU{Type: gosnmp.Counter32, Value: uint(1<<32 - 1)}, true, Value{Raw: 1<<32 - 1, Width: 32}},
		{"TimeTicks", &gosnmp.SnmpPDU{Type: gosnmp.TimeTicks, Value: uint32(5)}, false, Value{Raw: 5}},
		{"Gauge32 wider than 32 bits", &gosnmp.SnmpPDU{Type: gosnmp.Gauge32, Value: uint(1 << 33)}, false,
			Value{Missing: "Gauge32 value 8589934592 does not fit 32 bits"}},
	}
	for _, c := range cases {
		byOID := map[string]gosnmp.SnmpPDU{}
		if c.pdu != nil {
			c.pdu.Name = "." + oid
			byOID[oid] = *c.pdu
		}
		if got := decode(byOID, oid, c.wantCounter); got != c.want {
			t.Errorf("%s: decode = %+v, want %+v", c.name, got, c.want)
		}
	}
}
