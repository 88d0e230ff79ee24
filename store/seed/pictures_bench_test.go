package seed

import (
	"syscall"
	"testing"
	"time"
)

// BenchmarkDrawDemoPictures is a cold start's drawing of every demo
// picture (go test ./store/seed -run '^$' -bench DrawDemoPictures). Beside
// the time it reports the CPU time, which a busy machine does not
// inflate.
func BenchmarkDrawDemoPictures(b *testing.B) {
	start := cpuTime()
	size := 0
	for b.Loop() {
		pics, err := drawDemoPictures()
		if err != nil {
			b.Fatal(err)
		}
		size = 0
		for _, img := range pics {
			for _, r := range img.Renditions {
				size += len(r.Bytes)
			}
		}
	}
	b.ReportMetric((cpuTime()-start).Seconds()/float64(b.N), "cpu-s/op")
	b.ReportMetric(float64(size)/(1<<20), "MB")
}

// cpuTime is the CPU time this process has used, user and system.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
