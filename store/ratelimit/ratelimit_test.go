package ratelimit_test

import (
	"sync"
	"testing"
	"time"

	"storefront/store/platform"
	"storefront/store/ratelimit"
	"storefront/store/storetest"
)

// TestRateSeveralWindows: "2 a minute and 5 in 5 minutes" admits an event
// only when every window allows it, and the wait is the longest one.
func TestRateSeveralWindows(t *testing.T) {
	st, clock := limiter(t)
	now := time.Unix(1_800_000_000, 0)
	clock.Set(func() time.Time { return now })
	ctx := t.Context()
	rate := ratelimit.Rate{{N: 2, Per: time.Minute}, {N: 5, Per: 5 * time.Minute}}
	allow := func() ratelimit.Admission {
		t.Helper()
		a, err := st.Allow(ctx, "comment", "u1", rate)
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	var got []bool
	for i := range 4 { // two tries in each of four minutes
		got = append(got, allow().Allowed)
		got = append(got, allow().Allowed)
		third := allow()
		if third.Allowed || third.RetryAfter <= 0 || (i < 2 && third.RetryAfter > time.Minute) {
			t.Fatalf("third in minute %d: %+v", i, third)
		}
		now = now.Add(61 * time.Second)
	}
	// 8 attempts admitted in pairs; the 5-minute window stops the 6th.
	want := []bool{true, true, true, true, true, false, false, false}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("admitted %v, want %v", got, want)
		}
	}
	a := allow()
	// The minute window is empty now; the 5-minute one frees its oldest
	// entry (at 0 s) at 300 s, and it is 244 s.
	if a.Allowed || a.RetryAfter != 56*time.Second {
		t.Fatalf("the 5-minute window should say 56s: %+v", a)
	}
	now = now.Add(a.RetryAfter)
	if !allow().Allowed {
		t.Fatal("not admitted after the announced wait")
	}
}

// TestRateRefund: a refunded event no longer counts.
func TestRateRefund(t *testing.T) {
	st, _ := limiter(t)
	ctx := t.Context()
	rate := ratelimit.Rate{{N: 1, Per: time.Minute}}
	a, err := st.Allow(ctx, "login", "x", rate)
	if err != nil || !a.Allowed {
		t.Fatal(a, err)
	}
	if err := st.Refund(ctx, a); err != nil {
		t.Fatal(err)
	}
	if b, err := st.Allow(ctx, "login", "x", rate); err != nil || !b.Allowed {
		t.Fatalf("after refund: %+v %v", b, err)
	}
	if b, err := st.Allow(ctx, "login", "x", rate); err != nil || b.Allowed {
		t.Fatalf("a second event within the window was allowed: %+v %v", b, err)
	}
}

// TestRateConcurrent: many clients at once never get more than N in.
func TestRateConcurrent(t *testing.T) {
	st, _ := limiter(t)
	ctx := t.Context()
	rate := ratelimit.Rate{{N: 7, Per: time.Minute}, {N: 20, Per: time.Hour}}
	var mu sync.Mutex
	admitted := 0
	var wg sync.WaitGroup
	for range 50 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			a, err := st.Allow(ctx, "vote", "u", rate)
			if err != nil {
				t.Error(err)
				return
			}
			if a.Allowed {
				mu.Lock()
				admitted++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if admitted != 7 {
		t.Fatalf("admitted %d, want 7", admitted)
	}
}

// TestRateOff: an empty rate or a zero count allows everything.
func TestRateOff(t *testing.T) {
	st, _ := limiter(t)
	for _, r := range []ratelimit.Rate{nil, {{N: 0, Per: time.Minute}}} {
		for range 5 {
			if a, err := st.Allow(t.Context(), "x", "y", r); err != nil || !a.Allowed {
				t.Fatalf("%v: %+v %v", r, a, err)
			}
		}
	}
}

func TestMain(m *testing.M) { storetest.Main(m) }

// limiter is a limiter on a clean Redis, with its clock.
func limiter(t *testing.T) (*ratelimit.Limiter, *platform.Clock) {
	clock := &platform.Clock{}
	return ratelimit.New(platform.Base{Redis: storetest.Redis(t), Clock: clock}), clock
}
