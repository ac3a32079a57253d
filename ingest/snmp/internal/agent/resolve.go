package agent

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/gosnmp/gosnmp"
)

// InterfaceNames walks ifName and ifDescr once and returns, for each name,
// the ifIndexes carrying it in each column.
type InterfaceNames struct {
	ByIfName  map[string][]uint32
	ByIfDescr map[string][]uint32
}

// WalkNames reads the ifName and ifDescr columns (GETBULK walks).
func (s *Session) WalkNames() (*InterfaceNames, error) {
	n := &InterfaceNames{ByIfName: map[string][]uint32{}, ByIfDescr: map[string][]uint32{}}
	for _, col := range []struct {
		oid string
		dst map[string][]uint32
	}{{oidIfName, n.ByIfName}, {oidIfDescr, n.ByIfDescr}} {
		pdus, err := s.snmp.BulkWalkAll(col.oid)
		if err != nil {
			if isTimeout(err) {
				return nil, fmt.Errorf("walking %s: %w: %v", col.oid, ErrTimeout, err)
			}
			return nil, fmt.Errorf("walking %s: %w", col.oid, err)
		}
		addNames(col.dst, pdus)
	}
	return n, nil
}

// addNames files each OctetString of a walked column under its ifIndex (the
// OID's last arc); anything else an agent sends is skipped.
func addNames(dst map[string][]uint32, pdus []gosnmp.SnmpPDU) {
	for _, p := range pdus {
		idx, ok := lastArc(p.Name)
		if !ok || p.Type != gosnmp.OctetString {
			continue
		}
		b, _ := p.Value.([]byte)
		name := string(b)
		dst[name] = append(dst[name], idx)
	}
}

// Resolve finds the one ifIndex whose ifName, else ifDescr, equals name.
func (n *InterfaceNames) Resolve(name string) (uint32, error) {
	for _, col := range []struct {
		label string
		m     map[string][]uint32
	}{{"ifName", n.ByIfName}, {"ifDescr", n.ByIfDescr}} {
		switch idx := col.m[name]; len(idx) {
		case 0:
			continue
		case 1:
			return idx[0], nil
		default:
			return 0, fmt.Errorf("interface %q is ambiguous: %s %q is on ifIndexes %v; configure \"if_index\" instead", name, col.label, name, idx)
		}
	}
	return 0, fmt.Errorf("no interface named %q (by ifName or ifDescr); the agent has: %s", name, n.sample(12))
}

func (n *InterfaceNames) sample(max int) string {
	names := make([]string, 0, len(n.ByIfName))
	for k := range n.ByIfName {
		names = append(names, k)
	}
	if len(names) == 0 {
		for k := range n.ByIfDescr {
			names = append(names, k)
		}
	}
	sort.Strings(names)
	if len(names) == 0 {
		return "no interfaces at all"
	}
	more := ""
	if len(names) > max {
		more = fmt.Sprintf(" and %d more", len(names)-max)
		names = names[:max]
	}
	return strings.Join(names, ", ") + more
}

func lastArc(oid string) (uint32, bool) {
	i := strings.LastIndexByte(oid, '.')
	if i < 0 {
		return 0, false
	}
	v, err := strconv.ParseUint(oid[i+1:], 10, 32)
	return uint32(v), err == nil
}
