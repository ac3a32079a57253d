package integration

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
)

// vethLink is a veth pair: the polled end (Name) in this network namespace,
// its peer in a namespace of its own. Traffic is sent from here to the peer.
//
// Counting is exact because nothing else talks on it: IPv6 is off on both ends
// (no DAD, MLD, router solicitations) and both neighbours are static (no
// ARP). The peer's MTU is lower than ours: a frame larger than the peer's MTU
// is dropped by veth_xmit and counted in our tx_dropped, which net-snmp
// reports as ifOutDiscards (Linux dev stats, "drop" column of the Transmit
// half of /proc/net/dev). The peer down would not do: the carrier drops too,
// the qdisc becomes noop and its drops are not the device's.
type vethLink struct {
	Name    string // polled end, in the test's namespace
	IfIndex uint32
	NS      string
	Peer    string
	Local   net.IP
	Remote  net.IP
	conn    *net.UDPConn
}

// Frame sizes on the wire as veth counts them (no FCS): Ethernet 14 + IPv4 20
// + UDP 8 + payload.
const (
	smallPayload = 100
	smallFrame   = 14 + 20 + 8 + smallPayload // 142: delivered
	bigPayload   = 1200                       // 1242 > peer MTU 1000 + 14: dropped
	peerMTU      = 1000
)

var vethSeq atomic.Uint32

func newVethLink(t *testing.T) *vethLink {
	t.Helper()
	requireRoot(t)
	requireTool(t, "ip", "iproute2")
	n := vethSeq.Add(1)
	id := fmt.Sprintf("%05x%x", os.Getpid()&0xfffff, n&0xf)
	// 10.254.X.Y/30 from pid and sequence, so parallel runs do not collide
	block := (os.Getpid()*8 + int(n)*4) % 65536
	l := &vethLink{
		Name:   "chsA" + id,
		Peer:   "chsB" + id,
		NS:     "chsnmp-" + id,
		Local:  net.IPv4(10, 254, byte(block>>8), byte(block&0xfc|1)),
		Remote: net.IPv4(10, 254, byte(block>>8), byte(block&0xfc|2)),
	}
	t.Cleanup(l.remove)
	run(t, "ip", "netns", "add", l.NS)
	run(t, "ip", "link", "add", l.Name, "type", "veth", "peer", "name", l.Peer, "netns", l.NS)
	run(t, "sysctl", "-qw", "net.ipv6.conf."+l.Name+".disable_ipv6=1")
	run(t, "ip", "netns", "exec", l.NS, "sysctl", "-qw", "net.ipv6.conf."+l.Peer+".disable_ipv6=1")
	run(t, "ip", "addr", "add", l.Local.String()+"/30", "dev", l.Name)
	run(t, "ip", "-n", l.NS, "addr", "add", l.Remote.String()+"/30", "dev", l.Peer)
	run(t, "ip", "-n", l.NS, "link", "set", l.Peer, "mtu", strconv.Itoa(peerMTU), "up")
	run(t, "ip", "link", "set", l.Name, "up")
	run(t, "ip", "neigh", "replace", l.Remote.String(), "lladdr", mac(t, l.Peer, l.NS), "dev", l.Name, "nud", "permanent")
	run(t, "ip", "-n", l.NS, "neigh", "replace", l.Local.String(), "lladdr", mac(t, l.Name, ""), "dev", l.Peer, "nud", "permanent")

	ifc, err := net.InterfaceByName(l.Name)
	if err != nil {
		t.Fatalf("veth %s: %v", l.Name, err)
	}
	l.IfIndex = uint32(ifc.Index)
	// unconnected: ICMP port unreachable from the peer must not fail later writes
	l.conn, err = net.ListenUDP("udp4", &net.UDPAddr{IP: l.Local})
	if err != nil {
		t.Fatalf("UDP socket on %s: %v", l.Local, err)
	}
	return l
}

// Send transmits n UDP datagrams of payload bytes to the peer. veth_xmit
// counts them before sendto returns, so counters are final on return.
func (l *vethLink) Send(t *testing.T, n, payload int) {
	t.Helper()
	buf := make([]byte, payload)
	dst := &net.UDPAddr{IP: l.Remote, Port: 9}
	for i := 0; i < n; i++ {
		if _, err := l.conn.WriteToUDP(buf, dst); err != nil {
			t.Fatalf("send %d/%d on %s: %v", i+1, n, l.Name, err)
		}
	}
}

// KernelTx reads tx_bytes, tx_packets, tx_dropped from sysfs: the values
// net-snmp serves, read independently of SNMP.
func (l *vethLink) KernelTx(t *testing.T) (bytes, packets, dropped uint64) {
	t.Helper()
	read := func(name string) uint64 {
		b, err := os.ReadFile("/sys/class/net/" + l.Name + "/statistics/" + name)
		if err != nil {
			t.Fatalf("%v", err)
		}
		v, err := strconv.ParseUint(strings.TrimSpace(string(b)), 10, 64)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return v
	}
	return read("tx_bytes"), read("tx_packets"), read("tx_dropped")
}

func (l *vethLink) remove() {
	if l.conn != nil {
		l.conn.Close()
	}
	// deleting one end deletes both; deleting the namespace removes the peer too
	_ = exec.Command("ip", "link", "del", l.Name).Run()
	_ = exec.Command("ip", "netns", "del", l.NS).Run()
}

func mac(t *testing.T, dev, ns string) string {
	t.Helper()
	args := []string{"-br", "link", "show", dev}
	if ns != "" {
		args = append([]string{"-n", ns}, args...)
	}
	out := run(t, "ip", args...)
	f := strings.Fields(out)
	if len(f) < 3 {
		t.Fatalf("ip %v: cannot read the MAC from %q", args, out)
	}
	return f[2]
}

func run(t *testing.T, name string, args ...string) string {
	t.Helper()
	out, err := exec.Command(name, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return string(out)
}

func requireRoot(t *testing.T) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Fatalf("this test creates network namespaces and veths: run it as root (sudo go test ./...)")
	}
}

func requireTool(t *testing.T, name, pkg string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		for _, dir := range []string{"/usr/sbin", "/sbin"} {
			if _, serr := os.Stat(dir + "/" + name); serr == nil {
				return dir + "/" + name
			}
		}
		t.Fatalf("%s not found: install the Debian package %s (./cheetah setup pins it)", name, pkg)
	}
	return p
}
