package platform

import (
	"sync"
	"time"
)

// Memo is a bounded map in process memory for answers that are one query
// away: a cookie verified lately, an item's name, a rendered fragment.
// Each entry may carry the time after which it is no longer given (the
// zero time: never). Past its bound the memo starts over empty: memory
// stays bounded whatever the input, a forgotten entry costs one query,
// and in the usual case (far fewer keys than the bound) nothing is lost.
// Its methods are safe for concurrent use.
type Memo[K comparable, V any] struct {
	mu  sync.RWMutex
	m   map[K]memoEntry[V]
	max int
}

type memoEntry[V any] struct {
	v     V
	until time.Time
}

// NewMemo returns an empty memo of at most max entries.
func NewMemo[K comparable, V any](max int) *Memo[K, V] {
	return &Memo[K, V]{m: map[K]memoEntry[V]{}, max: max}
}

// Get returns k's value, if it was put, not forgotten, and now is before
// the time it was put with.
func (m *Memo[K, V]) Get(k K, now time.Time) (V, bool) {
	m.mu.RLock()
	e, ok := m.m[k]
	m.mu.RUnlock()
	if !ok || (!e.until.IsZero() && !now.Before(e.until)) {
		var zero V
		return zero, false
	}
	return e.v, true
}

// Has reports whether k was put and not forgotten, however long ago.
func (m *Memo[K, V]) Has(k K) bool {
	m.mu.RLock()
	_, ok := m.m[k]
	m.mu.RUnlock()
	return ok
}

// Put keeps v for k until the given time (the zero time: until forgotten
// or the memo starts over).
func (m *Memo[K, V]) Put(k K, v V, until time.Time) {
	m.mu.Lock()
	if len(m.m) >= m.max {
		m.m = make(map[K]memoEntry[V])
	}
	m.m[k] = memoEntry[V]{v: v, until: until}
	m.mu.Unlock()
}

// Forget drops the keys.
func (m *Memo[K, V]) Forget(keys ...K) {
	m.mu.Lock()
	for _, k := range keys {
		delete(m.m, k)
	}
	m.mu.Unlock()
}

// Len is the number of entries kept, expired ones included.
func (m *Memo[K, V]) Len() int {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return len(m.m)
}
