package sessions_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"storefront/store/keys"
	"storefront/store/pagecache"
	"storefront/store/ratelimit"
	"storefront/store/sessions"
	"storefront/store/storetest"
	"storefront/wiring"
	"storefront/wiring/wiringtest"
)

// scriptHook counts the scripts sent (the rate limit is one), alone or
// in pipelines, and the round trips.
type scriptHook struct {
	mu      sync.Mutex
	scripts int
}

func (h *scriptHook) DialHook(next redis.DialHook) redis.DialHook { return next }
func (h *scriptHook) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		h.mu.Lock()
		if strings.HasPrefix(cmd.Name(), "eval") {
			h.scripts++
		}
		h.mu.Unlock()
		return next(ctx, cmd)
	}
}
func (h *scriptHook) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		h.mu.Lock()
		for _, cmd := range cmds {
			if strings.HasPrefix(cmd.Name(), "eval") {
				h.scripts++
			}
		}
		h.mu.Unlock()
		return next(ctx, cmds)
	}
}

func (h *scriptHook) count() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.scripts
}

// A first visit gets its token without waiting on Redis; the cap of new
// sessions per client address is counted behind, when the writes behind
// create the sessions: only SessionRate's N are stored, the refused
// tokens are dropped on their next request, and the address gets no token
// (and costs no Redis round trip) until the time Redis gave; then it
// asks again.
func TestSessionCapRemembersRefusal(t *testing.T) {
	now := time.Now()
	var mu sync.Mutex
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	st := wiringtest.New(t, func(o *wiring.Options) {
		o.SessionRate = ratelimit.Rate{{N: 2, Per: time.Minute}}
		o.WriteBehind = time.Hour // flushed by the test
	})
	st.SetClock(clock)
	ctx := sessions.WithClientAddr(t.Context(), "203.0.113.9")
	n := 0
	view := func(token string) pagecache.ItemView {
		n++
		v, err := st.Pages.ServeItemPage(ctx, pagecache.ItemPageRequest{ItemID: 3, Render: wiringtest.PageRender, Token: token,
			NewToken: func() string { return "capped-token-" + string(rune('a'+n)) }})
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	view("")
	view("") // the page is in this process now
	flush := func() {
		if err := st.Pages.FlushWrites(t.Context()); err != nil {
			t.Fatal(err)
		}
	}
	flush()
	// One key each: on a Cluster they live in different slots.
	for _, k := range []string{keys.Recent, keys.Rate(keys.RateNewSession, "203.0.113.9")} {
		storetest.Must(st.Redis().Del(t.Context(), k).Result())(t)
	}
	hook := &scriptHook{}
	st.Redis().AddHook(hook)
	var tokens []string
	for i := range 3 {
		v := view("")
		if !v.NewSession || v.Result != pagecache.PageHit {
			t.Fatalf("first visit %d: new session %v, %s; want a token on a hit", i, v.NewSession, v.Result)
		}
		tokens = append(tokens, v.Token)
	}
	// Nothing waited on the cap or on the session's creation.
	if got := hook.count(); got != 0 {
		t.Fatalf("%d rate-limit scripts before the flush; want none", got)
	}
	if n := storetest.Must(st.Redis().ZCard(t.Context(), keys.Recent).Result())(t); n != 0 {
		t.Fatalf("recent: holds %d sessions before the flush; want them written behind", n)
	}
	flush()
	if n := storetest.Must(st.Redis().ZCard(t.Context(), keys.Recent).Result())(t); n != 2 {
		t.Fatalf("recent: holds %d sessions after the flush; want the cap's 2", n)
	}
	refused := ""
	for _, tok := range tokens {
		if _, err := st.Redis().ZScore(t.Context(), keys.Recent, keys.SessionID(tok)).Result(); err != nil {
			refused = tok
		}
	}
	if v := view(refused); !v.DroppedToken || v.NewSession || v.Token != "" {
		t.Errorf("the refused token's next visit: dropped %v, new session %v, token %q; want dropped and no session", v.DroppedToken, v.NewSession, v.Token)
	}
	asked := hook.count()
	for range 20 {
		if view("").NewSession {
			t.Fatal("a session over the cap")
		}
	}
	flush()
	if got := hook.count(); got != asked {
		t.Errorf("%d rate-limit scripts for 20 refused visits; want none (the refusal is remembered)", got-asked)
	}
	if n := storetest.Must(st.Redis().ZCard(t.Context(), keys.Recent).Result())(t); n != 2 {
		t.Errorf("recent: holds %d sessions; want the cap's 2", n)
	}
	mu.Lock()
	now = now.Add(time.Minute + time.Second)
	mu.Unlock()
	if !view("").NewSession {
		t.Error("no session after the window passed")
	}
	flush()
	if hook.count() == asked {
		t.Error("Redis was not asked again after the refusal's time")
	}
	if n := storetest.Must(st.Redis().ZCard(t.Context(), keys.Recent).Result())(t); n != 3 {
		t.Errorf("recent: holds %d sessions; want 3 once the window passed", n)
	}
}
