package main

import (
	"bytes"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
)

// lockedBuffer is an output the flusher and the test read concurrently.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// Lines written from many goroutines all arrive whole, without waiting
// for Close, and Close writes the rest.
func TestLogWriterKeepsEveryLine(t *testing.T) {
	out := &lockedBuffer{}
	w := newLogWriter(out)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 500 {
				fmt.Fprintf(w, "{\"g\":%d,\"i\":%d}\n", g, i)
			}
		}()
	}
	wg.Wait()
	deadline := time.Now().Add(10 * time.Second)
	for strings.Count(out.String(), "\n") < 4000 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if n := strings.Count(out.String(), "\n"); n != 4000 {
		t.Fatalf("%d lines arrived before Close, want 4000", n)
	}
	fmt.Fprintln(w, "last")
	w.Close()
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(lines) != 4001 || lines[4000] != "last" {
		t.Fatalf("%d lines after Close, last %q", len(lines), lines[len(lines)-1])
	}
	for _, l := range lines[:4000] {
		if !strings.HasPrefix(l, `{"g":`) || !strings.HasSuffix(l, "}") {
			t.Fatalf("torn line %q", l)
		}
	}
}
