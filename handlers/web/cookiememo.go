package web

import (
	"sync"
	"time"
)

// cookieMemo remembers cookies this process verified lately, so that a
// returning visitor's cached page costs no HMAC, AES or JSON work: a hit is
// a few microseconds, and verifying the two cookies was a fifth of it. Only
// cookies that passed are kept, each for at most cookieMemoTTL (so a
// cookie is never accepted more than that past its own expiry), and the
// memo is emptied when it grows past cookieMemoMax (a flood of forged
// cookies is verified in full and never stored).
type cookieMemo struct {
	mu sync.Mutex
	m  map[string]memoEntry
}

type memoEntry struct {
	claim userClaim
	until time.Time
}

const (
	cookieMemoTTL = time.Minute
	cookieMemoMax = 50_000
)

func (m *cookieMemo) get(key string, now time.Time) (userClaim, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	e, ok := m.m[key]
	if !ok || now.After(e.until) {
		return userClaim{}, false
	}
	return e.claim, true
}

func (m *cookieMemo) put(key string, c userClaim, now time.Time) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.m == nil || len(m.m) >= cookieMemoMax {
		m.m = make(map[string]memoEntry)
	}
	m.m[key] = memoEntry{claim: c, until: now.Add(cookieMemoTTL)}
}
