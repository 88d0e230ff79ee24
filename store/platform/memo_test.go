package platform_test

import (
	"sync"
	"testing"
	"time"

	"storefront/store/platform"
)

func TestMemoExpiresForgetsAndStaysBounded(t *testing.T) {
	now := time.Unix(1_000_000, 0)
	m := platform.NewMemo[int, string](3)
	m.Put(1, "one", now.Add(time.Minute))
	m.Put(2, "two", time.Time{})
	if v, ok := m.Get(1, now); !ok || v != "one" {
		t.Fatalf("Get(1) = %q, %v", v, ok)
	}
	if _, ok := m.Get(1, now.Add(time.Minute)); ok {
		t.Fatal("an entry was given at its expiry")
	}
	if !m.Has(1) {
		t.Fatal("Has forgot an expired entry that was put")
	}
	if v, ok := m.Get(2, now.Add(24*time.Hour)); !ok || v != "two" {
		t.Fatalf("an entry without expiry: %q, %v", v, ok)
	}
	m.Forget(2)
	if _, ok := m.Get(2, now); ok || m.Has(2) {
		t.Fatal("a forgotten entry was given")
	}
	m.Put(2, "two", time.Time{})
	m.Put(3, "three", time.Time{})
	m.Put(4, "four", time.Time{}) // past the bound: starts over
	if m.Len() != 1 || !m.Has(4) || m.Has(1) {
		t.Fatalf("after the bound: %d entries, has 4 %v, has 1 %v", m.Len(), m.Has(4), m.Has(1))
	}
}

func TestMemoConcurrentUseStaysBounded(t *testing.T) {
	m := platform.NewMemo[int, int](100)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 5_000 {
				k := g*5_000 + i
				m.Put(k, k, time.Time{})
				if v, ok := m.Get(k, time.Now()); ok && v != k {
					t.Errorf("Get(%d) = %d", k, v)
				}
				m.Forget(k - 1)
			}
		}()
	}
	wg.Wait()
	if n := m.Len(); n > 100 {
		t.Fatalf("%d entries past a bound of 100", n)
	}
}
