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

// scriptHook counts the scripts sent (the rate limit is one).
type scriptHook struct {
	mu      sync.Mutex
	scripts int
}

func (h *scriptHook) DialHook(next redis.DialHook) redis.DialHook { return next }
func (h *scriptHook) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		if strings.HasPrefix(cmd.Name(), "eval") {
			h.mu.Lock()
			h.scripts++
			h.mu.Unlock()
		}
		return next(ctx, cmd)
	}
}
func (h *scriptHook) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return next
}

func (h *scriptHook) count() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.scripts
}

// A client address over the cap of new sessions is refused without asking
// Redis again until the time Redis gave, and then asks again; the cap
// holds all along: only SessionRate's N sessions are stored.
func TestSessionCapRemembersRefusal(t *testing.T) {
	now := time.Now()
	var mu sync.Mutex
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	st := wiringtest.New(t, func(o *wiring.Options) {
		o.SessionRate = ratelimit.Rate{{N: 2, Per: time.Minute}}
	})
	st.SetClock(clock)
	hook := &scriptHook{}
	st.Redis().AddHook(hook)
	ctx := sessions.WithClientAddr(t.Context(), "203.0.113.9")
	n := 0
	view := func() pagecache.ItemView {
		n++
		v, err := st.Pages.ServeItemPage(ctx, pagecache.ItemPageRequest{ItemID: 3, Render: wiringtest.PageRender,
			NewToken: func() string { return "capped-token-" + string(rune('a'+n)) }})
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	for i := range 2 {
		if !view().NewSession {
			t.Fatalf("view %d: no session under the cap", i)
		}
	}
	if view().NewSession {
		t.Fatal("a third session within the minute")
	}
	asked := hook.count()
	for range 20 {
		if view().NewSession {
			t.Fatal("a session over the cap")
		}
	}
	if got := hook.count(); got != asked {
		t.Errorf("%d rate-limit scripts for 20 refused visits; want none (the refusal is remembered)", got-asked)
	}
	if n := storetest.Must(st.Redis().ZCard(t.Context(), keys.Recent).Result())(t); n != 2 {
		t.Errorf("recent: holds %d sessions; want the cap's 2", n)
	}
	mu.Lock()
	now = now.Add(time.Minute + time.Second)
	mu.Unlock()
	if !view().NewSession {
		t.Error("no session after the window passed")
	}
	if hook.count() == asked {
		t.Error("Redis was not asked again after the refusal's time")
	}
}
