package collector

import (
	"bufio"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"github.com/prometheus/client_golang/prometheus"
)

// The listeners' UDP sockets, seen from the kernel's side. goflow2's receiver
// opens them without a receive-buffer option and keeps them to itself, so the
// collector finds them afterwards among its own file descriptors (socket inode)
// and in /proc/net/udp and /proc/net/udp6 (local port + inode): there it sets
// SO_RCVBUF (-rcvbuf) and reads the kernel's count of datagrams dropped because
// the buffer was full (the tables' "drops" column), which no user-space counter
// can see. Linux only, as the rest of Cheetah.

// udpSocket is one of the collector's own UDP sockets.
type udpSocket struct {
	Port  int
	Inode uint64
	FD    int // in this process, when it was found
}

// udpRow is one row of /proc/net/udp or /proc/net/udp6.
type udpRow struct {
	LocalPort int
	Inode     uint64
	RxQueue   uint64 // bytes waiting in the receive buffer (kernel accounting)
	Drops     uint64 // datagrams the kernel dropped for this socket
}

// procNet is where the UDP tables are read (a variable for tests of the parser).
var procNet = []string{"/proc/net/udp", "/proc/net/udp6"}

// readUDPTables reads every row of the UDP tables of this network namespace.
func readUDPTables() ([]udpRow, error) {
	var rows []udpRow
	for _, path := range procNet {
		f, err := os.Open(path)
		if os.IsNotExist(err) {
			continue // no IPv6
		}
		if err != nil {
			return nil, err
		}
		r, err := parseUDPTable(f, path)
		f.Close()
		if err != nil {
			return nil, err
		}
		rows = append(rows, r...)
	}
	return rows, nil
}

// parseUDPTable parses the text of /proc/net/udp{,6}: a header line, then
// "sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid
// timeout inode ref pointer drops", numbers in hex where the kernel prints them so.
func parseUDPTable(f io.Reader, name string) ([]udpRow, error) {
	var rows []udpRow
	s := bufio.NewScanner(f)
	first := true
	for s.Scan() {
		if first {
			first = false
			continue
		}
		fields := strings.Fields(s.Text())
		if len(fields) < 13 {
			return nil, fmt.Errorf("%s: row %q has %d fields, want 13", name, s.Text(), len(fields))
		}
		_, portHex, ok := strings.Cut(fields[1], ":")
		_, rxHex, ok2 := strings.Cut(fields[4], ":")
		if !ok || !ok2 {
			return nil, fmt.Errorf("%s: row %q: no port or rx_queue", name, s.Text())
		}
		port, err1 := strconv.ParseUint(portHex, 16, 16)
		rx, err2 := strconv.ParseUint(rxHex, 16, 64)
		inode, err3 := strconv.ParseUint(fields[9], 10, 64)
		drops, err4 := strconv.ParseUint(fields[12], 10, 64)
		for _, err := range []error{err1, err2, err3, err4} {
			if err != nil {
				return nil, fmt.Errorf("%s: row %q: %w", name, s.Text(), err)
			}
		}
		rows = append(rows, udpRow{LocalPort: int(port), Inode: inode, RxQueue: rx, Drops: drops})
	}
	return rows, s.Err()
}

// ownSocketInodes maps the inode of each socket this process holds to its fd.
func ownSocketInodes() (map[uint64]int, error) {
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return nil, err
	}
	out := make(map[uint64]int)
	for _, e := range entries {
		fd, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		target, err := os.Readlink(filepath.Join("/proc/self/fd", e.Name()))
		if err != nil {
			continue // closed meanwhile (ReadDir's own fd, for one)
		}
		if rest, ok := strings.CutPrefix(target, "socket:["); ok {
			if inode, err := strconv.ParseUint(strings.TrimSuffix(rest, "]"), 10, 64); err == nil {
				out[inode] = fd
			}
		}
	}
	return out, nil
}

// findOwnUDPSockets returns this process's UDP sockets bound to port.
func findOwnUDPSockets(port int) ([]udpSocket, error) {
	own, err := ownSocketInodes()
	if err != nil {
		return nil, fmt.Errorf("listing this process's sockets (/proc/self/fd): %w", err)
	}
	rows, err := readUDPTables()
	if err != nil {
		return nil, fmt.Errorf("reading the kernel's UDP tables: %w", err)
	}
	var out []udpSocket
	for _, r := range rows {
		if fd, ok := own[r.Inode]; ok && r.LocalPort == port {
			out = append(out, udpSocket{Port: port, Inode: r.Inode, FD: fd})
		}
	}
	return out, nil
}

// rmemMax is net.core.rmem_max (0 when unreadable): the kernel's cap on SO_RCVBUF.
func rmemMax() int {
	b, err := os.ReadFile("/proc/sys/net/core/rmem_max")
	if err != nil {
		return 0
	}
	v, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	return v
}

// receiveBuffer reads SO_RCVBUF: the bytes the kernel accounts for the socket
// (twice what was asked, capped at 2 × net.core.rmem_max).
func receiveBuffer(fd int) (int, error) {
	return syscall.GetsockoptInt(fd, syscall.SOL_SOCKET, syscall.SO_RCVBUF)
}

// setReceiveBuffer asks for bytes of receive buffer and returns what the
// kernel granted (read back).
func setReceiveBuffer(fd, bytes int) (int, error) {
	if err := syscall.SetsockoptInt(fd, syscall.SOL_SOCKET, syscall.SO_RCVBUF, bytes); err != nil {
		return 0, fmt.Errorf("setsockopt SO_RCVBUF %d: %w", bytes, err)
	}
	return receiveBuffer(fd)
}

// rcvbufShortfall says what to do when the kernel granted less than asked
// (Linux doubles the value asked for its own bookkeeping, so granted < 2 × asked
// means it was capped at net.core.rmem_max); "" when it granted it all.
func rcvbufShortfall(asked, granted, max int) string {
	if granted >= 2*asked {
		return ""
	}
	return fmt.Sprintf("the kernel granted %d bytes of UDP receive buffer (2 × net.core.rmem_max = %d), not the 2 × %d asked "+
		"(-rcvbuf %d): bursts beyond it are dropped by the kernel. Raise the cap as root: sysctl -w net.core.rmem_max=%d "+
		"(persist it in /etc/sysctl.d/)", granted, 2*max, asked, asked, asked)
}

// socketStats exports, per listener port, the kernel's view of the
// collector's own sockets, read from /proc at each scrape.
type socketStats struct {
	mu      sync.Mutex
	sockets []udpSocket
	rcvbuf  map[uint64]int
	logger  *slog.Logger

	drops, queued, buffer *prometheus.Desc
}

// ownSockets is the process's one socketStats (Prometheus' default registry
// is process-wide, as goflow2's metrics); Run resets it.
var ownSockets = newSocketStats()

func init() { prometheus.MustRegister(ownSockets) }

func newSocketStats() *socketStats {
	return &socketStats{
		rcvbuf: map[uint64]int{},
		logger: slog.Default(),
		drops: prometheus.NewDesc("cheetah_goflow2_socket_drops_total",
			"Datagrams the kernel dropped for the listener's UDP sockets because their receive buffer was full "+
				"(/proc/net/udp 'drops', summed over the port's sockets).", []string{"local_port"}, nil),
		queued: prometheus.NewDesc("cheetah_goflow2_socket_queued_bytes",
			"Bytes waiting in the listener's UDP receive buffers (/proc/net/udp rx_queue, kernel accounting).",
			[]string{"local_port"}, nil),
		buffer: prometheus.NewDesc("cheetah_goflow2_socket_receive_buffer_bytes",
			"The listener's UDP receive buffer as the kernel granted it (getsockopt SO_RCVBUF, smallest of the port's sockets).",
			[]string{"local_port"}, nil),
	}
}

// reset forgets the sockets of a previous Run.
func (s *socketStats) reset(logger *slog.Logger) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sockets, s.rcvbuf, s.logger = nil, map[uint64]int{}, logger
}

// add records the sockets of one listener.
func (s *socketStats) add(socks []udpSocket, rcvbuf map[uint64]int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sockets = append(s.sockets, socks...)
	for k, v := range rcvbuf {
		s.rcvbuf[k] = v
	}
}

// Describe implements prometheus.Collector.
func (s *socketStats) Describe(ch chan<- *prometheus.Desc) {
	ch <- s.drops
	ch <- s.queued
	ch <- s.buffer
}

// Collect implements prometheus.Collector: one read of the UDP tables.
func (s *socketStats) Collect(ch chan<- prometheus.Metric) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.sockets) == 0 {
		return
	}
	rows, err := readUDPTables()
	if err != nil {
		s.logger.Error("socket drops unknown: cannot read the kernel's UDP tables", slog.String("error", err.Error()))
		return
	}
	byInode := make(map[uint64]udpRow, len(rows))
	for _, r := range rows {
		byInode[r.Inode] = r
	}
	type sums struct {
		drops, queued uint64
		buffer        int
	}
	perPort := map[int]*sums{}
	var ports []int
	for _, sock := range s.sockets {
		r, ok := byInode[sock.Inode]
		if !ok || r.LocalPort != sock.Port {
			continue // closed (stopping)
		}
		p := perPort[sock.Port]
		if p == nil {
			p = &sums{}
			perPort[sock.Port] = p
			ports = append(ports, sock.Port)
		}
		p.drops += r.Drops
		p.queued += r.RxQueue
		if b := s.rcvbuf[sock.Inode]; p.buffer == 0 || b < p.buffer {
			p.buffer = b
		}
	}
	for _, port := range ports {
		p, label := perPort[port], strconv.Itoa(port)
		ch <- prometheus.MustNewConstMetric(s.drops, prometheus.CounterValue, float64(p.drops), label)
		ch <- prometheus.MustNewConstMetric(s.queued, prometheus.GaugeValue, float64(p.queued), label)
		ch <- prometheus.MustNewConstMetric(s.buffer, prometheus.GaugeValue, float64(p.buffer), label)
	}
}

// setupSockets finds the listener's sockets once goflow2 bound them, sets
// their receive buffer when asked (rcvbuf > 0), reads back what the kernel
// granted, logs it (a warning with the remedy when capped) and returns the
// smallest granted size.
func setupSockets(l Listener, rcvbuf int, stats *socketStats, logger *slog.Logger) (int, error) {
	socks, err := findOwnUDPSockets(l.Port)
	if err != nil {
		return 0, err
	}
	if len(socks) != l.Sockets {
		return 0, fmt.Errorf("found %d of this process's UDP sockets on port %d in /proc/net/udp{,6}, want %d (count=%d)",
			len(socks), l.Port, l.Sockets, l.Sockets)
	}
	granted := map[uint64]int{}
	smallest := 0
	for _, sock := range socks {
		var g int
		if rcvbuf > 0 {
			g, err = setReceiveBuffer(sock.FD, rcvbuf)
		} else {
			g, err = receiveBuffer(sock.FD)
		}
		if err != nil {
			return 0, fmt.Errorf("UDP receive buffer of port %d: %w", l.Port, err)
		}
		granted[sock.Inode] = g
		if smallest == 0 || g < smallest {
			smallest = g
		}
	}
	stats.add(socks, granted)
	attrs := []any{slog.Int("port", l.Port), slog.Int("sockets", len(socks)),
		slog.Int("rcvbuf_asked", rcvbuf), slog.Int("rcvbuf_granted", smallest)}
	if rcvbuf == 0 {
		logger.Info("UDP receive buffer: the kernel's default (-rcvbuf 0)", attrs...)
	} else if msg := rcvbufShortfall(rcvbuf, smallest, rmemMax()); msg != "" {
		logger.Warn(msg, attrs...)
	} else {
		logger.Info("UDP receive buffer granted", attrs...)
	}
	return smallest, nil
}
