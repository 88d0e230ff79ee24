package media

import (
	"context"
	"math"
	"runtime"
	"sync"
	"time"

	"golang.org/x/sync/semaphore"
)

// ImageMemoryBudget is the memory all the pictures being processed at
// once in this process may take together, and so the most one picture
// may take: a picture whose processing would need more is refused (see
// workingMemory).
const ImageMemoryBudget = 400 << 20

// MemoryBudget bounds the memory of picture processing in one process.
// Each picture reserves what its header says it will need and waits, in
// turn (first come, first served), until that much is free. A picture
// counts at least a share of the budget however small it is, so at most
// a few are worked on at once and they leave most of the CPU to shoppers.
type MemoryBudget struct {
	sem      *semaphore.Weighted
	size     int64
	minShare int64

	mu      sync.Mutex
	waiting int
	held    int
	avgHold time.Duration // moving average of how long a reservation is held
}

// NewMemoryBudget returns a budget of size bytes.
func NewMemoryBudget(size int64) *MemoryBudget {
	return &MemoryBudget{
		sem:      semaphore.NewWeighted(size),
		size:     size,
		minShare: size / int64(max(2, runtime.GOMAXPROCS(0)/2)),
		avgHold:  2 * time.Second,
	}
}

// Reserve waits until n bytes of the budget are free and takes them; the
// returned function gives them back. It waits at most half the time ctx
// has left (so that a picture that gets its memory still has time to be
// processed), answering a *LoadError (ErrImageBusy) then.
func (b *MemoryBudget) Reserve(ctx context.Context, n int64) (release func(), err error) {
	n = min(max(n, b.minShare), b.size)
	wait := ctx
	if deadline, ok := ctx.Deadline(); ok {
		var cancel context.CancelFunc
		wait, cancel = context.WithDeadline(ctx, time.Now().Add(time.Until(deadline)/2))
		defer cancel()
	}
	b.mu.Lock()
	b.waiting++
	b.mu.Unlock()
	err = b.sem.Acquire(wait, n)
	b.mu.Lock()
	b.waiting--
	if err == nil {
		b.held++
	}
	b.mu.Unlock()
	if err != nil {
		return nil, &LoadError{Reason: ErrImageBusy, RetryAfter: b.retryAfter()}
	}
	start := time.Now()
	var once sync.Once
	return func() {
		once.Do(func() {
			b.sem.Release(n)
			b.mu.Lock()
			b.held--
			b.avgHold = (3*b.avgHold + time.Since(start)) / 4
			b.mu.Unlock()
		})
	}, nil
}

// retryAfter estimates when the pictures being processed and those
// waiting will be done: the average time a picture holds its memory,
// once for each of them, in whole seconds from 1 to 60.
func (b *MemoryBudget) retryAfter() time.Duration {
	b.mu.Lock()
	defer b.mu.Unlock()
	secs := b.avgHold.Seconds() * float64(max(1, b.held+b.waiting))
	return time.Duration(min(60, max(1, math.Ceil(secs)))) * time.Second
}

// LoadError is a picture refused because the server is busy: it waited
// too long for memory (ErrImageBusy) or ran out of time while being
// processed (ErrImageTimeout). RetryAfter estimates when to try again.
type LoadError struct {
	Reason     error
	RetryAfter time.Duration
}

func (e *LoadError) Error() string { return e.Reason.Error() }

func (e *LoadError) Unwrap() error { return e.Reason }
