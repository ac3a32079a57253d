package collector

import (
	"errors"
	"net"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"cheetah/ingest/goflow2/internal/udptest"
)

func TestParseUDPTable(t *testing.T) {
	// Two rows as Linux 6.x prints them (by hand: port 0x2F2F = 12079, rx_queue 0x500 = 1280).
	text := `   sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode ref pointer drops
  215: 0100007F:2F2F 00000000:0000 07 00000000:00000500 00:00000000 00000000     0        0 2938776 2 000000008538fbc3 49
 7054: 00000000000000000000000001000000:DA56 00000000000000000000000000000000:0000 07 00000000:00000000 00:00000000 00000000     0        0 2938777 2 000000003e06ffd7 0
`
	rows, err := parseUDPTable(strings.NewReader(text), "udp")
	if err != nil {
		t.Fatal(err)
	}
	want := []udpRow{{LocalPort: 12079, Inode: 2938776, RxQueue: 1280, Drops: 49}, {LocalPort: 0xDA56, Inode: 2938777}}
	if len(rows) != 2 || rows[0] != want[0] || rows[1] != want[1] {
		t.Fatalf("rows = %+v, want %+v", rows, want)
	}
	if _, err := parseUDPTable(strings.NewReader("header\n 1: 0100007F:2F2F 0\n"), "udp"); err == nil ||
		!strings.Contains(err.Error(), "want 13") {
		t.Fatalf("short row: err = %v", err)
	}
}

func TestRcvbufShortfall(t *testing.T) {
	if msg := rcvbufShortfall(4<<20, 8<<20, 4<<20); msg != "" {
		t.Errorf("granted all: %q", msg)
	}
	msg := rcvbufShortfall(8<<20, 8<<20, 4<<20)
	for _, part := range []string{"granted 8388608 bytes", "sysctl -w net.core.rmem_max=8388608"} {
		if !strings.Contains(msg, part) {
			t.Errorf("capped: %q lacks %q", msg, part)
		}
	}
}

// A socket nobody reads, with the smallest buffer, overflows on a burst: the
// drops found through /proc/net/udp for this process's own socket are the
// kernel's (ss) and exactly the datagrams sent but never received.
func TestOwnSocketDropsAreTheKernels(t *testing.T) {
	conn, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	port := conn.LocalAddr().(*net.UDPAddr).Port
	socks, err := findOwnUDPSockets(port)
	if err != nil {
		t.Fatal(err)
	}
	if len(socks) != 1 {
		t.Fatalf("found %d own sockets on port %d, want 1", len(socks), port)
	}
	granted, err := setReceiveBuffer(socks[0].FD, 1)
	if err != nil {
		t.Fatal(err)
	}
	if granted <= 0 || granted > 8192 {
		t.Fatalf("granted %d bytes for 1 asked: want the kernel's minimum (a few KB)", granted)
	}

	const sent = 200
	out, err := net.DialUDP("udp", nil, conn.LocalAddr().(*net.UDPAddr))
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	payload := make([]byte, 500)
	for i := 0; i < sent; i++ {
		if _, err := out.Write(payload); err != nil {
			t.Fatal(err)
		}
	}
	// Drain what the buffer kept.
	received := 0
	buf := make([]byte, 2048)
	for {
		_ = conn.SetReadDeadline(time.Now().Add(200 * time.Millisecond))
		if _, err := conn.Read(buf); err != nil {
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				break
			}
			t.Fatal(err)
		}
		received++
	}
	rows, err := readUDPTables()
	if err != nil {
		t.Fatal(err)
	}
	var drops uint64
	for _, r := range rows {
		if r.Inode == socks[0].Inode {
			drops = r.Drops
		}
	}
	if drops == 0 || int(drops) != sent-received || int(drops) != udptest.SSDrops(t, port) {
		t.Fatalf("drops from /proc = %d; sent %d, received %d (want %d); ss says %d",
			drops, sent, received, sent-received, udptest.SSDrops(t, port))
	}

	// The metric reports them too.
	stats := newSocketStats()
	stats.add(socks, map[uint64]int{socks[0].Inode: granted})
	got := collectSocketStats(t, stats)
	if got["drops"] != float64(drops) || got["buffer"] != float64(granted) || got["queued"] != 0 {
		t.Fatalf("metrics = %v, want drops %d, buffer %d, queued 0", got, drops, granted)
	}
}

func TestSetReceiveBufferGrantsTwiceAsked(t *testing.T) {
	conn, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	socks, err := findOwnUDPSockets(conn.LocalAddr().(*net.UDPAddr).Port)
	if err != nil || len(socks) != 1 {
		t.Fatalf("sockets %v, err %v", socks, err)
	}
	max := rmemMax()
	if max < 65536 {
		t.Skipf("net.core.rmem_max is %d", max)
	}
	asked := max / 2
	if got, err := setReceiveBuffer(socks[0].FD, asked); err != nil || got != 2*asked {
		t.Fatalf("asked %d: granted %d (err %v), want %d", asked, got, err, 2*asked)
	}
	if got, _ := setReceiveBuffer(socks[0].FD, 2*max); got != 2*max || rcvbufShortfall(2*max, got, max) == "" {
		t.Fatalf("asked %d over rmem_max %d: granted %d, want %d and a shortfall", 2*max, max, got, 2*max)
	}
	// fd is really the socket's: getsockopt agrees with the Go side.
	raw, _ := conn.SyscallConn()
	var viaConn int
	_ = raw.Control(func(fd uintptr) {
		viaConn, _ = syscall.GetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF)
	})
	if viaConn != 2*max {
		t.Fatalf("SO_RCVBUF through the conn = %d, want %d", viaConn, 2*max)
	}
}

// collectSocketStats is one scrape of stats: "drops", "queued", "buffer" of its one port.
func collectSocketStats(t testing.TB, stats *socketStats) map[string]float64 {
	t.Helper()
	ch := make(chan prometheus.Metric, 16)
	stats.Collect(ch)
	close(ch)
	got := map[string]float64{}
	for m := range ch {
		var pb dto.Metric
		if err := m.Write(&pb); err != nil {
			t.Fatal(err)
		}
		name := m.Desc().String()
		v := pb.GetGauge().GetValue() + pb.GetCounter().GetValue()
		switch {
		case strings.Contains(name, "socket_drops_total"):
			got["drops"] = v
		case strings.Contains(name, "socket_queued_bytes"):
			got["queued"] = v
		case strings.Contains(name, "socket_receive_buffer_bytes"):
			got["buffer"] = v
		}
	}
	return got
}
