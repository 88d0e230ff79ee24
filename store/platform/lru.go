package platform

import "container/list"

// SizedLRU is a map of values bounded by their total size in bytes: an
// add past the bound drops the least recently used entries. It does no
// locking; its owner (the page cache's in-process copy, the search cache)
// holds its own mutex around every call, together with rules of its own.
type SizedLRU[V any] struct {
	max, used int64
	order     *list.List // of *lruEntry[V], most recently used first
	byKey     map[string]*list.Element
}

type lruEntry[V any] struct {
	key  string
	val  V
	size int64
}

// NewSizedLRU returns an empty LRU that holds at most maxBytes.
func NewSizedLRU[V any](maxBytes int64) SizedLRU[V] {
	return SizedLRU[V]{max: maxBytes, order: list.New(), byKey: map[string]*list.Element{}}
}

// Get returns the value under key and marks it used.
func (l *SizedLRU[V]) Get(key string) (V, bool) {
	el, ok := l.byKey[key]
	if !ok {
		var zero V
		return zero, false
	}
	l.order.MoveToFront(el)
	return el.Value.(*lruEntry[V]).val, true
}

// Peek returns the value under key without marking it used.
func (l *SizedLRU[V]) Peek(key string) (V, bool) {
	el, ok := l.byKey[key]
	if !ok {
		var zero V
		return zero, false
	}
	return el.Value.(*lruEntry[V]).val, true
}

// Add holds val under key (replacing what was there), then drops the
// least recently used entries until the total fits.
func (l *SizedLRU[V]) Add(key string, val V, size int64) {
	l.Remove(key)
	l.byKey[key] = l.order.PushFront(&lruEntry[V]{key: key, val: val, size: size})
	l.used += size
	for l.used > l.max && l.order.Len() > 0 {
		l.Remove(l.order.Back().Value.(*lruEntry[V]).key)
	}
}

// Remove drops the entry under key, if any.
func (l *SizedLRU[V]) Remove(key string) {
	el, ok := l.byKey[key]
	if !ok {
		return
	}
	e := el.Value.(*lruEntry[V])
	l.order.Remove(el)
	delete(l.byKey, key)
	l.used -= e.size
}

// Clear drops every entry.
func (l *SizedLRU[V]) Clear() {
	l.order.Init()
	l.byKey = map[string]*list.Element{}
	l.used = 0
}

// Len returns the entries held and their total size.
func (l *SizedLRU[V]) Len() (int, int64) { return l.order.Len(), l.used }
