package store

import "container/list"

// sizedLRU is a map of values bounded by their total size in bytes: an
// add past the bound drops the least recently used entries. It does no
// locking; its owner (the page L1, the search cache) holds its own mutex
// around every call, together with the rules of its own.
type sizedLRU[V any] struct {
	max, used int64
	order     *list.List // of *lruEntry[V], most recently used first
	byKey     map[string]*list.Element
}

type lruEntry[V any] struct {
	key  string
	val  V
	size int64
}

func newSizedLRU[V any](maxBytes int64) sizedLRU[V] {
	return sizedLRU[V]{max: maxBytes, order: list.New(), byKey: map[string]*list.Element{}}
}

// get returns the value under key and marks it used.
func (l *sizedLRU[V]) get(key string) (V, bool) {
	el, ok := l.byKey[key]
	if !ok {
		var zero V
		return zero, false
	}
	l.order.MoveToFront(el)
	return el.Value.(*lruEntry[V]).val, true
}

// peek returns the value under key without marking it used.
func (l *sizedLRU[V]) peek(key string) (V, bool) {
	el, ok := l.byKey[key]
	if !ok {
		var zero V
		return zero, false
	}
	return el.Value.(*lruEntry[V]).val, true
}

// add holds val under key (replacing what was there), then drops the
// least recently used entries until the total fits.
func (l *sizedLRU[V]) add(key string, val V, size int64) {
	l.remove(key)
	l.byKey[key] = l.order.PushFront(&lruEntry[V]{key: key, val: val, size: size})
	l.used += size
	for l.used > l.max && l.order.Len() > 0 {
		l.remove(l.order.Back().Value.(*lruEntry[V]).key)
	}
}

// remove drops the entry under key, if any.
func (l *sizedLRU[V]) remove(key string) {
	el, ok := l.byKey[key]
	if !ok {
		return
	}
	e := el.Value.(*lruEntry[V])
	l.order.Remove(el)
	delete(l.byKey, key)
	l.used -= e.size
}

// clear drops every entry.
func (l *sizedLRU[V]) clear() {
	l.order.Init()
	l.byKey = map[string]*list.Element{}
	l.used = 0
}

// len returns the entries held and their total size.
func (l *sizedLRU[V]) len() (int, int64) { return l.order.Len(), l.used }
