// Package kafkatest gives the collector's tests a real Kafka broker: the
// repository's `./cheetah broker` (in-JVM KRaft, every topic of
// schemas/topics.yaml created), or the one named by CHEETAH_TEST_KAFKA
// (HOST:PORT, e.g. a `./cheetah broker` started by hand), and reads its topics.
package kafkatest

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/Shopify/sarama"
)

// Broker returns a bootstrap address, starting `./cheetah broker` (stopped
// when the test ends) unless CHEETAH_TEST_KAFKA names one.
func Broker(t testing.TB) string {
	t.Helper()
	if b := os.Getenv("CHEETAH_TEST_KAFKA"); b != "" {
		return b
	}
	_, file, _, _ := runtime.Caller(0)
	script := filepath.Join(filepath.Dir(file), "../../../../cheetah")
	if _, err := os.Stat(script); err != nil {
		t.Fatalf("no %s: the test broker is the repository's ./cheetah broker (or set CHEETAH_TEST_KAFKA=HOST:PORT)", script)
	}
	cmd := exec.Command(script, "broker", "--port", "0")
	stdin, err := cmd.StdinPipe() // closing it stops the broker
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr, err := os.CreateTemp(t.TempDir(), "broker-stderr")
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting %s broker: %v", script, err)
	}
	exited := make(chan struct{})
	ready := make(chan string, 1)
	go func() {
		s := bufio.NewScanner(stdout)
		for s.Scan() {
			var l struct{ Event, Bootstrap string }
			if json.Unmarshal(s.Bytes(), &l) == nil && l.Event == "ready" {
				ready <- l.Bootstrap
			}
		}
		_ = cmd.Wait()
		close(exited)
	}()
	t.Cleanup(func() {
		_ = stdin.Close()
		for _, s := range []os.Signal{nil, syscall.SIGTERM, syscall.SIGKILL} {
			if s != nil {
				_ = cmd.Process.Signal(s) // by PID: the process this test started
			}
			select {
			case <-exited:
				return
			case <-time.After(20 * time.Second):
			}
		}
	})
	select {
	case b := <-ready:
		return b
	case <-exited:
	case <-time.After(5 * time.Minute): // a cold ./cheetah runs its setup steps first
	}
	log, _ := os.ReadFile(stderr.Name())
	t.Fatalf("./cheetah broker gave no ready line; its stderr:\n%s", log)
	return ""
}

// End returns the next offset of each partition of topic. A broker that has
// just started may not have settled its partition leaders: its answers are
// retried (fresh metadata) for up to 30 s.
func End(t testing.TB, bootstrap, topic string) map[int32]int64 {
	t.Helper()
	c := client(t, bootstrap)
	deadline := time.Now().Add(30 * time.Second)
	for {
		end, err := ends(c, topic)
		if err == nil {
			return end
		}
		if time.Now().After(deadline) {
			t.Fatalf("end offsets of %s: %v", topic, err)
		}
		_ = c.RefreshMetadata(topic)
		time.Sleep(100 * time.Millisecond)
	}
}

func ends(c sarama.Client, topic string) (map[int32]int64, error) {
	parts, err := c.Partitions(topic)
	if err != nil {
		return nil, err
	}
	end := map[int32]int64{}
	for _, p := range parts {
		if end[p], err = c.GetOffset(topic, p, sarama.OffsetNewest); err != nil {
			return nil, fmt.Errorf("partition %d: %w", p, err)
		}
	}
	return end, nil
}

// Read returns the record values of topic between from (offsets, from End)
// and the topic's current end.
func Read(t testing.TB, bootstrap, topic string, from map[int32]int64) [][]byte {
	t.Helper()
	c := client(t, bootstrap)
	consumer, err := sarama.NewConsumerFromClient(c)
	if err != nil {
		t.Fatal(err)
	}
	defer consumer.Close()
	var values [][]byte
	for p, end := range End(t, bootstrap, topic) {
		start := from[p]
		if start >= end {
			continue
		}
		pc, err := consumer.ConsumePartition(topic, p, start)
		if err != nil {
			t.Fatalf("consuming %s/%d from %d: %v", topic, p, start, err)
		}
		for next := start; next < end; {
			select {
			case m := <-pc.Messages():
				values = append(values, m.Value)
				next = m.Offset + 1
			case err := <-pc.Errors():
				t.Fatalf("reading %s/%d: %v", topic, p, err)
			case <-time.After(30 * time.Second):
				t.Fatalf("%s/%d: no record at offset %d of %d within 30 s", topic, p, next, end)
			}
		}
		pc.Close()
	}
	return values
}

func client(t testing.TB, bootstrap string) sarama.Client {
	t.Helper()
	cfg := sarama.NewConfig()
	cfg.Version = sarama.V2_8_0_0
	c, err := sarama.NewClient([]string{bootstrap}, cfg)
	if err != nil {
		t.Fatalf("connecting to Kafka at %s: %v", bootstrap, err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}
