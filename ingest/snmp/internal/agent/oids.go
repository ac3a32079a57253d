// Package agent talks SNMP (gosnmp, v2c and v3) to one target: it opens the
// session, reads the polled objects for a set of ifIndexes, and resolves
// interface names to ifIndexes. It knows nothing about totals or Kafka.
package agent

import "strconv"

// Object identifiers polled (IF-MIB, RFC 2863; SNMPv2-MIB, RFC 3418).
const (
	oidSysUpTime = "1.3.6.1.2.1.1.3.0"
	// ifTable columns (.1.3.6.1.2.1.2.2.1.N)
	oidIfDescr       = "1.3.6.1.2.1.2.2.1.2"
	oidIfOutDiscards = "1.3.6.1.2.1.2.2.1.19"
	// ifXTable columns (.1.3.6.1.2.1.31.1.1.1.N)
	oidIfName                     = "1.3.6.1.2.1.31.1.1.1.1"
	oidIfHCOutOctets              = "1.3.6.1.2.1.31.1.1.1.10"
	oidIfHCOutUcastPkts           = "1.3.6.1.2.1.31.1.1.1.11"
	oidIfHighSpeed                = "1.3.6.1.2.1.31.1.1.1.15"
	oidIfCounterDiscontinuityTime = "1.3.6.1.2.1.31.1.1.1.19"
)

// Object is one per-interface value the poller reads.
type Object int

const (
	HCOutOctets Object = iota
	HCOutUcastPkts
	OutDiscards
	HighSpeed
	// CounterDiscontinuityTime is optional (RFC 2863 3.1.5): its absence is
	// not reported as missing.
	CounterDiscontinuityTime
	numObjects
)

// Objects lists every per-interface object in request order.
var Objects = [numObjects]Object{HCOutOctets, HCOutUcastPkts, OutDiscards, HighSpeed, CounterDiscontinuityTime}

var objectColumn = [numObjects]string{
	HCOutOctets:              oidIfHCOutOctets,
	HCOutUcastPkts:           oidIfHCOutUcastPkts,
	OutDiscards:              oidIfOutDiscards,
	HighSpeed:                oidIfHighSpeed,
	CounterDiscontinuityTime: oidIfCounterDiscontinuityTime,
}

var objectName = [numObjects]string{
	HCOutOctets:              "ifHCOutOctets",
	HCOutUcastPkts:           "ifHCOutUcastPkts",
	OutDiscards:              "ifOutDiscards",
	HighSpeed:                "ifHighSpeed",
	CounterDiscontinuityTime: "ifCounterDiscontinuityTime",
}

func (o Object) String() string { return objectName[o] }

// Optional reports whether an agent may lack the object without it being a
// problem worth counting.
func (o Object) Optional() bool { return o == CounterDiscontinuityTime }

// IsCounter reports whether the object is a Counter32/Counter64 (else a
// gauge or TimeTicks).
func (o Object) IsCounter() bool { return o == HCOutOctets || o == HCOutUcastPkts || o == OutDiscards }

// OID of the object for one interface.
func (o Object) OID(ifIndex uint32) string {
	return objectColumn[o] + "." + strconv.FormatUint(uint64(ifIndex), 10)
}
