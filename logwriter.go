package main

import (
	"io"
	"sync"
	"time"
)

// logWriter batches log lines on their way to stderr: one write per
// logFlushEvery (or per logBufMax bytes) instead of one per line. With a
// line per request, a write system call per request was a tenth of a
// cached page hit's CPU. Lines reach the output at most logFlushEvery
// late; Close writes what is left (a process killed with SIGKILL loses at
// most that interval's lines, as it loses the page cache's buffered views).
type logWriter struct {
	mu   sync.Mutex
	buf  []byte
	out  io.Writer
	stop chan struct{}
	done chan struct{}
}

const (
	logFlushEvery = 50 * time.Millisecond
	logBufMax     = 64 << 10
)

func newLogWriter(out io.Writer) *logWriter {
	w := &logWriter{out: out, stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(w.done)
		t := time.NewTicker(logFlushEvery)
		defer t.Stop()
		for {
			select {
			case <-t.C:
				w.flush()
			case <-w.stop:
				w.flush()
				return
			}
		}
	}()
	return w
}

// Write takes one or more whole lines (slog writes each record at once).
func (w *logWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf = append(w.buf, p...)
	if len(w.buf) >= logBufMax {
		w.writeLocked()
	}
	return len(p), nil
}

func (w *logWriter) flush() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.writeLocked()
}

func (w *logWriter) writeLocked() {
	if len(w.buf) > 0 {
		_, _ = w.out.Write(w.buf)
		w.buf = w.buf[:0]
	}
}

// Close writes what is buffered and stops the flusher.
func (w *logWriter) Close() {
	close(w.stop)
	<-w.done
}
