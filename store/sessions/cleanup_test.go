package sessions_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"

	"storefront/store/keys"
	"storefront/store/storetest"
	"storefront/store/workers"
	"storefront/wiring"
	"storefront/wiring/wiringtest"
)

// tickingClock is a clock that moves 1 ms each time it is read, so that
// sessions touched one after another have distinct, ordered scores.
func tickingClock() func() time.Time {
	var mu sync.Mutex
	t := time.Unix(1_700_000_000, 0)
	return func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		t = t.Add(time.Millisecond)
		return t
	}
}

func limitStore(t *testing.T, limit int64) *wiring.Services {
	t.Helper()
	st := wiringtest.New(t, func(o *wiring.Options) { o.SessionLimit = limit })
	st.SetClock(tickingClock())
	return st
}

// guest starts a guest session that viewed an item and has a cart line.
func guest(t *testing.T, st *wiring.Services, token string) {
	t.Helper()
	ctx := t.Context()
	if err := st.Sessions.NewSessionView(ctx, token, 7); err != nil {
		t.Fatal(err)
	}
	if err := st.Redis().HSet(ctx, keys.OfSession(token).Cart, "7", 1).Err(); err != nil {
		t.Fatal(err)
	}
}

// signedInSession starts a signed-in session for user id with a viewed
// item and a line in the account's cart (which is not the session's).
func signedInSession(t *testing.T, st *wiring.Services, token string, id int64) {
	t.Helper()
	ctx := t.Context()
	if _, err := st.Sessions.SignIn(ctx, "", token, id); err != nil {
		t.Fatal(err)
	}
	if err := st.Sessions.UpdateToken(ctx, token, false, 9); err != nil {
		t.Fatal(err)
	}
	if err := st.Redis().HSet(ctx, keys.AccountCart(id), "9", 2).Err(); err != nil {
		t.Fatal(err)
	}
}

// alive reports whether every trace of a session is present (true) or
// absent (false); a mix fails the test.
func alive(t *testing.T, rdb redis.UniversalClient, token string, signedIn bool) bool {
	t.Helper()
	ctx, sk := t.Context(), keys.OfSession(token)
	score, err := rdb.ZScore(ctx, keys.Recent, sk.ID).Result()
	parts := map[string]bool{
		keys.Recent:    err == nil,
		"viewed:<sid>": rdb.Exists(ctx, sk.Viewed).Val() == 1,
		"cart:<sid>":   rdb.Exists(ctx, sk.Cart).Val() == 1,
		keys.Login:     rdb.HExists(ctx, keys.Login, sk.ID).Val(),
	}
	want := parts[keys.Recent]
	if signedIn {
		delete(parts, "cart:<sid>") // a signed-in cart is the account's
	} else {
		parts[keys.Login] = want // a guest has no login: entry: checked below
		if rdb.HExists(ctx, keys.Login, sk.ID).Val() {
			t.Errorf("guest session %s has a login: entry", token)
		}
	}
	for k, v := range parts {
		if v != want {
			t.Errorf("session %s: %s present=%v but recent: present=%v", token, k, v, want)
		}
	}
	if want && (score >= keys.SignedInScore) != signedIn {
		t.Errorf("session %s: recent: score %v, signed in %v: guests must sort first", token, score, signedIn)
	}
	return want
}

// sessionKeyCount counts the keys of sessions (viewed lists and carts)
// left in Redis.
func sessionKeyCount(t *testing.T, rdb redis.UniversalClient) int64 {
	t.Helper()
	var n int64
	for _, pattern := range []string{keys.SessionViewedPrefix + "*", keys.OldSessionViewedPrefix + "*", keys.GuestCartPrefix + "*"} {
		found, err := scanAll(t.Context(), rdb, pattern)
		if err != nil {
			t.Fatal(err)
		}
		n += int64(len(found))
	}
	return n
}

// scanAll lists the found matching pattern (on every master of a Cluster).
func scanAll(ctx context.Context, rdb redis.UniversalClient, pattern string) ([]string, error) {
	scan := func(ctx context.Context, c redis.Cmdable) ([]string, error) {
		var out []string
		iter := c.Scan(ctx, 0, pattern, 1000).Iterator()
		for iter.Next(ctx) {
			out = append(out, iter.Val())
		}
		return out, iter.Err()
	}
	c, ok := rdb.(*redis.ClusterClient)
	if !ok {
		return scan(ctx, rdb)
	}
	var mu sync.Mutex
	var all []string
	err := c.ForEachMaster(ctx, func(ctx context.Context, m *redis.Client) error {
		found, err := scan(ctx, m)
		mu.Lock()
		all = append(all, found...)
		mu.Unlock()
		return err
	})
	return all, err
}

func sessionCount(t *testing.T, rdb redis.UniversalClient) int64 {
	t.Helper()
	n, err := rdb.ZCard(t.Context(), keys.Recent).Result()
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func TestCleanupEvictsLeastRecentlySeen(t *testing.T) {
	st := limitStore(t, 2)
	ctx, rdb := t.Context(), st.Redis()
	guest(t, st, "A")
	guest(t, st, "B")
	guest(t, st, "C")
	if err := st.Sessions.UpdateToken(ctx, "A", true, 8); err != nil { // A comes back
		t.Fatal(err)
	}
	n, err := st.Sessions.CleanSessions(ctx)
	if err != nil || n != 1 {
		t.Fatalf("evicted %d, %v; want 1", n, err)
	}
	if alive(t, rdb, "B", false) {
		t.Error("B, the least recently seen, was kept")
	}
	if !alive(t, rdb, "A", false) || !alive(t, rdb, "C", false) {
		t.Error("A or C was evicted")
	}
	if ids, _ := st.Sessions.RecentlyViewed(ctx, "A"); len(ids) != 2 || ids[0] != 8 {
		t.Errorf("A's recently viewed: %v", ids)
	}
	if n, err := st.Sessions.CleanSessions(ctx); n != 0 || err != nil {
		t.Errorf("second pass evicted %d, %v", n, err)
	}
}

func TestCleanupUnderLimitEvictsNothing(t *testing.T) {
	st := limitStore(t, 5)
	rdb := st.Redis()
	for i := range 5 {
		guest(t, st, fmt.Sprint("g", i))
	}
	if n, err := st.Sessions.CleanSessions(t.Context()); n != 0 || err != nil {
		t.Fatalf("evicted %d, %v", n, err)
	}

	// The worker too: let it run until it has reported a few times.
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan struct{})
	go func() { cleanupWorker(st).Run(ctx); close(done) }()
	waitFor(t, func() bool {
		ws, err := st.WorkerStatus(t.Context(), "cleanup")
		return err == nil && !ws.LastRun.IsZero()
	})
	cancel()
	<-done
	for i := range 5 {
		if !alive(t, rdb, fmt.Sprint("g", i), false) {
			t.Errorf("g%d evicted under the limit", i)
		}
	}
	ws, err := st.WorkerStatus(t.Context(), "cleanup")
	if err != nil || ws.Totals["evicted"] != 0 || ws.Error != "" || ws.Instance != st.Instance() {
		t.Errorf("status %+v, %v", ws, err)
	}
}

func TestCleanupEvictsGuestsFirst(t *testing.T) {
	st := limitStore(t, 10)
	rdb := st.Redis()
	signedInSession(t, st, "shopper", 42) // the oldest session of all
	for i := range 100 {
		guest(t, st, fmt.Sprint("g", i))
	}
	n, err := st.Sessions.CleanSessions(t.Context())
	if err != nil || n != 91 {
		t.Fatalf("evicted %d, %v; want 91", n, err)
	}
	if !alive(t, rdb, "shopper", true) {
		t.Fatal("the signed-in shopper was evicted while guests were left")
	}
	for i := range 100 {
		if got, want := alive(t, rdb, fmt.Sprint("g", i), false), i >= 91; got != want {
			t.Errorf("guest g%d alive=%v, want %v", i, got, want)
		}
	}

	// With no guests left, signed-in sessions go, least recently seen first.
	st2 := limitStore(t, 2)
	for i := range 4 {
		signedInSession(t, st2, fmt.Sprint("s", i), int64(i+1))
	}
	if n, err := st2.Sessions.CleanSessions(t.Context()); n != 2 || err != nil {
		t.Fatalf("evicted %d, %v; want 2", n, err)
	}
	for i := range 4 {
		if got, want := alive(t, st2.Redis(), fmt.Sprint("s", i), true), i >= 2; got != want {
			t.Errorf("shopper s%d alive=%v, want %v", i, got, want)
		}
	}
}

func TestCleanupSparesRecentlySeenAndIgnoresOrphans(t *testing.T) {
	st := limitStore(t, 2)
	ctx, rdb := t.Context(), st.Redis()
	// Leftovers of a session already gone from recent: (another cleaner or
	// a sign-out removed its entry and died before its keys) are not a
	// session: they never count towards the limit.
	rdb.Set(ctx, keys.OfSession("orphan").Viewed, "\x01", 0)
	guest(t, st, "touched")
	guest(t, st, "old")
	guest(t, st, "new")
	if err := st.Sessions.UpdateToken(ctx, "touched", true, 5); err != nil {
		t.Fatal(err)
	}
	n, err := st.Sessions.CleanSessions(ctx)
	if err != nil || n != 1 {
		t.Fatalf("evicted %d, %v; want 1 (the orphan is not a session)", n, err)
	}
	if alive(t, rdb, "old", false) {
		t.Error("the least recently seen guest was kept")
	}
	if !alive(t, rdb, "touched", false) || !alive(t, rdb, "new", false) {
		t.Error("a recently seen guest was evicted")
	}
}

func TestCleanupConcurrentPassesEvictExactlyTheExcess(t *testing.T) {
	const limit, total = 100, 1500
	st := limitStore(t, limit)
	ctx, rdb := t.Context(), st.Redis()
	for i := range total {
		tok := fmt.Sprint("t", i)
		if i%10 == 0 {
			signedInSession(t, st, tok, int64(i+1))
		} else {
			guest(t, st, tok)
		}
	}
	// A second store on the same Redis is another instance.
	other := wiring.New(rdb, st.DB(), st.Options(), storetest.Logger(t))
	t.Cleanup(other.Close)
	var wg sync.WaitGroup
	counts := make([]int64, 4)
	for i := range counts {
		s := st
		if i%2 == 1 {
			s = other
		}
		wg.Go(func() {
			n, err := s.Sessions.CleanSessions(ctx)
			if err != nil {
				t.Error(err)
			}
			counts[i] = n
		})
	}
	wg.Wait()
	sum := counts[0] + counts[1] + counts[2] + counts[3]
	if sum != total-limit || sessionCount(t, rdb) != limit {
		t.Fatalf("evicted %v (sum %d), %d sessions left; want %d evicted, %d left", counts, sum, sessionCount(t, rdb), total-limit, limit)
	}
	// Guests go first: the survivors are the 100 newest signed-in sessions
	// (of 150), and nothing of an evicted session is left.
	for i := range total {
		want := i%10 == 0 && i >= 500
		if got := alive(t, rdb, fmt.Sprint("t", i), i%10 == 0); got != want {
			t.Errorf("session t%d alive=%v, want %v", i, got, want)
		}
	}
	if n := rdb.HLen(ctx, keys.Login).Val(); n != limit {
		t.Errorf("%d login: entries left, want %d", n, limit)
	}
	if n := sessionKeyCount(t, rdb); n != limit {
		t.Errorf("%d session keys left, want %d (a viewed list each: a signed-in cart is the account's)", n, limit)
	}
}

func TestCleanupWorkersShareTheWork(t *testing.T) {
	const limit, total = 50, 700
	st := limitStore(t, limit)
	other := wiring.New(st.Redis(), st.DB(), st.Options(), storetest.Logger(t))
	t.Cleanup(other.Close)
	for i := range total {
		guest(t, st, fmt.Sprint("g", i))
	}
	ctx, cancel := context.WithCancel(t.Context())
	var wg sync.WaitGroup
	for _, s := range []*wiring.Services{st, other} {
		wg.Go(func() { cleanupWorker(s).Run(ctx) })
	}
	waitFor(t, func() bool { return sessionCount(t, st.Redis()) <= limit })
	cancel()
	wg.Wait() // Run returns promptly once ctx is cancelled

	if n := sessionCount(t, st.Redis()); n != limit {
		t.Fatalf("%d sessions left, want %d", n, limit)
	}
	a, _ := st.WorkerStatus(t.Context(), "cleanup")
	if a.Totals["evicted"] != total-limit || a.Error != "" {
		t.Errorf("worker status: %+v, want %d evicted in total", a, total-limit)
	}
	if holder, _ := st.LeaseHolder(t.Context(), "cleanup"); holder != "" {
		t.Errorf("lease still held by %q after shutdown", holder)
	}
	if got := metric(t, st, "storefront_sessions") + metric(t, other, "storefront_sessions"); got != 2*limit {
		t.Errorf("storefront_sessions %v + other, want %d each", got, limit)
	}
	if got := metric(t, st, "storefront_sessions_evicted_total") + metric(t, other, "storefront_sessions_evicted_total"); got != total-limit {
		t.Errorf("storefront_sessions_evicted_total %v across instances, want %d", got, total-limit)
	}
}

func TestCleanupWorkerStopsWhenCancelled(t *testing.T) {
	st := limitStore(t, 1)
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan struct{})
	go func() { cleanupWorker(st).Run(ctx); close(done) }()
	waitFor(t, func() bool { h, _ := st.LeaseHolder(t.Context(), "cleanup"); return h == st.Instance() })
	cancel()
	select {
	case <-done:
	case <-time.After(10 * time.Second): // a hang guard, not a timing assertion
		t.Fatal("the cleanup worker did not stop")
	}
}

// metric reads one gauge or counter of the store's collectors.
func metric(t *testing.T, st *wiring.Services, name string) float64 {
	t.Helper()
	reg := prometheus.NewRegistry()
	reg.MustRegister(st.Collectors()...)
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
		m := mf.GetMetric()[0]
		if g := m.GetGauge(); g != nil {
			return g.GetValue()
		}
		return m.GetCounter().GetValue()
	}
	t.Fatalf("no metric %s", name)
	return 0
}

// waitFor polls cond until it holds; it fails after a generous deadline
// (a hang guard, not a timing assertion).
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not met in 30 s")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// cleanupWorker is the shop's session cleanup worker alone.
func cleanupWorker(st *wiring.Services) workers.Worker {
	for _, w := range st.Sessions.Workers() {
		if w.Name() == keys.LeaseCleanup {
			return w
		}
	}
	panic("no session cleanup worker")
}
