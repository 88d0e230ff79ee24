package media

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// pictureMemoryLimit is the most memory one picture's processing may
// take, whatever its shape.
const pictureMemoryLimit = 400 << 20

// memoryRun is what processing one upload cost.
type memoryRun struct {
	err                 error
	peakHeap, heapAfter uint64 // heap in use (bytes in spans holding objects)
	peakRSS, rssAfter   uint64 // resident set, from /proc (0 where there is none)
	took                time.Duration
}

// measureProcessing processes data after a full collection, sampling the
// heap in use every millisecond (runtime/metrics, which does not stop the
// world) and resetting the process's peak resident size first, so that
// the peaks are this picture's.
func measureProcessing(data []byte) memoryRun {
	runtime.GC()
	debug.FreeOSMemory()
	resetPeakRSS()
	var peak atomic.Uint64
	peak.Store(heapInUse())
	done := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		for {
			if h := heapInUse(); h > peak.Load() {
				peak.Store(h)
			}
			select {
			case <-done:
				return
			case <-tick.C:
			}
		}
	}()
	start := time.Now()
	_, err := processImage(context.Background(), NewMemoryBudget(ImageMemoryBudget), data, DefaultMaxImageBytes)
	took := time.Since(start)
	close(done)
	<-sampled
	if h := heapInUse(); h > peak.Load() {
		peak.Store(h)
	}
	return memoryRun{err: err, peakHeap: peak.Load(), heapAfter: heapInUse(), peakRSS: procStatus("VmHWM"), rssAfter: procStatus("VmRSS"), took: took}
}

// estimate is the memory processImage reserves for data.
func estimate(data []byte) int64 {
	cfg, format, err := image.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		return 0
	}
	cost, err := costOf(format, cfg, data)
	if err != nil {
		return 0
	}
	return workingMemory(cost, len(data), cfg.Width, cfg.Height)
}

var heapSamples = []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}, {Name: "/memory/classes/heap/unused:bytes"}}

// heapInUse is MemStats.HeapInuse without stopping the world: the bytes
// of the spans that hold objects, live or not yet swept.
func heapInUse() uint64 {
	s := make([]metrics.Sample, len(heapSamples))
	copy(s, heapSamples)
	metrics.Read(s)
	return s[0].Value.Uint64() + s[1].Value.Uint64()
}

// resetPeakRSS makes /proc/self/status's VmHWM start again from now.
func resetPeakRSS() { _ = os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) }

// procStatus reads a size in /proc/self/status in bytes (0 without /proc).
func procStatus(field string) uint64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			kb, _ := strconv.ParseUint(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb << 10
		}
	}
	return 0
}

func mb(n uint64) string { return fmt.Sprintf("%.0f MB", float64(n)/(1<<20)) }

// TestPictureMemoryBounded: processing each hostile shape, one after the
// other with a collection between, never has more than 400 MB of heap in
// use, gives it back when done, and is processed or refused as expected.
// With -race only the quick shapes run: the race detector makes the
// work twenty times slower (ten minutes for them all) and can find
// nothing in it, which is one goroutine; the run without -race (CI's
// step 3) processes them all.
func TestPictureMemoryBounded(t *testing.T) {
	if raceBuild {
		t.Log("-race: only the quick shapes")
	}
	for _, shape := range hostileShapes() {
		if raceBuild && !shape.quick {
			continue
		}
		data := shape.make()
		if len(data) > DefaultMaxImageBytes {
			t.Fatalf("%s: the test file is %d bytes, over the upload limit", shape.name, len(data))
		}
		runtime.GC()
		base := heapInUse()
		run := measureProcessing(data)
		switch {
		case shape.refused == nil && run.err != nil:
			t.Errorf("%s: refused: %v", shape.name, run.err)
		case shape.refused != nil && !errors.Is(run.err, shape.refused):
			t.Errorf("%s: %v, want %v", shape.name, run.err, shape.refused)
		}
		if run.peakHeap > pictureMemoryLimit {
			t.Errorf("%s: %s of heap in use at the peak, over %s", shape.name, mb(run.peakHeap), mb(pictureMemoryLimit))
		}
		if run.heapAfter > base+64<<20 {
			t.Errorf("%s: %s of heap still in use once done (%s before)", shape.name, mb(run.heapAfter), mb(base))
		}
		t.Logf("%s: %d KB, peak heap %s, peak RSS %s, RSS after %s, %v (%v)", shape.name, len(data)>>10,
			mb(run.peakHeap), mb(run.peakRSS), mb(run.rssAfter), run.took.Round(10*time.Millisecond), run.err)
	}
}

// BenchmarkPictureMemory measures each hostile shape once and reports
// its peak heap, peak resident set and the resident set once done, in MB,
// with the table row for docs/search-and-pictures.md:
//
//	go test ./store/media -run '^$' -bench PictureMemory -benchtime 1x
//
// (-bench 'PictureMemory/PNG' picks shapes by name).
func BenchmarkPictureMemory(b *testing.B) {
	for _, shape := range hostileShapes() {
		b.Run(strings.ReplaceAll(shape.name, " ", "_"), func(b *testing.B) {
			data := shape.make()
			var run memoryRun
			for b.Loop() {
				run = measureProcessing(data)
			}
			result := "processed"
			if run.err != nil {
				result = "refused: " + run.err.Error()
			}
			b.ReportMetric(float64(run.peakHeap)/(1<<20), "peak-heap-MB")
			b.ReportMetric(float64(run.peakRSS)/(1<<20), "peak-RSS-MB")
			b.ReportMetric(float64(run.rssAfter)/(1<<20), "RSS-after-MB")
			b.Logf("| %s | %d KB | %s | %s | %s | %s | %s | %.1f s |", shape.name, len(data)>>10, result,
				mb(uint64(estimate(data))), mb(run.peakHeap), mb(run.peakRSS), mb(run.rssAfter), run.took.Seconds())
		})
	}
}
